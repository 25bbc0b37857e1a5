// W9: a run writes only while it is RUNNING, checked atomically with the insert; finishing a run
// waits for writes in flight and never stamps a finishedAt before the run's last record.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunNotRunningError } from '../../src/domain/errors.js';
import { writeMemory } from '../../src/service/write-memory.js';
import {
  CREATE_MEMORY,
  createAgentFixture,
  runIdentity,
  startHarness,
  startRun,
  writeOk,
  type AgentFixture,
  type Harness,
} from '../support/harness.js';

let h: Harness;
let fx: AgentFixture;

beforeAll(async () => {
  h = await startHarness();
  fx = await createAgentFixture(h, { instruments: ['BTC', 'ETH'] });
});
afterAll(async () => {
  await h.close();
});

const note = (content: string) => ({
  type: 'note',
  scope: 'INSTRUMENTS' as const,
  instruments: ['BTC', 'ETH'],
  content,
});
const finish = (runId: string, status = 'SUCCEEDED') =>
  h.ok<{ finishRun: { finishedAt: string } }>(
    'mutation($r: UUID!, $s: RunStatus!) { finishRun(runId: $r, status: $s) { finishedAt } }',
    { r: runId, s: status },
  );
const rowsOf = (runId: string) =>
  h.db.prisma.memory.findMany({ where: { sourceRunId: runId }, select: { id: true, createdAt: true } });

describe('W9: runs write only while RUNNING', () => {
  it('W9: the insert itself refuses a run that has finished, even with a caller resolved before', async () => {
    const run = await startRun(h, fx.producers.adhoc!.id);
    const identity = await runIdentity(h, run.runId); // resolved while RUNNING, as a cached caller would be
    await finish(run.runId);
    const before = await h.db.prisma.memory.count();
    await expect(
      writeMemory({ db: h.db, events: h.events, now: () => new Date() }, identity, note('late'), 'graphql'),
    ).rejects.toBeInstanceOf(RunNotRunningError);
    expect(await h.db.prisma.memory.count()).toBe(before);
    expect(await h.db.prisma.memoryTarget.count({ where: { memory: { sourceRunId: run.runId } } })).toBe(0);
  });

  it('W9: writes racing finishRun over GraphQL and REST: each answer is true and none is stored after finishedAt', async () => {
    const run = await startRun(h, fx.producers.adhoc!.id);
    const gqlWrite = (i: number) =>
      h.gql<{ createMemory: { __typename: string; memory?: { id: string } } }>(
        CREATE_MEMORY,
        { input: note(`race ${i}`) },
        run.token,
      );
    const restWrite = (i: number) =>
      h.fetch('/api/v1/memories', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${run.token}` },
        body: JSON.stringify({ ...note(`race ${i}`), instruments: ['BTC', 'ETH'] }),
      });
    const writes: Promise<{ stored: string | null; refused: boolean }>[] = [];
    for (let i = 0; i < 120; i++) {
      writes.push(
        i % 2
          ? gqlWrite(i).then((r) => ({
              stored: r.data?.createMemory?.memory?.id ?? null,
              refused: r.errors?.[0]?.extensions?.code === 'UNAUTHENTICATED',
            }))
          : restWrite(i).then(async (r) => ({
              stored: r.status === 201 ? ((await r.json()) as { memory: { id: string } }).memory.id : null,
              refused: r.status === 401,
            })),
      );
      if (i === 60) writes.push(finish(run.runId).then(() => ({ stored: null, refused: false })));
    }
    const answers = await Promise.all(writes);
    const run_ = await h.db.prisma.run.findFirstOrThrow({ where: { id: run.runId } });
    const rows = await rowsOf(run.runId);
    const acknowledged = answers.flatMap((a) => (a.stored ? [a.stored] : []));
    // Every stored row was acknowledged, every acknowledged one is stored; the rest were refused.
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set(acknowledged));
    expect(answers.filter((a) => !a.stored && !a.refused)).toHaveLength(1); // the finishRun call itself
    for (const row of rows) expect(row.createdAt.getTime()).toBeLessThanOrEqual(run_.finishedAt!.getTime());
  });

  it('W9: finishedAt is never before the last record of the run, whatever clock stamped it', async () => {
    const run = await startRun(h, fx.producers.adhoc!.id);
    h.clock.set('2030-01-01T00:00:10Z');
    const memory = await writeOk(h, run.token, note('from a clock ahead'));
    h.clock.set('2030-01-01T00:00:00Z');
    const { finishRun } = await finish(run.runId);
    h.clock.real();
    expect(new Date(finishRun.finishedAt).getTime()).toBeGreaterThanOrEqual(
      new Date(memory.createdAt).getTime(),
    );
  });

  it("W9: a record's provenance shows its run's real status after the run finished", async () => {
    const run = await startRun(h, fx.producers.adhoc!.id);
    const memory = await writeOk(h, run.token, note('provenance'));
    expect(memory.provenance.runStatus).toBe('RUNNING');
    await finish(run.runId, 'FAILED');
    const { memory: read } = await h.ok<{ memory: { provenance: { runStatus: string } } }>(
      'query($id: UUID!) { memory(id: $id) { provenance { runStatus } } }',
      { id: memory.id },
      fx.operatorToken,
    );
    expect(read.provenance.runStatus).toBe('FAILED');
  });
});
