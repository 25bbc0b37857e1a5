import { describe, expect, it } from 'vitest';
import {
  LIMITS,
  checkWriteShape,
  exceedsDepth,
  type ShapeCheck,
  type WriteShapeInput,
} from '../../src/domain/write-validation.js';
import type { RunKind } from '../../src/domain/types.js';

const uuid = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

function input(overrides: Partial<WriteShapeInput> = {}): WriteShapeInput {
  return {
    type: 'market_structure',
    scope: 'INSTRUMENTS',
    instruments: ['BTC'],
    content: 'BTC holds the range.',
    metadata: { bias: 'long' },
    timeframe: '5m',
    links: [],
    ...overrides,
  };
}

function expectField(result: ShapeCheck, field: string): string {
  expect(result.ok).toBe(false);
  if (result.ok || result.kind !== 'validation') throw new Error(`expected a validation error on ${field}`);
  expect(result.error.field).toBe(field);
  return result.error.message;
}

function nested(depth: number): unknown {
  let value: unknown = {};
  for (let i = 1; i < depth; i += 1) value = { child: value };
  return value;
}

describe('accepted writes', () => {
  it('W1: a well-formed INSTRUMENTS write passes and returns normalised parts', () => {
    const r = checkWriteShape(input({ links: null }), 'write', 'ANALYSIS');
    expect(r).toEqual({ ok: true, instruments: ['BTC'], links: [], metadata: { bias: 'long' } });
  });

  it('W1: an AGENT write with null or empty instruments passes', () => {
    for (const instruments of [null, undefined, []]) {
      const r = checkWriteShape(input({ scope: 'AGENT', instruments }), 'write', 'ANALYSIS');
      expect(r.ok && r.instruments).toEqual([]);
    }
  });

  it('W7: null or undefined metadata becomes an empty object', () => {
    for (const metadata of [null, undefined]) {
      const r = checkWriteShape(input({ metadata }), 'write', 'ANALYSIS');
      expect(r.ok && r.metadata).toEqual({});
    }
  });

  it('W7: null or undefined timeframe is allowed; 1w and 1M are valid timeframes', () => {
    for (const timeframe of [null, undefined, '1w', '1M', '999d']) {
      expect(checkWriteShape(input({ timeframe }), 'write', 'ANALYSIS').ok).toBe(true);
    }
  });

  it('W6: ANALYSIS may write any custom non-reserved type', () => {
    for (const type of ['funding_skew', 'x', 'a'.repeat(64), 'constructor']) {
      expect(checkWriteShape(input({ type }), 'write', 'ANALYSIS').ok).toBe(true);
    }
  });
});

describe('type (W6)', () => {
  for (const type of ['', 'Market', '1abc', '_x', 'a-b', 'a'.repeat(65), 'naïve']) {
    it(`W6: type ${JSON.stringify(type)} is rejected`, () => {
      expectField(checkWriteShape(input({ type }), 'write', 'ANALYSIS'), 'type');
    });
  }

  const reserved: [string, RunKind][] = [
    ['trading_decision', 'TRADING'],
    ['review', 'REVIEW'],
    ['agent_learnings', 'REVIEW'],
  ];
  const kinds: (RunKind | null)[] = ['ANALYSIS', 'TRADING', 'REVIEW', null];
  for (const [type, owner] of reserved) {
    for (const kind of kinds.filter((k) => k !== owner)) {
      it(`W6: ${type} written by ${String(kind)} is ReservedMemoryType`, () => {
        const r = checkWriteShape(input({ type }), 'write', kind);
        expect(r).toEqual({ ok: false, kind: 'reserved', message: `${type} is reserved for ${owner} runs` });
      });
    }
    it(`W6: ${type} written by ${owner} is accepted`, () => {
      expect(checkWriteShape(input({ type }), 'write', owner).ok).toBe(true);
    });
    it(`I2: import mode allows reserved type ${type}`, () => {
      expect(checkWriteShape(input({ type }), 'import', null).ok).toBe(true);
    });
  }

  it('W6: the reserved check runs before scope and content checks', () => {
    const r = checkWriteShape(input({ type: 'review', content: '' }), 'write', 'ANALYSIS');
    expect(r.ok === false && r.kind).toBe('reserved');
  });
});

