// A scripted day of one agent (2026-03-02, UTC) for the desk's insight tests (B7–B10): runs on
// time, late, failed, cancelled, empty and missing, a producer disabled mid-day, a correction and
// two decisions (one with fresh, one with stale evidence). Every step runs through the public API
// at its own instant on the harness clock; the tests write their expected answers out by hand.
import { createAgentFixture, startRun, writeOk, type AgentFixture, type Harness } from './harness.js';

export const DAY = '2026-03-02';
/** When the tests look at the day. */
export const NOON = '2026-03-02T12:00:00.000Z';
const t = (hhmm: string) => `${DAY}T${hhmm}:00.000Z`;

type Producer = 'hourly' | 'slow' | 'pair' | 'toggled' | 'adhoc' | 'trading' | 'review';
export const PRODUCERS: Record<Producer, ['ANALYSIS' | 'TRADING' | 'REVIEW', string | null]> = {
  hourly: ['ANALYSIS', '1h'],
  slow: ['ANALYSIS', '4h'],
  pair: ['ANALYSIS', '2h'],
  toggled: ['ANALYSIS', '1h'],
  adhoc: ['ANALYSIS', null],
  trading: ['TRADING', null],
  review: ['REVIEW', null],
};

/** A record to write: `label` names it for the tests; `links` name earlier labels. */
interface Write {
  at: string;
  label: string;
  type: string;
  instruments?: string[];
  links?: [label: string, linkType: string][];
}
interface ScriptedRun {
  label: string;
  producer: Producer;
  boundary?: string;
  start: string;
  writes: Write[];
  finish?: { at: string; status: 'SUCCEEDED' | 'FAILED' | 'CANCELLED' };
}

const onTime = (
  producer: Producer,
  hh: string,
  type: string,
  instruments?: string[],
  late = '05',
): ScriptedRun => ({
  label: `${producer}-${hh}`,
  producer,
  boundary: t(`${hh}:00`),
  start: t(`${hh}:01`),
  writes: [{ at: t(`${hh}:${late}`), label: `${producer}-${hh}`, type, instruments }],
  finish: {
    at: t(`${hh}:${late === '05' ? '06' : String(Number(late) + 1).padStart(2, '0')}`),
    status: 'SUCCEEDED',
  },
});

/** The day: hourly signals on ETH, a 4h regime (agent-wide), 2h flow on BTC, a 1h sentiment disabled at 06:30. */
export const RUNS: ScriptedRun[] = [
  {
    ...onTime('hourly', '00', 'signal', ['ETH']),
    writes: [{ at: t('00:02'), label: 'hourly-00', type: 'signal', instruments: ['ETH'] }],
  },
  {
    ...onTime('hourly', '01', 'signal', ['ETH']),
    writes: [{ at: t('01:30'), label: 'hourly-01', type: 'signal', instruments: ['ETH'] }],
    finish: { at: t('01:31'), status: 'SUCCEEDED' },
  },
  {
    label: 'hourly-02',
    producer: 'hourly',
    boundary: t('02:00'),
    start: t('02:01'),
    writes: [],
    finish: { at: t('02:09'), status: 'FAILED' },
  },
  {
    label: 'hourly-03',
    producer: 'hourly',
    boundary: t('03:00'),
    start: t('03:01'),
    writes: [],
    finish: { at: t('03:09'), status: 'SUCCEEDED' },
  },
  // Published 06:10, after its expiry (04:00 + 2 h): stale on arrival (X4).
  {
    label: 'hourly-04',
    producer: 'hourly',
    boundary: t('04:00'),
    start: t('04:01'),
    writes: [{ at: t('06:10'), label: 'hourly-04', type: 'signal', instruments: ['ETH'] }],
    finish: { at: t('06:11'), status: 'SUCCEEDED' },
  },
  ...['05', '06', '07', '08', '09'].map((hh) => onTime('hourly', hh, 'signal', ['ETH'])),
  {
    label: 'hourly-10',
    producer: 'hourly',
    boundary: t('10:00'),
    start: t('10:01'),
    writes: [],
    finish: { at: t('10:03'), status: 'CANCELLED' },
  },
  onTime('hourly', '11', 'signal', ['ETH']),
  { ...onTime('slow', '00', 'regime', undefined, '10'), boundary: t('00:00'), start: t('00:05') },
  ...['00', '02', '04', '06', '08'].map((hh) => onTime('pair', hh, 'flow', ['BTC'], '10')),
  onTime('toggled', '05', 'sentiment', ['ETH'], '10'),
  {
    label: 'adhoc',
    producer: 'adhoc',
    start: t('06:59'),
    writes: [
      { at: t('07:00'), label: 'adhoc-note', type: 'note', instruments: ['ETH'] },
      // C6: a correction of the 05:00 signal (already superseded by the 06:00 one).
      {
        at: t('07:30'),
        label: 'correction',
        type: 'correction',
        instruments: ['ETH'],
        links: [['hourly-05', 'corrects']],
      },
    ],
    finish: { at: t('07:31'), status: 'SUCCEEDED' },
  },
  {
    label: 'adhoc-2',
    producer: 'adhoc',
    start: t('11:09'),
    // A correction of the current 11:00 signal: FRESH beside it until its own expiry (11:40, C7).
    writes: [
      {
        at: t('11:10'),
        label: 'correction-2',
        type: 'correction',
        instruments: ['ETH'],
        links: [['hourly-11', 'corrects']],
      },
    ],
    finish: { at: t('11:11'), status: 'SUCCEEDED' },
  },
  {
    label: 'trading-1',
    producer: 'trading',
    start: t('06:15'),
    writes: [
      {
        at: t('06:20'),
        label: 'decision-fresh',
        type: 'trading_decision',
        instruments: ['ETH'],
        links: [
          ['hourly-05', 'considered'],
          ['slow-00', 'considered'],
          ['toggled-05', 'considered'],
        ],
      },
    ],
    finish: { at: t('06:25'), status: 'SUCCEEDED' },
  },
  {
    label: 'trading-2',
    producer: 'trading',
    start: t('11:25'),
    writes: [
      {
        at: t('11:30'),
        label: 'decision-stale',
        type: 'trading_decision',
        instruments: ['ETH'],
        links: [
          ['hourly-09', 'considered'],
          ['hourly-11', 'considered'],
          ['correction', 'considered'],
          ['pair-08', 'considered'],
          ['slow-00', 'considered'],
          ['correction-2', 'considered'],
        ],
      },
    ],
    finish: { at: t('11:35'), status: 'SUCCEEDED' },
  },
];
/** toggled is disabled at 06:30 (after its 06:00 cycle). */
export const DISABLED_AT = t('06:30');

