// The only module that reads the environment; everything else receives a Config.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { McpStdioSettings } from './mcp/stdio.js';
import {
  CLUSTER_NODES_FORM,
  CLUSTER_URL_FORM,
  parseClusterNodes,
  parseRedisUrl,
  type RedisClusterSettings,
} from './live/redis/settings.js';
import type { DatabaseConfig } from './store/db.js';
import { DEFAULT_POOL_SIZE } from './store/pool-sizes.js';
import { WRITE_FORMS, type WriteForm } from './store/write-form.js';

export interface Config {
  port: number;
  host: string;
  /** PostgreSQL URL, or undefined for embedded PGlite. */
  databaseUrl?: string;
  dataDir: string;
  adminToken: string;
  /** True when the admin token was generated and stored in DATA_DIR (printed at start). */
  adminTokenGenerated: boolean;
  /** L3: one Redis (classic pub/sub); unset with a cluster or a single instance. */
  redisUrl?: string;
  /** D4: a Redis Cluster (REDIS_CLUSTER_NODES or a redis+cluster:// REDIS_URL): one sharded channel per agent. */
  redisCluster?: RedisClusterSettings;
  demo: boolean;
  logLevel: LogLevel;
  /** Per-token limit of concurrent subscription connections. */
  maxConnectionsPerToken: number;
  /** DATABASE_POOL_SIZE: the PostgreSQL pools' size; each pool's share in src/store/pool-sizes.ts. */
  databasePoolSize: number;
  /** S7: database time bound of one read, in milliseconds. */
  statementTimeoutMs: number;
  /** S8: searches, exports and MCP list calls one token runs at once. */
  maxExpensivePerToken: number;
  /** S2: foreign browser origins allowed by CORS and the WebSocket check (normalised `scheme://host[:port]`). */
  corsOrigins: string[];
  /** `GRAPHIQL=0` turns GraphiQL off. */
  graphiql: boolean;
  /** `INTROSPECTION=0` turns schema introspection off. */
  introspection: boolean;
  /** `COMPILED_QUERIES=0` runs every query through the reference executor (src/http/compiled-queries.ts). */
  compiledQueries: boolean;
  /** `GENERIC_PLANS=0` leaves named statements to PostgreSQL's own plan choice (src/store/db.ts). */
  genericPlans: boolean;
  /** D2: `WRITE_FORM=transaction` sends the record write as single-shard statements (src/records/routable-write.ts). */
  writeForm: WriteForm;
}

/** A refused start (exit code 2): one line per refused variable, each naming it and what it accepts. */
export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

/** Settings whose value may carry a password or a token: a refusal names them without echoing it. */
const SECRET_SETTINGS = new Set(['DATABASE_URL', 'REDIS_URL', 'ADMIN_TOKEN']);

// An empty variable (`NAME=`) means its default, like an unset one.
const unsetWhenEmpty = (value: unknown) => (value === '' ? undefined : value);

/** S12: decimal digits only, in range; `abc`, `-1`, `1e3` or `Infinity` never reach a limit. */
export function integerSetting(min: number, max: number, fallback: number) {
  const accepts = `an integer from ${min} to ${max} (default ${fallback})`;
  return z.preprocess(
    unsetWhenEmpty,
    z
      .string()
      .regex(/^[0-9]{1,9}$/, accepts)
      .transform(Number)
      .pipe(z.number().min(min, accepts).max(max, accepts))
      .default(fallback),
  );
}

/** A 0/1 switch; anything else (`yes`, `true`, `off`) is refused rather than read as one of them. */
const switchValue = (fallback: string) =>
  z.enum(['0', '1'], `0 or 1 (default ${fallback})`).transform((v) => v === '1');
const switchSetting = (fallback: boolean) =>
  z.preprocess(unsetWhenEmpty, switchValue(fallback ? '1' : '0').default(fallback));

export const textSetting = <T extends z.ZodType<string | undefined>>(schema: T) =>
  z.preprocess(unsetWhenEmpty, schema);

const databaseShape = {
  DATABASE_URL: textSetting(
    z
      .string()
      .regex(/^postgres(ql)?:\/\/\S+$/, 'a postgres:// URL (unset it for the embedded database)')
      .optional(),
  ),
  DATA_DIR: textSetting(z.string().default('./.data')),
  // 2.7 × it per instance at most (four pools); size PostgreSQL's max_connections for every instance.
  DATABASE_POOL_SIZE: integerSetting(2, 1000, DEFAULT_POOL_SIZE),
};

