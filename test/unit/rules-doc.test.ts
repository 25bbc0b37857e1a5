// docs/rules.md maps every rule id of the spec to the modules and tests that implement it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderRules, rulesFile } from '../../scripts/rules.js';

describe('docs/rules.md', () => {
  it('is exactly what `npm run rules:print` writes (run it after adding a rule id to code or a test)', async () => {
    expect(readFileSync(rulesFile, 'utf8')).toBe(await renderRules());
  });

  it('lists every rule of the spec, W1 to V3 and the MCP rules', async () => {
    const rules = await renderRules();
    for (const id of ['W1', 'W10', 'X10', 'C11', 'T3', 'B13', 'L4', 'I4', 'S14', 'G1', 'D5', 'V3', 'M12'])
      expect(rules).toMatch(new RegExp(`^## ${id}$`, 'm'));
  });
});
