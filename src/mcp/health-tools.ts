// get_producer_health: producer health (B8) for Review runs and operators, as the
// API's own producerHealth query run as the caller. Kept small: its listing counts against the tool
// list's budget per run kind.
import { z } from 'zod';
import type { ServiceExecutor } from './executor.js';
import { defineTool } from './tool.js';
import { timeWindow } from './window-args.js';

const input = z.object({ window: z.enum(['1h', '6h', '24h']).default('24h') });
const output = z.object({
  producers: z.array(
    z.object({
      name: z.string(),
      status: z.string(),
      cycles_expected: z.number(),
      cycles_with_record: z.number(),
      missed_boundaries: z.array(z.string()),
      lateness_p95_seconds: z.number().nullable(),
      stale_on_arrival: z.number(),
      failed_runs: z.number(),
      last_record_at: z.string().nullable(),
    }),
  ),
});

/** Missed boundaries in a tool answer: the newest few (the page shows all 100). */
const MISSED_SHOWN = 5;

interface HealthRow {
  producer: { name: string };
  status: string;
  cyclesExpected: number;
  cyclesWithRecord: number;
  missedBoundaries: string[];
  latenessP95Seconds: number | null;
  staleOnArrival: number;
  failedRuns: number;
  lastRecordAt: string | null;
}

export const getProducerHealth = defineTool({
  name: 'get_producer_health',
  title: 'Get producer health',
  needs: 'desk',
  readOnly: true,
  input,
  output,
  // The shared failure union alone is ~380 characters of schema: the listing keeps to 700 without it.
  listsOutput: false,
  summary: (v) => {
    const unwell = v.producers.filter((p) => p.status === 'LATE' || p.status === 'MISSING');
    return `${v.producers.length} producers, ${unwell.length} late or missing.`;
  },
  async run({ window }, service: ServiceExecutor) {
    const data = await service.graphql<{ producerHealth: HealthRow[] }>(
      `query($w: TimeWindowInput) { producerHealth(window: $w) { producer { name } status cyclesExpected
        cyclesWithRecord missedBoundaries latenessP95Seconds staleOnArrival failedRuns lastRecordAt } }`,
      { w: timeWindow({ window }) },
    );
    return {
      ok: true,
      value: {
        producers: data.producerHealth.map((p) => ({
          name: p.producer.name,
          status: p.status,
          cycles_expected: p.cyclesExpected,
          cycles_with_record: p.cyclesWithRecord,
          missed_boundaries: p.missedBoundaries.slice(0, MISSED_SHOWN),
          lateness_p95_seconds: p.latenessP95Seconds,
          stale_on_arrival: p.staleOnArrival,
          failed_runs: p.failedRuns,
          last_record_at: p.lastRecordAt,
        })),
      },
    };
  },
});