describe('scope and instruments (W1)', () => {
  it('W1: AGENT scope with an instrument is a validation error', () => {
    expectField(
      checkWriteShape(input({ scope: 'AGENT', instruments: ['BTC'] }), 'write', 'ANALYSIS'),
      'instruments',
    );
  });

  it('W1: INSTRUMENTS scope without instruments is a validation error', () => {
    for (const instruments of [null, undefined, []]) {
      expectField(checkWriteShape(input({ instruments }), 'write', 'ANALYSIS'), 'instruments');
    }
  });

  it('W1: 32 instruments pass, 33 fail', () => {
    const names = Array.from({ length: 33 }, (_, i) => `I${i}`);
    expect(checkWriteShape(input({ instruments: names.slice(0, 32) }), 'write', 'ANALYSIS').ok).toBe(true);
    const message = expectField(
      checkWriteShape(input({ instruments: names }), 'write', 'ANALYSIS'),
      'instruments',
    );
    expect(message).toContain('32');
  });

  it('W1: a duplicate instrument names its index', () => {
    const r = checkWriteShape(input({ instruments: ['BTC', 'ETH', 'BTC'] }), 'write', 'ANALYSIS');
    expect(expectField(r, 'instruments')).toContain('instruments[2]');
  });

  it('W2: case variants are not duplicates here (canonical names are case-sensitive; the store decides)', () => {
    expect(checkWriteShape(input({ instruments: ['kPEPE', 'KPEPE'] }), 'write', 'ANALYSIS').ok).toBe(true);
  });
});

describe('content (W7)', () => {
  it('W7: empty content is rejected', () => {
    expectField(checkWriteShape(input({ content: '' }), 'write', 'ANALYSIS'), 'content');
  });

  it('W7: 65,536 characters pass and 65,537 fail', () => {
    expect(checkWriteShape(input({ content: 'a'.repeat(65_536) }), 'write', 'ANALYSIS').ok).toBe(true);
    const message = expectField(
      checkWriteShape(input({ content: 'a'.repeat(65_537) }), 'write', 'ANALYSIS'),
      'content',
    );
    expect(message).toContain('65536');
  });

  it('W7: characters are counted as code points (65,536 emoji pass)', () => {
    expect(checkWriteShape(input({ content: '📈'.repeat(65_536) }), 'write', 'ANALYSIS').ok).toBe(true);
    expectField(checkWriteShape(input({ content: '📈'.repeat(65_537) }), 'write', 'ANALYSIS'), 'content');
  });

  it('W7: a huge content string is rejected, never truncated', () => {
    expectField(checkWriteShape(input({ content: 'a'.repeat(5_000_000) }), 'write', 'ANALYSIS'), 'content');
  });
});

describe('metadata (W7)', () => {
  it('W7: metadata as an array is rejected', () => {
    expectField(checkWriteShape(input({ metadata: [1, 2] }), 'write', 'ANALYSIS'), 'metadata');
  });

  it('W7: metadata as a string or a number is rejected', () => {
    for (const metadata of ['{"a":1}', 42, true]) {
      expectField(checkWriteShape(input({ metadata }), 'write', 'ANALYSIS'), 'metadata');
    }
  });

  it('W7: 300 KiB metadata is rejected with the limit in the message', () => {
    const metadata = { blob: 'x'.repeat(300 * 1024) };
    const message = expectField(checkWriteShape(input({ metadata }), 'write', 'ANALYSIS'), 'metadata');
    expect(message).toContain('256 KiB');
  });

  it('W7: the size limit counts UTF-8 bytes, not characters', () => {
    // Each 'é' is 2 bytes: 140,000 characters ≈ 280 KB serialised.
    expectField(
      checkWriteShape(input({ metadata: { t: 'é'.repeat(140_000) } }), 'write', 'ANALYSIS'),
      'metadata',
    );
  });

  it('W7: metadata just under 256 KiB passes', () => {
    const metadata = { blob: 'x'.repeat(LIMITS.metadataMaxBytes - 20) };
    expect(checkWriteShape(input({ metadata }), 'write', 'ANALYSIS').ok).toBe(true);
  });

  it('W7: depth 32 passes, 33 fails', () => {
    expect(checkWriteShape(input({ metadata: nested(32) }), 'write', 'ANALYSIS').ok).toBe(true);
    expectField(checkWriteShape(input({ metadata: nested(33) }), 'write', 'ANALYSIS'), 'metadata');
  });

  it('W7: 100-deep metadata is rejected', () => {
    const message = expectField(
      checkWriteShape(input({ metadata: nested(100) }), 'write', 'ANALYSIS'),
      'metadata',
    );
    expect(message).toContain('32');
  });

  it('W7: 100,000-deep metadata is rejected without a stack overflow', () => {
    expectField(checkWriteShape(input({ metadata: nested(100_000) }), 'write', 'ANALYSIS'), 'metadata');
  });

  it('W7: arrays count as nesting levels', () => {
    let value: unknown = [];
    for (let i = 1; i < 33; i += 1) value = [value];
    expect(exceedsDepth({ a: value }, 32)).toBe(true);
    expect(exceedsDepth({ a: [[1]] }, 3)).toBe(false);
  });

  it('W7: cyclic metadata is rejected, not a crash', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expectField(checkWriteShape(input({ metadata: cyclic }), 'write', 'ANALYSIS'), 'metadata');
  });
});