/** S12: every variable of the README's Configuration table, parsed and range-checked here only. */
const settingsSchema = z.object({
  ...databaseShape,
  PORT: integerSetting(0, 65535, 4000),
  HOST: textSetting(
    z
      .string()
      .regex(/^[^\s/]+$/, 'a host name or IP address to listen on')
      .default('127.0.0.1'),
  ),
  ADMIN_TOKEN: textSetting(
    z
      .string()
      .min(16, 'at least 16 characters')
      .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces (it is sent as a bearer token)')
      .optional(),
  ),
  REDIS_URL: z.preprocess(
    unsetWhenEmpty,
    z
      .string()
      .regex(
        /^rediss?(\+cluster)?:\/\/\S+$/,
        'a redis:// or rediss:// URL (redis+cluster:// or rediss+cluster:// for a Redis Cluster)',
      )
      .optional()
      .transform(parsedBy(parseRedisUrl, CLUSTER_URL_FORM)),
  ),
  REDIS_CLUSTER_NODES: z.preprocess(
    unsetWhenEmpty,
    z.string().optional().transform(parsedBy(parseClusterNodes, CLUSTER_NODES_FORM)),
  ),
  DEMO: z.preprocess(unsetWhenEmpty, switchValue('1 embedded, 0 with PostgreSQL').optional()),
  LOG_LEVEL: textSetting(
    z.enum(LOG_LEVELS, `one of ${LOG_LEVELS.join(', ')} (default info)`).default('info'),
  ),
  MAX_CONNECTIONS_PER_TOKEN: integerSetting(1, 100_000, 20),
  STATEMENT_TIMEOUT_MS: integerSetting(100, 600_000, 2000),
  MAX_EXPENSIVE_PER_TOKEN: integerSetting(1, 64, 2),
  CORS_ORIGINS: z.string().optional().transform(parseCorsOrigins),
  GRAPHIQL: switchSetting(true),
  INTROSPECTION: switchSetting(true),
  COMPILED_QUERIES: switchSetting(true),
  GENERIC_PLANS: switchSetting(true),
  WRITE_FORM: textSetting(
    z.enum(WRITE_FORMS, `one of ${WRITE_FORMS.join(', ')} (default statement)`).default('statement'),
  ),
});

