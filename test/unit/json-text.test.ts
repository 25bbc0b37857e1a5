// M7: the MCP tools' arguments are written as JSON without recursion, exactly as JSON.stringify would.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonText } from '../../src/mcp/json-text.js';

describe('M7: JSON text of tool arguments', () => {
  it('M7: any JSON value is written exactly as JSON.stringify writes it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonText(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 500 },
    );
  });

  it('M7: members JSON leaves out stay out, non-finite numbers and holes are null, toJSON is used', () => {
    const value = {
      a: undefined,
      b: [undefined, () => 1, Number.NaN, -0, 1e21],
      c: new Date('2026-01-05T12:00:00.000Z'),
      d: { e: undefined },
      f: () => 1,
    };
    expect(jsonText(value)).toBe(JSON.stringify(value));
    expect(jsonText([])).toBe('[]');
    expect(jsonText({})).toBe('{}');
  });

  it('M7: metadata nested 100,000 levels is written without overflowing the stack', () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 100_000; i++) deep = { level: deep };
    expect(() => JSON.stringify({ metadata: deep })).toThrow(RangeError);
    const text = jsonText({ metadata: deep });
    expect(text).toBe(`{"metadata":${'{"level":'.repeat(100_000)}{}${'}'.repeat(100_001)}`);
  });
});