describe('timeframe (W7)', () => {
  for (const timeframe of ['', '5', 'm5', '1000m', '1H', '1s', '5 m']) {
    it(`W7: timeframe ${JSON.stringify(timeframe)} is rejected`, () => {
      expectField(checkWriteShape(input({ timeframe }), 'write', 'ANALYSIS'), 'timeframe');
    });
  }
});

describe('links (W7, W4 shape)', () => {
  const links = (n: number): { targetMemoryId: string; linkType: string }[] =>
    Array.from({ length: n }, (_, i) => ({ targetMemoryId: uuid(i), linkType: 'considered' }));

  it('W7: 64 links pass and 65 links fail', () => {
    expect(checkWriteShape(input({ links: links(64) }), 'write', 'ANALYSIS').ok).toBe(true);
    const message = expectField(checkWriteShape(input({ links: links(65) }), 'write', 'ANALYSIS'), 'links');
    expect(message).toContain('64');
  });

  it('W7: a malformed linkType names the link index', () => {
    const bad = [...links(2), { targetMemoryId: uuid(9), linkType: 'Corrects' }];
    expectField(checkWriteShape(input({ links: bad }), 'write', 'ANALYSIS'), 'links[2].linkType');
  });

  it('W7: a 65-character linkType is rejected', () => {
    const bad = [{ targetMemoryId: uuid(1), linkType: 'a'.repeat(65) }];
    expectField(checkWriteShape(input({ links: bad }), 'write', 'ANALYSIS'), 'links[0].linkType');
  });

  it('W7: a duplicate link (same target and type) names its index', () => {
    const dup = [
      { targetMemoryId: uuid(1), linkType: 'corrects' },
      { targetMemoryId: uuid(1), linkType: 'considered' },
      { targetMemoryId: uuid(1), linkType: 'corrects' },
    ];
    expectField(checkWriteShape(input({ links: dup }), 'write', 'ANALYSIS'), 'links[2]');
  });

  it('W7: the same target with different link types is allowed', () => {
    const ok = [
      { targetMemoryId: uuid(1), linkType: 'corrects' },
      { targetMemoryId: uuid(1), linkType: 'considered' },
    ];
    expect(checkWriteShape(input({ links: ok }), 'write', 'ANALYSIS').ok).toBe(true);
  });
});

describe('idempotency key (W8)', () => {
  it('W8: absent, null or 1..128 characters pass', () => {
    for (const idempotencyKey of [undefined, null, 'k', 'k'.repeat(128)]) {
      expect(checkWriteShape(input({ idempotencyKey }), 'write', 'ANALYSIS').ok).toBe(true);
    }
  });

  it('W8: an empty or 129-character key is rejected', () => {
    for (const idempotencyKey of ['', 'k'.repeat(129)]) {
      const message = expectField(
        checkWriteShape(input({ idempotencyKey }), 'write', 'ANALYSIS'),
        'idempotencyKey',
      );
      expect(message).toContain('128');
    }
  });
});

describe('check order', () => {
  it('W7: content is reported before metadata, metadata before timeframe, timeframe before links', () => {
    const all = input({
      content: '',
      metadata: [],
      timeframe: 'x',
      links: [{ targetMemoryId: uuid(1), linkType: 'X' }],
    });
    expectField(checkWriteShape(all, 'write', 'ANALYSIS'), 'content');
    expectField(checkWriteShape({ ...all, content: 'ok' }, 'write', 'ANALYSIS'), 'metadata');
    expectField(checkWriteShape({ ...all, content: 'ok', metadata: {} }, 'write', 'ANALYSIS'), 'timeframe');
    expectField(
      checkWriteShape({ ...all, content: 'ok', metadata: {}, timeframe: '1h' }, 'write', 'ANALYSIS'),
      'links[0].linkType',
    );
  });

  it('W1: instruments are reported before content', () => {
    expectField(checkWriteShape(input({ instruments: [], content: '' }), 'write', 'ANALYSIS'), 'instruments');
  });

  it('I2: import mode keeps the shape rules', () => {
    expectField(checkWriteShape(input({ type: 'review', metadata: [] }), 'import', null), 'metadata');
  });
});