function parseDotEnv(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  const values: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split(/\r?\n/)) {
    const match = /^\s*([A-Z0-9_]+)\s*=\s*(.*?)\s*$/.exec(line);
    if (match?.[1]) values[match[1]] = (match[2] ?? '').replace(/^(['"])(.*)\1$/, '$2');
  }
  return values;
}

/** S2: exact origins only; '*' or a path would widen or blur what is allowed. */
function parseCorsOrigins(value: string | undefined, ctx: z.RefinementCtx): string[] {
  const origins: string[] = [];
  for (const entry of (value ?? '').split(',').map((o) => o.trim())) {
    if (!entry) continue;
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    const isOrigin =
      url &&
      /^https?:$/.test(url.protocol) &&
      url.pathname === '/' &&
      !url.search &&
      !url.hash &&
      !url.username &&
      !url.hostname.includes('*');
    if (!url || !isOrigin) {
      ctx.addIssue({
        code: 'custom',
        message: `"${boundValue(entry)}" is not an origin like https://ops.example.com (comma-separated, no wildcard)`,
      });
      continue;
    }
    origins.push(url.origin);
  }
  return origins;
}

/** A text read by `parse` (D4's Redis settings); null from it is a refusal saying `form`. */
function parsedBy<T>(parse: (text: string) => T | null, form: string) {
  return (value: string | undefined, ctx: z.RefinementCtx): T | undefined => {
    const parsed = value === undefined ? undefined : parse(value);
    if (parsed === null) ctx.addIssue({ code: 'custom', message: form });
    return parsed ?? undefined;
  };
}

const boundValue = (value: string) => (value.length > 100 ? `${value.slice(0, 100)}…` : value);

/** One line per refused variable: `NAME="value": expected …` (secrets named, never echoed). */
export function parseSettings<T extends z.ZodType>(
  schema: T,
  merged: Record<string, string | undefined>,
): z.output<T> {
  const result = schema.safeParse(merged);
  if (result.success) return result.data;
  const lines = new Map<string, string>();
  for (const issue of result.error.issues) {
    const name = String(issue.path[0] ?? '');
    if (lines.has(name)) continue;
    const raw = merged[name] ?? '';
    const shown = SECRET_SETTINGS.has(name) ? '' : `="${boundValue(raw)}"`;
    const expected = name === 'CORS_ORIGINS' ? issue.message : `expected ${issue.message}`;
    lines.set(name, `${name}${shown}: ${expected}`);
  }
  throw new ConfigError([...lines.values()].join('\n'));
}

export function readSettings(env: NodeJS.ProcessEnv, cwd: string): Record<string, string | undefined> {
  // The environment wins over `.env`.
  return { ...parseDotEnv(path.join(cwd, '.env')), ...env };
}

function databaseSettings(
  settings: { DATABASE_URL?: string; DATA_DIR: string },
  cwd: string,
): DatabaseConfig {
  return { databaseUrl: settings.DATABASE_URL, dataDir: path.resolve(cwd, settings.DATA_DIR) };
}

/**
 * Only the database settings (DATABASE_URL, DATA_DIR; environment over `.env`): `npm run db:migrate`
 * migrates the database `npm start` uses, without needing or generating an admin token.
 */
export function loadDatabaseConfig(
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): DatabaseConfig {
  return databaseSettings(parseSettings(z.object(databaseShape), readSettings(env, cwd)), cwd);
}

/** L3/D4: one Redis, a Redis Cluster, or neither (a single instance); both settings at once are refused. */
function redisSettings(
  url: ReturnType<typeof parseRedisUrl> | undefined,
  clusterNodes: RedisClusterSettings['nodes'] | undefined,
): Pick<Config, 'redisUrl' | 'redisCluster'> {
  if (url && clusterNodes)
    throw new ConfigError(
      'REDIS_URL and REDIS_CLUSTER_NODES are both set: set one (a Redis Cluster is REDIS_CLUSTER_NODES or a redis+cluster:// REDIS_URL)',
    );
  const cluster = clusterNodes ? { nodes: clusterNodes, tls: false } : url && 'cluster' in url && url.cluster;
  return { redisUrl: url && 'url' in url ? url.url : undefined, redisCluster: cluster || undefined };
}

/** Embedded mode keeps a generated admin token in DATA_DIR (only once every setting was accepted). */
function embeddedAdminToken(dataDir: string): string {
  const tokenFile = path.join(dataDir, 'admin-token');
  if (existsSync(tokenFile)) return readFileSync(tokenFile, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const token = `adm_${randomBytes(32).toString('base64url')}`;
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  return token;
}

/** Reads settings once (the environment wins over `.env`); embedded mode generates and keeps an admin token. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const settings = parseSettings(settingsSchema, readSettings(env, cwd));
  const { databaseUrl, dataDir } = databaseSettings(settings, cwd);
  if (databaseUrl && !settings.ADMIN_TOKEN)
    throw new ConfigError('ADMIN_TOKEN is required with DATABASE_URL (at least 16 characters)');
  const redis = redisSettings(settings.REDIS_URL, settings.REDIS_CLUSTER_NODES);
  const adminToken = settings.ADMIN_TOKEN ?? embeddedAdminToken(dataDir);
  if (adminToken.length < 16)
    throw new ConfigError(
      `ADMIN_TOKEN in ${path.join(dataDir, 'admin-token')} must be at least 16 characters`,
    );

  return {
    port: settings.PORT,
    host: settings.HOST,
    databaseUrl,
    dataDir,
    adminToken,
    adminTokenGenerated: !settings.ADMIN_TOKEN,
    ...redis,
    demo: settings.DEMO ?? !databaseUrl,
    logLevel: settings.LOG_LEVEL,
    maxConnectionsPerToken: settings.MAX_CONNECTIONS_PER_TOKEN,
    databasePoolSize: settings.DATABASE_POOL_SIZE,
    statementTimeoutMs: settings.STATEMENT_TIMEOUT_MS,
    maxExpensivePerToken: settings.MAX_EXPENSIVE_PER_TOKEN,
    corsOrigins: settings.CORS_ORIGINS,
    graphiql: settings.GRAPHIQL,
    introspection: settings.INTROSPECTION,
    compiledQueries: settings.COMPILED_QUERIES,
    genericPlans: settings.GENERIC_PLANS,
    writeForm: settings.WRITE_FORM,
  };
}

/** The stdio MCP program (`memory-mcp`): where the service is and which token the agent runtime gave it. */
export function loadMcpStdioConfig(env: NodeJS.ProcessEnv = process.env): McpStdioSettings {
  const memoryUrl = env.MEMORY_URL || 'http://127.0.0.1:4000';
  if (!/^https?:\/\/[^/]+/.test(memoryUrl)) {
    throw new ConfigError(`MEMORY_URL must be the service's http(s):// address, e.g. http://127.0.0.1:4000`);
  }
  const memoryToken = env.MEMORY_TOKEN || '';
  if (!memoryToken) throw new ConfigError('MEMORY_TOKEN is required: the run or operator bearer token');
  return { memoryUrl, memoryToken };
}
