// B8: producer health over the scripted insight day (test/support/insight-day.ts), expected by hand.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentFixture, startHarness, type Harness } from '../support/harness.js';
import { StatementRecorder } from '../support/statement-recorder.js';
import { DAY, playInsightDay, type InsightDay } from '../support/insight-day.js';

let h: Harness;
let day: InsightDay;
const recorder = new StatementRecorder();

beforeAll(async () => {
  h = await startHarness({ recorder });
  day = await playInsightDay(h);
});
afterAll(async () => {
  await h?.close();
});

const HEALTH = `query($a: UUID, $w: TimeWindowInput) { producerHealth(agentId: $a, window: $w) {
  producer { name } status lastRun { id status recordCount empty } lastRecordAt nextBoundary
  cyclesExpected cyclesWithRecord missedBoundaries latenessP50Seconds latenessP95Seconds latenessMaxSeconds
  staleOnArrival failedRuns cancelledRuns emptyRuns } }`;

const at = (hhmm: string) => `${DAY}T${hhmm}:00.000Z`;
const unscheduled = {
  status: 'UNSCHEDULED',
  nextBoundary: null,
  cyclesExpected: 0,
  cyclesWithRecord: 0,
  missedBoundaries: [],
  latenessP50Seconds: null,
  latenessP95Seconds: null,
  latenessMaxSeconds: null,
  staleOnArrival: 0,
  failedRuns: 0,
  cancelledRuns: 0,
  emptyRuns: 0,
};
const lastRun = (label: string, recordCount: number) => ({
  id: day.runs[label],
  status: 'SUCCEEDED',
  recordCount,
  empty: recordCount === 0,
});
const steady = (seconds: number) => ({
  latenessP50Seconds: seconds,
  latenessP95Seconds: seconds,
  latenessMaxSeconds: seconds,
  staleOnArrival: 0,
  failedRuns: 0,
  cancelledRuns: 0,
  emptyRuns: 0,
});

