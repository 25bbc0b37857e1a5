// The operator page (the Memories tab, src/web built into dist/web), served as static files.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Plugin } from 'graphql-yoga';

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.map': 'application/json',
};

async function serveStatic(webRoot: string, pathname: string): Promise<Response | null> {
  const relative = pathname === '/' ? 'index.html' : pathname.replace(/^\/+/, '');
  const file = path.resolve(webRoot, relative);
  if (!file.startsWith(path.resolve(webRoot) + path.sep)) return null;
  try {
    const body = await readFile(file);
    return new Response(body, {
      headers: {
        'content-type': contentTypes[path.extname(file)] ?? 'application/octet-stream',
        'cache-control': relative === 'index.html' ? 'no-cache' : 'public, max-age=3600',
      },
    });
  } catch {
    return null;
  }
}

/** GET of a file of `webRoot` (`/` is index.html); anything else goes on to the next plugin. */
export function webPage(webRoot: string): Plugin {
  return {
    async onRequest({ request, url, endResponse }) {
      if (request.method !== 'GET' || url.pathname.startsWith('/graphql')) return;
      const response = await serveStatic(webRoot, url.pathname);
      if (response) endResponse(response);
    },
  };
}
