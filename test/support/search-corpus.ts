// A big agent for search cost (S7, B11): records of ~1.5 KB English trading prose written straight
// into the tables by one INSERT … SELECT generate_series (seconds, not the minutes the write path
// would take). Deterministic: every pick comes from a hash of the record and position numbers, so
// both stores and every run hold the same text and the planner sees the same statistics.
import type { Sql } from '../../src/store/db.js';

/**
 * Words by rank: a pick takes rank k with probability log((k+1)/k) / log(N) (a Zipf-like spread),
 * so stop words and the desk's daily words (market, price, risk, btc …) are in nearly every record
 * and the tail is rare.
 */
const VOCABULARY = `the of and to a in is market price risk btc on for close that with candle
  eth volume long short as at funding trend level support resistance by from this position entry
  exit stop target range breakout signal high low open rally selloff momentum bid ask spread book
  order flow liquidity leverage margin perp basis premium discount hedge exposure size sizing
  drawdown profit loss pnl fee rebate maker taker sweep wick body doji engulfing hammer pattern
  structure swing pivot retest reclaim rejection divergence oversold overbought rsi macd ema sma
  vwap atr band channel wedge flag pennant triangle cup handle head shoulders trendline fibonacci
  extension retracement impulse correction wave cycle regime volatility implied realized skew
  kurtosis tail event macro cpi fomc rate hike cut dollar yield bond equity index futures options
  gamma delta theta vega strike expiry call put squeeze liquidation cascade unwind deleverage
  inflow outflow exchange wallet whale retail sentiment fear greed euphoria capitulation
  accumulation distribution markup markdown consolidation chop grind drift gap fill auction value
  area poc node imbalance absorption exhaustion iceberg spoof tape print block trade desk session
  asia london york weekend overnight daily weekly monthly quarterly annual hourly minute timeframe
  higher lower timeframe confluence invalidation thesis scenario plan review lesson mistake
  discipline patience conviction bias neutral bullish bearish sideways choppy clean messy thin
  thick deep shallow fast slow sharp gradual steady erratic crowded contrarian consensus narrative
  catalyst headline rumour news report earnings upgrade downgrade listing delisting unlock vesting
  emission supply demand burn stake yield farm pool bridge chain layer token coin alt major minor
  dominance ratio pair cross correlation decoupling rotation sector meme narrative ai gaming defi
  oracle feed latency slippage fill partial reject cancel amend queue priority rebalance allocation
  portfolio budget cap limit threshold alert trigger watch monitor confirm reject wait patience
  sol doge xrp avax link arb op sui apt inj tia sei wif jup bnb ltc atom pepe`
  .split(/\s+/)
  .filter((word, index, words) => word !== '' && words.indexOf(word) === index);

/** The phrase searched in S7's tests, planted as a sentence in one record of every PHRASE_EVERY. */
export const PLANTED_PHRASE = 'risk market price candle close btc';
export const PHRASE_EVERY = 200;

/** Sentences of 6–17 words, combined SENTENCES_PER_RECORD at a time (pool size ⇒ records differ). */
const POOL = 4_000;
const SENTENCES_PER_RECORD = 24;
const TYPES = ['market_note', 'funding_note', 'orderflow_note', 'trading_decision', 'risk_review'];

/** A uniform number in [0, 1) from the integers of `expr` (deterministic on PGlite and PostgreSQL). */
const uniform = (expr: string) => `((hashint8(${expr}) & 2147483647)::float8 / 2147483648.0)`;

/**
 * Writes `records` records of ~1.5 KB prose for `agentId` (seqs after whatever the agent has; record
 * i is created i − 1 seconds before `newest`) and ANALYZEs "Memory", in three statements. Content:
 * sentences from a pool of POOL built from VOCABULARY; metadata: one of them as `{"summary": …}`
 * (its string values are searched too, B11).
 */
export async function seedSearchCorpus(
  sql: Sql,
  agentId: string,
  records: number,
  newest: Date,
): Promise<void> {
  const words = `ARRAY[${VOCABULARY.map((word) => `'${word}'`).join(',')}]`;
  const pick = (seed: string) => `(floor(power(${VOCABULARY.length}, ${uniform(seed)})))::int`;
  await sql.query(
    `WITH vocabulary AS MATERIALIZED (SELECT ${words} AS w),
     pool AS MATERIALIZED (
       SELECT array_agg(upper(left(sentence, 1)) || substr(sentence, 2) || '.' ORDER BY s) AS sentences FROM (
         SELECT s.s, (SELECT string_agg(vocabulary.w[${pick('s.s::bigint * 64 + k')}], ' ')
                        FROM generate_series(1, 6 + s.s % 12) AS k) AS sentence
           FROM generate_series(1, ${POOL}) AS s(s), vocabulary) sentences),
     base AS (SELECT coalesce(max(seq), 0) AS seq FROM "Memory" WHERE "agentId" = $1)
     INSERT INTO "Memory" (id, "agentId", type, scope, content, metadata, "createdAt", seq)
     SELECT gen_random_uuid(), $1,
            (ARRAY[${TYPES.map((type) => `'${type}'`).join(',')}])[1 + i % ${TYPES.length}], 'AGENT',
            (SELECT string_agg(pool.sentences[1 + floor(${uniform(`i::bigint * 32 + j`)} * ${POOL})::int], ' ')
               FROM generate_series(1, ${SENTENCES_PER_RECORD}) AS j)
              || CASE WHEN i % ${PHRASE_EVERY} = 0 THEN ' ${PLANTED_PHRASE}.' ELSE '' END,
            json_build_object('summary', pool.sentences[1 + floor(${uniform(`-i::bigint`)} * ${POOL})::int]),
            $2::timestamptz - (i - 1) * interval '1 second', base.seq + ${records} + 1 - i
       FROM generate_series(1, ${records}) AS i, pool, base`,
    [agentId, newest.toISOString()],
  );
  await sql.query(
    `UPDATE "Agent" SET "lastSeq" = (SELECT max(seq) FROM "Memory" WHERE "agentId" = $1) WHERE id = $1`,
    [agentId],
  );
  await sql.query('ANALYZE "Memory"');
}
