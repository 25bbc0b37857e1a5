// S12 settings: one schema parses and range-checks every variable (exit 2 naming it); S2 CORS_ORIGINS and switches.
// Running: `npm run db:migrate` reads the same database settings as `npm start`, `.env` included.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadDatabaseConfig, loadMcpStdioConfig } from '../../src/config.js';
import { loadInstrumentSyncConfig } from '../../src/instrument-sync-config.js';
import { poolSizes } from '../../src/store/pool-sizes.js';

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

describe('S12: settings are checked by one schema', () => {
  const refusal = (env: Record<string, string>) => {
    try {
      load(env);
    } catch (error) {
      if (error instanceof ConfigError) return error.message;
      throw error;
    }
    throw new Error(`accepted ${JSON.stringify(env)}`);
  };

  it('S12: every setting has its documented default, the two cost bounds included', () => {
    expect(load({})).toMatchObject({
      port: 4000,
      host: '127.0.0.1',
      redisUrl: undefined,
      demo: false,
      logLevel: 'info',
      maxConnectionsPerToken: 20,
      databasePoolSize: 20,
      statementTimeoutMs: 2000,
      maxExpensivePerToken: 2,
      corsOrigins: [],
      graphiql: true,
      introspection: true,
      compiledQueries: true,
      genericPlans: true,
      writeForm: 'statement',
    });
  });

  it('S12: an empty value means the default, never "no limit"', () => {
    expect(
      load({
        MAX_CONNECTIONS_PER_TOKEN: '',
        STATEMENT_TIMEOUT_MS: '',
        MAX_EXPENSIVE_PER_TOKEN: '',
        DATABASE_POOL_SIZE: '',
        PORT: '',
      }),
    ).toMatchObject({
      maxConnectionsPerToken: 20,
      databasePoolSize: 20,
      statementTimeoutMs: 2000,
      maxExpensivePerToken: 2,
      port: 4000,
    });
  });

  it('S12: values in range are taken as given', () => {
    expect(
      load({
        PORT: '0',
        HOST: '0.0.0.0',
        REDIS_URL: 'redis://127.0.0.1:6379',
        DEMO: '1',
        LOG_LEVEL: 'debug',
        MAX_CONNECTIONS_PER_TOKEN: '1',
        STATEMENT_TIMEOUT_MS: '600000',
        MAX_EXPENSIVE_PER_TOKEN: '1',
        DATABASE_POOL_SIZE: '2',
        COMPILED_QUERIES: '0',
        GENERIC_PLANS: '0',
        WRITE_FORM: 'transaction',
      }),
    ).toMatchObject({
      port: 0,
      host: '0.0.0.0',
      redisUrl: 'redis://127.0.0.1:6379',
      demo: true,
      logLevel: 'debug',
      maxConnectionsPerToken: 1,
      statementTimeoutMs: 600000,
      maxExpensivePerToken: 1,
      databasePoolSize: 2,
      compiledQueries: false,
      genericPlans: false,
      writeForm: 'transaction',
    });
  });

  it.each([
    ['MAX_CONNECTIONS_PER_TOKEN', 'abc', /an integer from 1 to/],
    ['MAX_CONNECTIONS_PER_TOKEN', '0', /an integer from 1 to/],
    ['MAX_CONNECTIONS_PER_TOKEN', '-1', /an integer from 1 to/],
    ['MAX_CONNECTIONS_PER_TOKEN', '2.5', /an integer from 1 to/],
    ['MAX_CONNECTIONS_PER_TOKEN', '1e3', /an integer from 1 to/],
    ['MAX_CONNECTIONS_PER_TOKEN', 'Infinity', /an integer from 1 to/],
    ['MAX_CONNECTIONS_PER_TOKEN', '99999999', /an integer from 1 to/],
    ['STATEMENT_TIMEOUT_MS', '0', /an integer from 100 to 600000/],
    ['STATEMENT_TIMEOUT_MS', '99', /an integer from 100 to 600000/],
    ['STATEMENT_TIMEOUT_MS', '600001', /an integer from 100 to 600000/],
    ['STATEMENT_TIMEOUT_MS', '2s', /an integer from 100 to 600000/],
    ['MAX_EXPENSIVE_PER_TOKEN', '0', /an integer from 1 to/],
    ['MAX_EXPENSIVE_PER_TOKEN', 'many', /an integer from 1 to/],
    ['DATABASE_POOL_SIZE', '1', /an integer from 2 to 1000/],
    ['DATABASE_POOL_SIZE', '1001', /an integer from 2 to 1000/],
    ['DATABASE_POOL_SIZE', 'all', /an integer from 2 to 1000/],
    ['PORT', 'x', /an integer from 0 to 65535/],
    ['PORT', '65536', /an integer from 0 to 65535/],
    ['PORT', '-1', /an integer from 0 to 65535/],
    ['LOG_LEVEL', 'nonsense', /one of fatal, error, warn, info, debug, trace, silent/],
    ['LOG_LEVEL', 'INFO', /one of fatal, error, warn, info, debug, trace, silent/],
    ['HOST', 'http://0.0.0.0', /host name or IP address/],
    ['REDIS_URL', 'localhost:6379', /redis:\/\/ or rediss:\/\//],
    ['DEMO', 'yes', /0 or 1/],
    ['GRAPHIQL', 'off', /0 or 1/],
    ['INTROSPECTION', 'true', /0 or 1/],
    ['COMPILED_QUERIES', 'no', /0 or 1/],
    ['GENERIC_PLANS', '2', /0 or 1/],
    ['WRITE_FORM', 'cte', /one of statement, transaction/],
    ['CORS_ORIGINS', '*', /not an origin/],
    ['DATABASE_URL', 'mysql://x', /postgres:\/\//],
    ['ADMIN_TOKEN', 'short', /at least 16/],
  ])('S12: %s=%s stops the start with a message naming it and what it accepts', (name, value, accepts) => {
    const message = refusal({ [name]: value });
    expect(message).toMatch(new RegExp(`^${name}\\b`));
    expect(message).toMatch(accepts);
  });

  it('S12: several bad values are all named at once', () => {
    const message = refusal({ MAX_CONNECTIONS_PER_TOKEN: 'abc', LOG_LEVEL: 'nonsense', PORT: 'x' });
    expect(message.split('\n').map((line) => line.split(/[=:]/)[0])).toEqual(
      expect.arrayContaining(['PORT', 'LOG_LEVEL', 'MAX_CONNECTIONS_PER_TOKEN']),
    );
  });

  it('S12: a refused value that may hold a secret is not echoed', () => {
    const message = refusal({
      DATABASE_URL: 'mysql://user:hunter2-secret@db/x',
      REDIS_URL: 'http://:hunter2-secret@redis',
      ADMIN_TOKEN: 'hunter2-secret',
    });
    expect(message).toMatch(/DATABASE_URL/);
    expect(message).toMatch(/REDIS_URL/);
    expect(message).not.toContain('hunter2');
  });

  it('S12: a refused start generates no admin token', () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'memory-config-s12-'));
    try {
      expect(() =>
        loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'nonsense' }, '/nonexistent-dir-for-config-test'),
      ).toThrow(ConfigError);
      expect(existsSync(path.join(dataDir, 'admin-token'))).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('Running: DATABASE_POOL_SIZE bounds the PostgreSQL connections of one instance', () => {
  const total = (size: number) => Object.values(poolSizes(size)).reduce((sum, n) => sum + n, 0);

  it('Running: the default opens at most 54 (docs/operating.md, "Several instances"), the smallest 8', () => {
    expect(poolSizes(20)).toEqual({ queries: 20, named: 20, writes: 10, expensive: 4 });
    expect(total(20)).toBe(54);
    expect(poolSizes(2)).toEqual({ queries: 2, named: 2, writes: 2, expensive: 2 });
    expect(total(8)).toBe(22);
  });
});

describe('D4: a Redis Cluster in the settings', () => {
  const refusal = (env: Record<string, string>) => {
    try {
      load(env);
    } catch (error) {
      if (error instanceof ConfigError) return error.message;
      throw error;
    }
    throw new Error(`accepted ${JSON.stringify(env)}`);
  };

  it('D4: REDIS_CLUSTER_NODES names the seed nodes of a cluster (host names, IPv4, bracketed IPv6)', () => {
    expect(load({ REDIS_CLUSTER_NODES: ' 10.0.0.1:7000, redis-2.internal:7001,[::1]:7002' })).toMatchObject({
      redisUrl: undefined,
      redisCluster: {
        nodes: [
          { host: '10.0.0.1', port: 7000 },
          { host: 'redis-2.internal', port: 7001 },
          { host: '::1', port: 7002 },
        ],
        tls: false,
      },
    });
    expect(load({}).redisCluster).toBeUndefined();
  });

  it('D4: a redis+cluster:// REDIS_URL is a cluster with its credentials; rediss+cluster:// adds TLS; redis:// stays one Redis', () => {
    expect(load({ REDIS_URL: 'rediss+cluster://app:p%40ss:w@10.0.0.1:7000,10.0.0.2:7000' })).toMatchObject({
      redisUrl: undefined,
      redisCluster: {
        nodes: [
          { host: '10.0.0.1', port: 7000 },
          { host: '10.0.0.2', port: 7000 },
        ],
        username: 'app',
        password: 'p@ss:w',
        tls: true,
      },
    });
    expect(load({ REDIS_URL: 'redis+cluster://:secret@127.0.0.1:7000/' }).redisCluster).toEqual({
      nodes: [{ host: '127.0.0.1', port: 7000 }],
      username: undefined,
      password: 'secret',
      tls: false,
    });
    expect(load({ REDIS_URL: 'redis://127.0.0.1:6379' })).toMatchObject({
      redisUrl: 'redis://127.0.0.1:6379',
      redisCluster: undefined,
    });
  });

  it.each(['7000', 'host:', 'host:0', 'host:65536', 'a:1,', 'http://a:1', 'a:1;b:2'])(
    'D4: REDIS_CLUSTER_NODES=%s stops the start naming it and the form it takes',
    (value) => {
      expect(refusal({ REDIS_CLUSTER_NODES: value })).toMatch(
        new RegExp(
          `^REDIS_CLUSTER_NODES="${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}": expected comma-separated host:port`,
        ),
      );
    },
  );

  it('D4: a cluster URL of the wrong form is refused without echoing it', () => {
    for (const value of [
      'redis+cluster://:hunter2-secret@10.0.0.1',
      'redis+cluster://:hunter2-secret@10.0.0.1:7000/1',
      'redis+cluster://:hunter2%zz@10.0.0.1:7000',
    ]) {
      const message = refusal({ REDIS_URL: value });
      expect(message).toMatch(/^REDIS_URL: expected a redis\+cluster:\/\/\[user:password@\]host:port/);
      expect(message).not.toContain('hunter2');
    }
  });

  it('D4: REDIS_URL and REDIS_CLUSTER_NODES together are refused: which one is meant is not guessed', () => {
    expect(refusal({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_NODES: '127.0.0.1:7000' })).toMatch(
      /REDIS_URL and REDIS_CLUSTER_NODES are both set/,
    );
  });
});

describe('V2: the instruments:sync settings', () => {
  const none = '/nonexistent-dir-for-config-test';
  it("V2: the venue's endpoint and the service address have defaults; the admin token comes from the setting or DATA_DIR", () => {
    expect(loadInstrumentSyncConfig({ ADMIN_TOKEN: base.ADMIN_TOKEN }, none)).toEqual({
      infoUrl: 'https://api.hyperliquid.xyz/info',
      memoryUrl: 'http://127.0.0.1:4000',
      adminToken: base.ADMIN_TOKEN,
    });
    expect(
      loadInstrumentSyncConfig(
        { ADMIN_TOKEN: base.ADMIN_TOKEN, PORT: '4100', HYPERLIQUID_INFO_URL: 'http://127.0.0.1:9/info' },
        none,
      ),
    ).toMatchObject({ infoUrl: 'http://127.0.0.1:9/info', memoryUrl: 'http://127.0.0.1:4100' });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'memory-sync-config-'));
    try {
      writeFileSync(path.join(dir, 'admin-token'), 'adm_from_the_data_dir_0123\n');
      expect(loadInstrumentSyncConfig({ DATA_DIR: dir }, none).adminToken).toBe('adm_from_the_data_dir_0123');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('V2: a malformed venue URL or no admin token stops the sync naming the setting', () => {
    expect(() =>
      loadInstrumentSyncConfig({ ADMIN_TOKEN: base.ADMIN_TOKEN, HYPERLIQUID_INFO_URL: 'ftp://x' }, none),
    ).toThrow(/HYPERLIQUID_INFO_URL/);
    expect(() => loadInstrumentSyncConfig({}, none)).toThrow(ConfigError);
    expect(() => loadInstrumentSyncConfig({}, none)).toThrow(/ADMIN_TOKEN is required/);
  });
});
