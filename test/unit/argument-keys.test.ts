// M10: unknown argument keys are refused naming the nearest known one; missing ones are "missing".
import { describe, expect, it } from 'vitest';
import { checkArgumentKeys, nearestKey, type ArgumentShape } from '../../src/domain/argument-keys.js';
import { parseRestMemoryBody } from '../../src/http/rest-memories.js';

const WRITE: ArgumentShape = {
  keys: ['type', 'scope', 'content', 'links', 'idempotency_key'],
  required: ['type', 'scope', 'content'],
  nested: { links: { keys: ['target_memory_id', 'link_type'], required: ['target_memory_id', 'link_type'] } },
};
const body = { type: 'note', scope: 'AGENT', content: 'x' };

describe('M10: argument keys', () => {
  it('M10: the nearest known key is the same letters in another spelling, else the closest by edits', () => {
    expect(nearestKey('idempotencyKey', WRITE.keys)).toBe('idempotency_key');
    expect(nearestKey('Content', WRITE.keys)).toBe('content');
    expect(nearestKey('scop', WRITE.keys)).toBe('scope');
    expect(nearestKey('instrument', ['instruments', 'type'])).toBe('instruments');
    expect(nearestKey('zzzzzzzz', WRITE.keys)).toBeNull();
  });

  it('M10: an unknown key is refused by name with the nearest one; nested keys by their path', () => {
    expect(checkArgumentKeys({ ...body, idempotencyKey: 'k' }, WRITE)).toEqual({
      field: 'idempotencyKey',
      message:
        'idempotencyKey is not a known argument; did you mean idempotency_key? (known: type, scope, content, links, idempotency_key)',
    });
    const nested = checkArgumentKeys(
      {
        ...body,
        links: [
          { target_memory_id: 'a', link_type: 'x' },
          { targetMemoryId: 'b', link_type: 'x' },
        ],
      },
      WRITE,
    );
    expect(nested?.field).toBe('links[1].targetMemoryId');
    expect(nested?.message).toContain('did you mean links[1].target_memory_id?');
    expect(
      checkArgumentKeys({ ...body, links: [{ target_memory_id: 'a', link_type: 'x' }] }, WRITE),
    ).toBeNull();
  });

  it('M10: a missing required key is reported as missing, at any depth', () => {
    expect(checkArgumentKeys({ type: 'note', scope: 'AGENT' }, WRITE)).toEqual({
      field: 'content',
      message: 'content is missing',
    });
    expect(checkArgumentKeys({ ...body, links: [{ link_type: 'considered' }] }, WRITE)).toEqual({
      field: 'links[0].target_memory_id',
      message: 'links[0].target_memory_id is missing',
    });
  });

  it('M10: the REST write body uses the same check (idempotencyKey refused, missing target reported)', () => {
    expect(parseRestMemoryBody({ ...body, idempotencyKey: 'k' })).toMatchObject({
      ok: false,
      field: 'idempotencyKey',
      message: expect.stringContaining('did you mean idempotency_key?'),
    });
    expect(parseRestMemoryBody({ ...body, links: [{ link_type: 'considered' }] })).toEqual({
      ok: false,
      field: 'links[0].target_memory_id',
      message: 'links[0].target_memory_id is missing',
    });
    expect(parseRestMemoryBody({ ...body, idempotency_key: 'k' })).toMatchObject({ ok: true });
  });
});
