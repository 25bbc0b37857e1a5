// Reads the environment once, migrates, seeds the demo, listens, and shuts down cleanly.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { DataDirLockedError, lockDataDir } from './data-dir-lock.js';
import { openDatabase, type Database } from './store/db.js';
import { createServer, type Server } from './server.js';
import { createLiveEvents } from './live/index.js';
import type { MemoryEvents } from './live/events.js';
import { DEMO_AGENT_NAME, seedDemo } from './demo/seed.js';
import { createOperatorToken } from './service/admin.js';

function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      // S12: a refused setting stops the start with exit code 2, one line per variable, no stack.
      for (const line of error.message.split('\n')) console.error(`configuration error: ${line}`);
      process.exit(2);
    }
    throw error;
  }
}

/** S5: a second process on the same embedded data folder would lose data; refuse to start. */
function lockEmbeddedDataDir(config: Config): void {
  if (config.databaseUrl) return;
  try {
    const lock = lockDataDir(config.dataDir);
    process.on('exit', () => lock.release());
  } catch (error) {
    if (error instanceof DataDirLockedError) {
      console.error(`refusing to start: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
}

async function openMigratedDatabase(config: Config, logger: Logger): Promise<Database> {
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
    genericPlans: config.genericPlans,
    writeForm: config.writeForm,
    statementTimeoutMs: config.statementTimeoutMs,
  });
  const applied = await db.migrate();
  if (applied.length) logger.info({ applied }, 'migrations applied');
  return db;
}

function startServer(
  config: Config,
  db: Database,
  events: MemoryEvents,
  logger: Logger,
  graphiqlToken: () => string | null,
): Server {
  const webRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/web');
  return createServer({
    db,
    events,
    adminToken: config.adminToken,
    logger,
    webRoot: existsSync(webRoot) ? webRoot : undefined,
    maxConnectionsPerToken: config.maxConnectionsPerToken,
    corsOrigins: config.corsOrigins,
    graphiql: config.graphiql,
    graphiqlToken,
    introspection: config.introspection,
    compiledQueries: config.compiledQueries ? {} : false,
    maxExpensivePerToken: config.maxExpensivePerToken,
  });
}

function startupBanner(config: Config, db: Database, base: string): string[] {
  const lines = [
    `memory service listening on ${base} (${db.kind === 'pglite' ? `embedded database in ${config.dataDir}` : 'PostgreSQL'})`,
    `  GraphiQL:      ${config.graphiql ? `${base}/graphql` : 'off (GRAPHIQL=0)'}`,
    `  Memories tab:  ${base}/`,
  ];
  if (config.adminTokenGenerated)
    lines.push(
      `  admin token:   ${config.adminToken}  (kept in ${path.join(config.dataDir, 'admin-token')})`,
    );
  return lines;
}

/** DEMO=1: seeds an empty database; the demo agent, and an operator token to sign in with. */
async function demoSignIn(db: Database): Promise<{ agent: string; token: string } | null> {
  const demo = await seedDemo(db, new Date());
  if (demo) return { agent: `${demo.agentName} (${demo.agentId})`, token: demo.operatorToken };
  // Already seeded: tokens are stored only as hashes, so sign in with a fresh operator token.
  const named = await db.prisma.agentName.findUnique({ where: { name: DEMO_AGENT_NAME } });
  const agent = named && (await db.prisma.agent.findUnique({ where: { id: named.agentId } }));
  if (!agent) return null;
  const { token } = await createOperatorToken(db, agent.id);
  return { agent: `${agent.name} (${agent.id}), already seeded`, token };
}

/** SIGTERM/SIGINT: close sockets and requests, then events and the database; exit 1 after 5 s. */
function installShutdown(logger: Logger, server: Server, events: MemoryEvents, db: Database): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const deadline = setTimeout(() => process.exit(1), 5000);
    deadline.unref();
    try {
      await server.close();
      await events.close();
      await db.close();
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel);
  lockEmbeddedDataDir(config);
  const db = await openMigratedDatabase(config, logger);
  const events = await createLiveEvents({
    redisUrl: config.redisUrl,
    redisCluster: config.redisCluster,
    logger,
  });
  let demoToken: string | null = null;
  const server = startServer(config, db, events, logger, () => demoToken);
  const address = await server.listen(config.port, config.host);
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${address.port}`;

  const lines = startupBanner(config, db, base);
  const demo = config.demo ? await demoSignIn(db) : null;
  if (demo) {
    demoToken = demo.token;
    lines.push(
      `  demo agent:    ${demo.agent}`,
      `  operator token: ${demo.token}  (also in GraphiQL's Headers tab)`,
      `  open:          ${base}/#token=${demo.token}`,
    );
  }
  console.log(lines.join('\n'));
  installShutdown(logger, server, events, db);
}

await main();
