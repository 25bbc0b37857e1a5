// The layer rule of eslint.config.js (README "Architecture"): imports point down only.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint();

async function layerErrors(filePath: string, specifier: string): Promise<string[]> {
  const code = `import * as other from '${specifier}';\nexport const used = other;\n`;
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'no-restricted-imports')
    .map((message) => message.message);
}

describe('Layers point down', () => {
  it.each([
    ['src/domain/rule.ts', '../store/db.js'],
    ['src/store/query.ts', '../service/write-memory.js'],
    ['src/store/query.ts', '../auth/caller.js'],
    ['src/store/query.ts', '../log-policy.js'],
    ['src/service/use-case.ts', '../schema/index.js'],
    ['src/live/stream.ts', '../http/auth-gate.js'],
    ['src/live/fanout.ts', '../transport/ws/socket-target.js'],
    ['src/schema/field.ts', '../server.js'],
    ['src/http/route.ts', '../main.js'],
    ['src/metrics.ts', './live/events.js'],
    ['src/server.ts', './main.js'],
  ])('Layers: %s may not import %s', async (file, specifier) => {
    expect(await layerErrors(file, specifier)).toEqual([expect.stringContaining('Layers point down')]);
  });

  it.each([
    ['src/store/query.ts', '../domain/errors.js'],
    ['src/service/use-case.ts', '../store/memories.js'],
    ['src/service/use-case.ts', '../live/events.js'],
    ['src/transport/ws/ws-server.ts', '../../auth/caller.js'],
    ['src/transport/ws/ws-server.ts', '../../live/fanout.js'],
    ['src/schema/field.ts', '../service/write-memory.js'],
    ['src/http/route.ts', '../schema/index.js'],
    ['src/server.ts', './http/routes.js'],
    ['src/main.ts', './server.js'],
  ])('Layers: %s may import %s', async (file, specifier) => {
    expect(await layerErrors(file, specifier)).toEqual([]);
  });
});