describe('B8: producer health over a scripted day', () => {
  it('B8: each producer’s status, cycles, missed boundaries, lateness and runs at noon', async () => {
    const { producerHealth } = await h.ok(HEALTH, { w: { fromDate: DAY } }, day.fx.operatorToken);
    expect(producerHealth).toEqual([
      {
        producer: { name: 'adhoc' },
        ...unscheduled,
        lastRun: lastRun('adhoc-2', 1),
        lastRecordAt: at('11:10'),
      },
      {
        producer: { name: 'hourly' },
        status: 'HEALTHY',
        lastRun: lastRun('hourly-11', 1),
        lastRecordAt: at('11:05'),
        nextBoundary: at('13:00'),
        cyclesExpected: 12,
        cyclesWithRecord: 9,
        missedBoundaries: [at('10:00'), at('03:00'), at('02:00')],
        // 120, 300 ×6, 1800, 7800 s: the median, the 95th percentile (interpolated) and the maximum.
        latenessP50Seconds: 300,
        latenessP95Seconds: 5400,
        latenessMaxSeconds: 7800,
        staleOnArrival: 1,
        failedRuns: 1,
        cancelledRuns: 1,
        emptyRuns: 1,
      },
      {
        producer: { name: 'pair' },
        status: 'LATE',
        lastRun: lastRun('pair-08', 1),
        lastRecordAt: at('08:10'),
        nextBoundary: at('14:00'),
        cyclesExpected: 6,
        cyclesWithRecord: 5,
        missedBoundaries: [at('10:00')],
        ...steady(600),
      },
      { producer: { name: 'review' }, ...unscheduled, lastRun: null, lastRecordAt: null },
      {
        producer: { name: 'slow' },
        status: 'MISSING',
        lastRun: lastRun('slow-00', 1),
        lastRecordAt: at('00:10'),
        nextBoundary: at('16:00'),
        cyclesExpected: 3,
        cyclesWithRecord: 1,
        missedBoundaries: [at('08:00'), at('04:00')],
        ...steady(600),
      },
      {
        producer: { name: 'toggled' },
        status: 'DISABLED',
        lastRun: lastRun('toggled-05', 1),
        lastRecordAt: at('05:10'),
        nextBoundary: null,
        cyclesExpected: 7,
        cyclesWithRecord: 1,
        missedBoundaries: [at('06:00'), at('04:00'), at('03:00'), at('02:00'), at('01:00'), at('00:00')],
        ...steady(600),
      },
      {
        producer: { name: 'trading' },
        ...unscheduled,
        lastRun: lastRun('trading-2', 1),
        lastRecordAt: at('11:30'),
      },
    ]);
  });

  it('B8: the status is evaluated at now whatever the window; an earlier window counts its own cycles', async () => {
    h.clock.set(at('12:00'));
    const { producerHealth } = await h.ok(HEALTH, { w: { fromDate: '2026-03-01' } }, day.fx.operatorToken);
    const hourly = producerHealth.find((p: { producer: { name: string } }) => p.producer.name === 'hourly');
    // The producer was created at 23:00 on the 1st: one cycle (23:00), missed; the status is noon's.
    expect(hourly).toMatchObject({ status: 'HEALTHY', cyclesExpected: 1, cyclesWithRecord: 0 });
    expect(hourly.missedBoundaries).toEqual(['2026-03-01T23:00:00.000Z']);
    expect(hourly.latenessP50Seconds).toBeNull();
  });

  it('B8: a bad window is BAD_USER_INPUT; one with too many cycles is refused', async () => {
    const bad = await h.gql(HEALTH, {
      a: day.fx.agentId,
      w: { fromDate: '2026-03-03', toDate: '2026-03-01' },
    });
    expect(bad.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'window.toDate' });
    const long = await h.gql(HEALTH, {
      a: day.fx.agentId,
      w: { fromDate: '2023-01-01', toDate: '2026-03-02' },
    });
    expect(long.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'window' });
  });

  it('B8: Analysis and Trading runs may not read health; the admin names the agent', async () => {
    const admin = await h.gql(HEALTH, {});
    expect(admin.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const named = await h.ok(HEALTH, { a: day.fx.agentId });
    expect(named.producerHealth).toHaveLength(7);
  });
});

describe('B8: the fleet table (Agent.health, B8)', () => {
  const FLEET = `{ agents { name health { instrumentsSelected producersHealthy producersLate producersMissing
    producersDisabled producersUnscheduled lastDecisionAt recordsLast24h } } }`;

  it('B8: each agent’s row — instruments, producers by status, last decision, records in 24 h — for all agents in four statements, whatever their number', async () => {
    const quiet = await createAgentFixture(h, { name: 'zz-quiet', instruments: ['BTC'] });
    h.clock.set(at('12:00'));
    const named = await h.ok(`query($id: UUID!) { agent(id: $id) { name } }`, { id: day.fx.agentId });
    const trips = await recorder.during(() => h.ok(FLEET));
    const { agents } = await h.ok(FLEET);
    const rows = Object.fromEntries(agents.map((a: { name: string; health: unknown }) => [a.name, a.health]));
    expect(rows[named.agent.name]).toEqual({
      instrumentsSelected: 2,
      producersHealthy: 1, // hourly
      producersLate: 1, // pair
      producersMissing: 1, // slow
      producersDisabled: 1, // toggled
      producersUnscheduled: 3, // adhoc, trading, review
      lastDecisionAt: at('11:30'),
      // hourly 9, slow 1, pair 5, toggled 1, adhoc 3 (a note, two corrections), trading 2.
      recordsLast24h: 21,
    });
    expect(rows['zz-quiet']).toMatchObject({
      instrumentsSelected: 1,
      recordsLast24h: 0,
      lastDecisionAt: null,
    });
    expect(quiet.agentId).toBeTruthy();
    // The agents, then for all of them at once: the producers, their cycles, the counts.
    expect(trips.count).toBe(4);
  });
});
