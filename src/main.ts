// Reads the environment once, migrates, seeds the demo, listens, and shuts down cleanly.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { DataDirLockedError, lockDataDir } from './data-dir-lock.js';
import { openDatabase } from './store/db.js';
import { createServer } from './server.js';
import { createRealtime } from './realtime/index.js';
import { DEMO_AGENT_NAME, seedDemo } from './demo/seed.js';
import { createOperatorToken } from './store/admin.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`configuration error: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  if (!config.databaseUrl) {
    // S5: a second process on the same embedded data folder would lose data; refuse to start.
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
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const applied = await db.migrate();
  if (applied.length) logger.info({ applied }, 'migrations applied');

  const events = await createRealtime({ redisUrl: config.redisUrl, logger });
  const webRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/web');
  const server = createServer({
    db,
    events,
    adminToken: config.adminToken,
    logger,
    webRoot: existsSync(webRoot) ? webRoot : undefined,
    maxConnectionsPerToken: config.maxConnectionsPerToken,
    corsOrigins: config.corsOrigins,
    graphiql: config.graphiql,
    introspection: config.introspection,
  });
  const address = await server.listen(config.port, config.host);
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${address.port}`;

  const lines = [
    `memory service listening on ${base} (${db.kind === 'pglite' ? `embedded database in ${config.dataDir}` : 'PostgreSQL'})`,
    `  GraphiQL:      ${config.graphiql ? `${base}/graphql` : 'off (GRAPHIQL=0)'}`,
    `  Memories tab:  ${base}/`,
  ];
  if (config.adminTokenGenerated)
    lines.push(
      `  admin token:   ${config.adminToken}  (kept in ${path.join(config.dataDir, 'admin-token')})`,
    );
  if (config.demo) {
    const demo = await seedDemo(db, new Date());
    if (demo) {
      lines.push(`  demo agent:    ${demo.agentName} (${demo.agentId})`);
      lines.push(`  operator token: ${demo.operatorToken}`);
      lines.push(`  open:          ${base}/#token=${demo.operatorToken}`);
    } else {
      // Already seeded: tokens are stored only as hashes, so sign in with a fresh operator token.
      const agent = await db.prisma.agent.findUnique({ where: { name: DEMO_AGENT_NAME } });
      if (agent) {
        const { token } = await createOperatorToken(db, agent.id);
        lines.push(`  demo agent:    ${agent.name} (${agent.id}), already seeded`);
        lines.push(`  operator token: ${token}`);
        lines.push(`  open:          ${base}/#token=${token}`);
      }
    }
  }
  console.log(lines.join('\n'));

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

await main();