export interface InsightDay {
  fx: AgentFixture;
  /** Record ids by label. */
  records: Record<string, string>;
  /** Run ids by label. */
  runs: Record<string, string>;
  producerId(name: Producer): string;
}

type Step = { at: string; order: number; act: () => Promise<void> };

/** Plays the day on `h` (its clock ends at NOON). */
export async function playInsightDay(h: Harness): Promise<InsightDay> {
  h.clock.set('2026-03-01T23:00:00Z');
  const fx = await createAgentFixture(h, { instruments: ['BTC', 'ETH'], producers: PRODUCERS });
  const records: Record<string, string> = {};
  const runs: Record<string, string> = {};
  const tokens: Record<string, string> = {};
  const steps: Step[] = [];
  const add = (at: string, act: () => Promise<void>) => steps.push({ at, order: steps.length, act });
  for (const run of RUNS) {
    add(run.start, async () => {
      const started = await startRun(h, fx.producers[run.producer]!.id, run.boundary ?? null);
      runs[run.label] = started.runId;
      tokens[run.label] = started.token;
    });
    for (const write of run.writes) {
      add(write.at, async () => {
        const memory = await writeOk(h, tokens[run.label]!, {
          type: write.type,
          scope: write.instruments ? 'INSTRUMENTS' : 'AGENT',
          instruments: write.instruments,
          content: `${write.label} of the insight day`,
          links: write.links?.map(([label, linkType]) => ({ targetMemoryId: records[label], linkType })),
        });
        records[write.label] = memory.id as string;
      });
    }
    if (run.finish) {
      const { status } = run.finish;
      add(run.finish.at, async () => {
        await h.ok('mutation($r: UUID!, $s: RunStatus!) { finishRun(runId: $r, status: $s) { id } }', {
          r: runs[run.label],
          s: status,
        });
      });
    }
  }
  add(DISABLED_AT, async () => {
    await h.ok('mutation($p: UUID!) { setProducerEnabled(producerId: $p, enabled: false) { id } }', {
      p: fx.producers.toggled!.id,
    });
  });
  steps.sort((a, b) => Date.parse(a.at) - Date.parse(b.at) || a.order - b.order);
  for (const step of steps) {
    h.clock.set(step.at);
    await step.act();
  }
  h.clock.set(NOON);
  return { fx, records, runs, producerId: (name) => fx.producers[name]!.id };
}
