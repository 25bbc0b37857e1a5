// DEMO=1: an empty database gets a demo agent with instruments, producers, runs and realistic records,
// written through the same service functions as real traffic (so expiry and links are real too).
import { scheduleMs, type Schedule } from '../domain/schedule.js';
import type { RunIdentity } from '../domain/types.js';
import { writeMemory, type MemoryWrite } from '../service/write-memory.js';
import * as admin from '../service/admin.js';
import type { Database } from '../store/db.js';

type DemoRun = RunIdentity & { producerName: string };
/** Seeding happens before anyone can subscribe or connect: nothing to announce, no session to end. */
const UNANNOUNCED = { publishMemoryAdded: async () => {}, publishRunChanged: async () => {} };
const NO_SESSIONS = { revoke: () => {} };

export interface DemoSeed {
  agentId: string;
  agentName: string;
  operatorToken: string;
  memoryCount: number;
}

const MINUTE = 60_000;
export const DEMO_AGENT_NAME = 'demo-trader';

/** Runs and writes of the demo, timed relative to `now`; counts the records written. */
function demoWriter(db: Database, now: Date) {
  const at = (minutesAgo: number) => new Date(now.getTime() - minutesAgo * MINUTE);
  const floorTo = (date: Date, schedule: Schedule) =>
    new Date(Math.floor(date.getTime() / scheduleMs(schedule)) * scheduleMs(schedule));
  let memoryCount = 0;
  const quiet = { db, events: UNANNOUNCED, sessions: NO_SESSIONS };
  return {
    at,
    memoryCount: () => memoryCount,
    runAt: async (producerId: string, startedAt: Date, schedule: Schedule | null): Promise<DemoRun> => {
      const boundary = schedule ? floorTo(startedAt, schedule) : null;
      const { run } = await admin.startRun(quiet, { producerId, evidenceBoundary: boundary }, startedAt);
      return run;
    },
    write: async (run: DemoRun, writtenAt: Date, input: MemoryWrite) => {
      memoryCount += 1;
      const written = await writeMemory(
        { db, events: UNANNOUNCED, now: () => writtenAt },
        run,
        input,
        'demo',
      );
      return written.record;
    },
    finish: (run: DemoRun, finishedAt: Date) => admin.finishRun(quiet, run.id, 'SUCCEEDED', finishedAt),
  };
}
type DemoWriter = ReturnType<typeof demoWriter>;

/** The agent, its instruments (kPEPE listed but not traded) and five producers. */
async function createCatalog(db: Database, { at }: DemoWriter) {
  const agent = await admin.createAgent(db, { name: DEMO_AGENT_NAME });
  for (const id of ['BTC', 'ETH', 'SOL', 'kPEPE']) await admin.upsertInstrument(db, { id, active: true });
  await admin.setAgentInstruments(db, agent.id, ['BTC', 'ETH', 'SOL'], at(60 * 24 * 3));

  const producer = (kind: 'ANALYSIS' | 'TRADING' | 'REVIEW', name: string, schedule: Schedule | null) =>
    admin.createProducer(db, { agentId: agent.id, kind, name, schedule }, at(60 * 24 * 3));
  const ema = await producer('ANALYSIS', 'ema-crossover-5m', '5m');
  const funding = await producer('ANALYSIS', 'funding-basis-1h', '1h');
  const news = await producer('ANALYSIS', 'macro-news-desk', null);
  const trader = await producer('TRADING', 'perp-trader', '5m');
  const reviewer = await producer('REVIEW', 'daily-review', '1d');
  return { agent, producers: { ema, funding, news, trader, reviewer } };
}

/** One EMA handoff as the analysis producer writes it (handoff v1 metadata with its source bar). */
function emaHandoff(run: DemoRun, instrument: string, minutesAgo: number): MemoryWrite {
  const boundary = run.evidenceBoundary!;
  const fast = instrument === 'ETH' ? 2689.21 + minutesAgo / 10 : 96_410.5 - minutesAgo;
  const slow = instrument === 'ETH' ? 2691.1 : 96_380.25;
  const bias = fast < slow ? 'bearish' : 'bullish';
  return {
    type: 'ema_handoff',
    scope: 'INSTRUMENTS',
    instruments: [instrument],
    timeframe: '5m',
    content: `${instrument} 5m: fast EMA ${fast.toFixed(2)} vs slow ${slow.toFixed(2)} — ${bias}, no entry confirmation yet.`,
    metadata: {
      handoff_version: 1,
      evidence_boundary: boundary.toISOString(),
      sources: [
        {
          indicator_run_id: run.id,
          instrument_id: instrument,
          timeframe: '5m',
          bar_index: 499,
          opened_at: new Date(boundary.getTime() - 5 * MINUTE).toISOString(),
          closed_at: boundary.toISOString(),
        },
      ],
      observations: { fast_ema: Number(fast.toFixed(2)), slow_ema: slow },
      interpretation: {
        bias,
        setup_status: 'no_setup',
        confidence: { label: 'moderate', rationale: 'EMA alignment without entry confirmation' },
        invalidation: 'A new closed-bar crossover in the other direction',
      },
    },
  };
}

/**
 * Analysis: EMA handoffs every 15 minutes for the last ~2 hours on ETH and BTC (older ones are stale; the
 * producer misses cycles, so the Health tab shows it MISSING). Returns the newest and the oldest per instrument.
 */
