// The only module that reads the environment; everything else receives a Config.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { McpStdioSettings } from './mcp/stdio.js';
import type { DatabaseConfig } from './store/db.js';

export interface Config {
  port: number;
  host: string;
  /** PostgreSQL URL, or undefined for embedded PGlite. */
  databaseUrl?: string;
  dataDir: string;
  adminToken: string;
  /** True when the admin token was generated and stored in DATA_DIR (printed at start). */
  adminTokenGenerated: boolean;
  redisUrl?: string;
  demo: boolean;
  logLevel: string;
  /** Per-token limit of concurrent subscription connections. */
  maxConnectionsPerToken: number;
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
}

export class ConfigError extends Error {}

function parseDotEnv(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  const values: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split(/\r?\n/)) {
    const match = /^\s*([A-Z0-9_]+)\s*=\s*(.*?)\s*$/.exec(line);
    if (match?.[1]) values[match[1]] = (match[2] ?? '').replace(/^(['"])(.*)\1$/, '$2');
  }
  return values;
}

function parseCorsOrigins(value: string | undefined): string[] {
  const origins: string[] = [];
  for (const entry of (value ?? '').split(',').map((o) => o.trim())) {
    if (!entry) continue;
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    // S2: an exact origin only; '*' or a path would widen or blur what is allowed.
    const isOrigin =
      url &&
      /^https?:$/.test(url.protocol) &&
      url.pathname === '/' &&
      !url.search &&
      !url.hash &&
      !url.username &&
      !url.hostname.includes('*');
    if (!url || !isOrigin) {
      throw new ConfigError(
        `CORS_ORIGINS: "${entry}" is not an origin like https://ops.example.com (comma-separated, no wildcard)`,
      );
    }
    origins.push(url.origin);
  }
  return origins;
}

function parseSwitch(name: string, value: string | undefined): boolean {
  if (value === undefined || value === '' || value === '1') return true;
  if (value === '0') return false;
  throw new ConfigError(`${name} must be 0 or 1`);
}

function readSettings(env: NodeJS.ProcessEnv, cwd: string): Record<string, string | undefined> {
  // The environment wins over `.env`.
  return { ...parseDotEnv(path.join(cwd, '.env')), ...env };
}

function databaseSettings(merged: Record<string, string | undefined>, cwd: string): DatabaseConfig {
  const databaseUrl = merged.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// URL (unset it for the embedded database)');
  }
  return { databaseUrl, dataDir: path.resolve(cwd, merged.DATA_DIR || './.data') };
}

/**
 * Only the database settings (DATABASE_URL, DATA_DIR; environment over `.env`): `npm run db:migrate`
 * migrates the database `npm start` uses, without needing or generating an admin token.
 */
export function loadDatabaseConfig(
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): DatabaseConfig {
  return databaseSettings(readSettings(env, cwd), cwd);
}

/** Reads settings once (the environment wins over `.env`); embedded mode generates and keeps an admin token. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const merged = readSettings(env, cwd);
  const { databaseUrl, dataDir } = databaseSettings(merged, cwd);
  const port = Number(merged.PORT || 4000);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError('PORT must be a port number');

  let adminToken = merged.ADMIN_TOKEN || '';
  let adminTokenGenerated = false;
  if (!adminToken) {
    if (databaseUrl) throw new ConfigError('ADMIN_TOKEN is required with DATABASE_URL');
    const tokenFile = path.join(dataDir, 'admin-token');
    if (existsSync(tokenFile)) {
      adminToken = readFileSync(tokenFile, 'utf8').trim();
    } else {
      mkdirSync(dataDir, { recursive: true });
      adminToken = `adm_${randomBytes(32).toString('base64url')}`;
      writeFileSync(tokenFile, `${adminToken}\n`, { mode: 0o600 });
    }
    adminTokenGenerated = true;
  }
  if (adminToken.length < 16) throw new ConfigError('ADMIN_TOKEN must be at least 16 characters');

  return {
    port,
    host: merged.HOST || '127.0.0.1',
    databaseUrl,
    dataDir,
    adminToken,
    adminTokenGenerated,
    redisUrl: merged.REDIS_URL || undefined,
    demo: (merged.DEMO || (databaseUrl ? '0' : '1')) === '1',
    logLevel: merged.LOG_LEVEL || 'info',
    maxConnectionsPerToken: Number(merged.MAX_CONNECTIONS_PER_TOKEN || 20),
    corsOrigins: parseCorsOrigins(merged.CORS_ORIGINS),
    graphiql: parseSwitch('GRAPHIQL', merged.GRAPHIQL),
    introspection: parseSwitch('INTROSPECTION', merged.INTROSPECTION),
    compiledQueries: parseSwitch('COMPILED_QUERIES', merged.COMPILED_QUERIES),
    genericPlans: parseSwitch('GENERIC_PLANS', merged.GENERIC_PLANS),
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
