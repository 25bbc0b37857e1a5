// S6, S14: `npm run lint` keeps rights on the schema — src/http lists no root field and matches no
// query text. These are the shapes that decided liveness before scope-auth did; the rule must refuse each.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });
const RULE = 'no-restricted-syntax';

async function refusals(code: string, filePath = 'src/http/probe.ts'): Promise<number> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((message) => message.ruleId === RULE).length;
}

describe('S14: no field-name list or query regex in src/http', () => {
  it('S14: a list of root field names is refused', async () => {
    expect(await refusals("export const SELF = new Set(['memories', 'memoryTypes', 'memory']);\n")).toBe(1);
  });

  it('S14: a regular expression built at run time, or naming a root field, is refused', async () => {
    expect(await refusals('export const names = (list: string[]) => new RegExp(list.join("|"));\n')).toBe(1);
    expect(await refusals('export const NAMES = /\\b(createMemory|tradingContext)\\b/;\n')).toBe(1);
  });

  it('S14: testing or searching the query text is refused', async () => {
    const code = [
      'export const a = (p: RegExp, query: string) => p.test(query);',
      "export const b = (params: { query: string }) => params.query.includes('__');",
      'export const c = (query: string) => query.match(/x/);',
      "export const d = '{ memories(first: 1) { edges { cursor } } }';",
      '',
    ].join('\n');
    expect(await refusals(code)).toBe(4);
  });

  it('S14: the same code elsewhere, and src/http as it is, pass', async () => {
    expect(
      await refusals("export const SELF = new Set(['memories', 'memoryTypes']);\n", 'src/schema/probe.ts'),
    ).toBe(0);
    const results = await eslint.lintFiles(['src/http/**/*.ts']);
    expect(results.flatMap((result) => result.messages.filter((m) => m.ruleId === RULE))).toEqual([]);
  });
});
