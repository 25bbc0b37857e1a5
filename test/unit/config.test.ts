// S2 settings: CORS_ORIGINS takes exact origins only; GRAPHIQL and INTROSPECTION are 0/1 switches.
// Running: `npm run db:migrate` reads the same database settings as `npm start`, `.env` included.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadDatabaseConfig, loadMcpStdioConfig } from '../../src/config.js';

const base = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x',
  ADMIN_TOKEN: 'adm_config_test_0123456789',
};
const load = (env: Record<string, string>) =>
  loadConfig({ ...base, ...env }, '/nonexistent-dir-for-config-test');

describe('S2 settings', () => {
  it('S2: CORS_ORIGINS defaults to none and takes a comma-separated list of exact origins', () => {
    expect(load({}).corsOrigins).toEqual([]);
    expect(load({ CORS_ORIGINS: ' https://Ops.Example.com , http://localhost:5173/ ' }).corsOrigins).toEqual([
      'https://ops.example.com',
      'http://localhost:5173',
    ]);
  });

  it('S2: CORS_ORIGINS refuses a wildcard, a path or a non-http origin', () => {
    for (const value of [
      '*',
      'https://*.example.com',
      'https://ops.example.com/app',
      'file://x',
      'ops.example.com',
    ]) {
      expect(() => load({ CORS_ORIGINS: value }), value).toThrow(ConfigError);
    }
  });

  it('S2: GRAPHIQL and INTROSPECTION are on by default, 0 turns them off, anything else is refused', () => {
    expect(load({})).toMatchObject({ graphiql: true, introspection: true });
    expect(load({ GRAPHIQL: '0', INTROSPECTION: '0' })).toMatchObject({
      graphiql: false,
      introspection: false,
    });
    expect(() => load({ GRAPHIQL: 'off' })).toThrow(ConfigError);
  });
});

describe('Running: the database settings shared by npm start and npm run db:migrate', () => {
  const dirs: string[] = [];
  const projectWithDotEnv = (dotEnv: string) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'memory-config-'));
    dirs.push(dir);
    writeFileSync(path.join(dir, '.env'), dotEnv);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('Running: DATABASE_URL and DATA_DIR come from .env, the environment wins, and both loaders agree', () => {
    const cwd = projectWithDotEnv(
      'DATABASE_URL="postgres://postgres@127.0.0.1:5432/from_dotenv"\nDATA_DIR=./dotenv-data\nADMIN_TOKEN=adm_dotenv_0123456789\n',
    );
    expect(loadDatabaseConfig({}, cwd)).toEqual({
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/from_dotenv',
      dataDir: path.join(cwd, 'dotenv-data'),
    });
    expect(loadDatabaseConfig({ DATA_DIR: '/elsewhere' }, cwd).dataDir).toBe('/elsewhere');
    expect(loadConfig({}, cwd)).toMatchObject(loadDatabaseConfig({}, cwd));
  });

  it('Running: the database settings need no ADMIN_TOKEN and generate none (embedded mode)', () => {
    const postgres = projectWithDotEnv('DATABASE_URL=postgres://postgres@127.0.0.1:5432/x\n');
    expect(() => loadConfig({}, postgres)).toThrow(/ADMIN_TOKEN is required/);
    expect(loadDatabaseConfig({}, postgres).databaseUrl).toBe('postgres://postgres@127.0.0.1:5432/x');

    const embedded = projectWithDotEnv('DATA_DIR=./embedded\n');
    expect(loadDatabaseConfig({}, embedded)).toEqual({
      databaseUrl: undefined,
      dataDir: path.join(embedded, 'embedded'),
    });
    expect(existsSync(path.join(embedded, 'embedded'))).toBe(false);
  });

  it('Running: a DATABASE_URL that is not postgres:// is refused by the database settings too', () => {
    expect(() =>
      loadDatabaseConfig({ DATABASE_URL: 'mysql://x' }, '/nonexistent-dir-for-config-test'),
    ).toThrow(ConfigError);
  });
});

describe('MCP stdio settings', () => {
  it('MCP: memory-mcp reads MEMORY_URL (default the local service) and requires MEMORY_TOKEN', () => {
    expect(loadMcpStdioConfig({ MEMORY_TOKEN: 'run_x' })).toEqual({
      memoryUrl: 'http://127.0.0.1:4000',
      memoryToken: 'run_x',
    });
    expect(
      loadMcpStdioConfig({ MEMORY_URL: 'https://memory.example.com', MEMORY_TOKEN: 'op_y' }).memoryUrl,
    ).toBe('https://memory.example.com');
    expect(() => loadMcpStdioConfig({ MEMORY_URL: 'http://127.0.0.1:4000' })).toThrow(ConfigError);
    expect(() => loadMcpStdioConfig({ MEMORY_URL: '127.0.0.1:4000', MEMORY_TOKEN: 'run_x' })).toThrow(
      /MEMORY_URL/,
    );
  });
});