async function writeEmaHandoffs(
  demo: DemoWriter,
  producerId: string,
): Promise<{ emaIds: Record<string, string>; oldestIds: Record<string, string> }> {
  const emaIds: Record<string, string> = {};
  const oldestIds: Record<string, string> = {};
  for (let minutesAgo = 120; minutesAgo >= 2; minutesAgo -= 15) {
    const started = demo.at(minutesAgo);
    const run = await demo.runAt(producerId, started, '5m');
    for (const instrument of ['ETH', 'BTC']) {
      const written = await demo.write(
        run,
        new Date(started.getTime() + 40_000),
        emaHandoff(run, instrument, minutesAgo),
      );
      emaIds[instrument] = written.id;
      oldestIds[instrument] ??= written.id;
    }
    await demo.finish(run, new Date(started.getTime() + 60_000));
  }
  return { emaIds, oldestIds };
}

/** Analysis: hourly funding/basis, agent-wide. */
async function writeFundingNote(demo: DemoWriter, producerId: string) {
  const { at } = demo;
  const fundingRun = await demo.runAt(producerId, at(50), '1h');
  const fundingNote = await demo.write(fundingRun, at(49), {
    type: 'funding_basis',
    scope: 'AGENT',
    timeframe: '1h',
    content:
      'Funding is positive across majors (BTC 0.011%/8h, ETH 0.013%/8h); longs pay, crowding risk moderate.',
    metadata: { handoff_version: 1, observations: { btc_funding_8h: 0.011, eth_funding_8h: 0.013 } },
  });
  await demo.finish(fundingRun, at(48));
  return fundingNote;
}

/** Analysis: an unscheduled news desk note and its correction (links with linkType "corrects"). */
async function writeNewsAndCorrection(demo: DemoWriter, producerId: string) {
  const { at } = demo;
  const newsRun = await demo.runAt(producerId, at(20), null);
  const newsNote = await demo.write(newsRun, at(19), {
    type: 'macro_note',
    scope: 'INSTRUMENTS',
    instruments: ['ETH', 'SOL'],
    content: 'ETF flow report due 14:30 UTC; expect volatility in ETH and SOL around the release.',
    metadata: { event: 'etf_flows', scheduled_at: '14:30Z' },
  });
  const correction = await demo.write(newsRun, at(12), {
    type: 'macro_note_correction',
    scope: 'INSTRUMENTS',
    instruments: ['ETH', 'SOL'],
    content: 'Correction: the ETF flow report is at 15:30 UTC, not 14:30.',
    metadata: { event: 'etf_flows', scheduled_at: '15:30Z' },
    links: [{ targetMemoryId: newsNote.id, linkType: 'corrects' }],
  });
  await demo.finish(newsRun, at(11));
  return { newsNote, correction };
}

/**
 * Trading: one decision per evaluated instrument, linking every considered record. ETH's also links the
 * two-hour-old handoff, stale when the decision was written: its audit has fresh and stale evidence (B10).
 */
async function writeTradingDecisions(
  demo: DemoWriter,
  producerId: string,
  considered: { emaIds: Record<string, string>; staleEthId: string; fundingId: string; newsIds: string[] },
): Promise<void> {
  const { at } = demo;
  const tradeRun = await demo.runAt(producerId, at(8), '5m');
  for (const instrument of ['ETH', 'BTC']) {
    const links = [
      considered.emaIds[instrument]!,
      considered.fundingId,
      ...(instrument === 'ETH' ? [...considered.newsIds, considered.staleEthId] : []),
    ];
    await demo.write(tradeRun, at(7), {
      type: 'trading_decision',
      scope: 'INSTRUMENTS',
      instruments: [instrument],
      content:
        instrument === 'ETH'
          ? 'No trade: bearish EMA bias without confirmation and event risk at 15:30 UTC.'
          : 'Hold existing long; trail stop to 95,800. No new exposure.',
      metadata: {
        decision: instrument === 'ETH' ? 'no_trade' : 'manage_position',
        valid_for_seconds: 900,
      },
      links: links.map((targetMemoryId) => ({ targetMemoryId, linkType: 'considered' })),
    });
  }
  await demo.finish(tradeRun, at(6));
}

/** Review: yesterday's review and a durable learning. */
async function writeReview(demo: DemoWriter, producerId: string): Promise<void> {
  const { at } = demo;
  const reviewRun = await demo.runAt(producerId, at(60 * 10), '1d');
  await demo.write(reviewRun, at(60 * 10 - 5), {
    type: 'review',
    scope: 'AGENT',
    content: 'Yesterday: 3 trades, 2 winners. Entries taken before event releases underperformed.',
    metadata: { trades: 3, winners: 2, pnl_usd: 412.5 },
  });
  await demo.write(reviewRun, at(60 * 10 - 4), {
    type: 'agent_learnings',
    scope: 'AGENT',
    content: 'Avoid opening new exposure within 30 minutes before scheduled macro releases.',
    metadata: { confidence: 'moderate', evidence_days: 14 },
  });
  await demo.finish(reviewRun, at(60 * 10 - 3));
}

/** Seeds once: returns null when the database already has an agent. */
export async function seedDemo(db: Database, now: Date): Promise<DemoSeed | null> {
  if ((await db.prisma.agent.count()) > 0) return null;
  const demo = demoWriter(db, now);
  const { agent, producers } = await createCatalog(db, demo);

  const { emaIds, oldestIds } = await writeEmaHandoffs(demo, producers.ema.id);
  const fundingNote = await writeFundingNote(demo, producers.funding.id);
  const { newsNote, correction } = await writeNewsAndCorrection(demo, producers.news.id);
  await writeTradingDecisions(demo, producers.trader.id, {
    emaIds,
    staleEthId: oldestIds.ETH!,
    fundingId: fundingNote.id,
    newsIds: [newsNote.id, correction.id],
  });
  await writeReview(demo, producers.reviewer.id);

  const { token } = await admin.createOperatorToken(db, agent.id);
  return { agentId: agent.id, agentName: agent.name, operatorToken: token, memoryCount: demo.memoryCount() };
}
