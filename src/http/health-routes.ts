// Liveness and readiness for orchestrators: /healthz answers while the process runs, /readyz while
// the database answers too.
import type { Plugin } from 'graphql-yoga';
import type { Database } from '../store/db.js';
import { json } from './json.js';

export function healthRoutes(db: Pick<Database, 'ping' | 'kind'>): Plugin {
  return {
    async onRequest({ request, url, endResponse }) {
      if (request.method !== 'GET') return;
      if (url.pathname === '/healthz') return endResponse(json(200, { status: 'ok' }));
      if (url.pathname !== '/readyz') return;
      try {
        await db.ping();
        endResponse(json(200, { status: 'ready', database: db.kind }));
      } catch {
        endResponse(json(503, { status: 'unavailable', database: db.kind }));
      }
    },
  };
}
