// S2: GraphiQL that works offline under a strict CSP. The bundled GraphiQL of
// @graphql-yoga/render-graphiql is served as same-origin files (no inline script, no CDN, no blob: workers).
import { createHash } from 'node:crypto';
import { NoSchemaIntrospectionCustomRule } from 'graphql';
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';

/** Where GraphiQL's scripts, styles and editor workers are served. */
export const GRAPHIQL_ASSETS_PATH = '/graphiql/';

interface Asset {
  /** Encoded once: a 5 MB bundle is not re-encoded per request (S3). */
  body: Uint8Array<ArrayBuffer>;
  contentType: string;
}

interface Assets {
  files: Map<string, Asset>;
  /** File name → name?v=<content hash>: a new bundle is never served from a stale cache. */
  url(name: string): string;
}

let loading: Promise<Assets> | undefined;

/** The 9 MB bundle is loaded on the first GraphiQL request, not at start. */
function loadAssets(): Promise<Assets> {
  loading ??= import('@graphql-yoga/render-graphiql/graphiql').then((bundle) => {
    const files = new Map<string, Asset>();
    const versions = new Map<string, string>();
    const add = (name: string, body: string, contentType: string) => {
      files.set(name, { body: new TextEncoder().encode(body), contentType });
      versions.set(name, createHash('sha256').update(body).digest('hex').slice(0, 12));
    };
    const url = (name: string) => `${GRAPHIQL_ASSETS_PATH}${name}?v=${versions.get(name)}`;
    const javascript = 'text/javascript; charset=utf-8';
    add('editor.worker.js', bundle.editorWorkerService, javascript);
    add('json.worker.js', bundle.jsonWorker, javascript);
    add('graphql.worker.js', bundle.graphqlWorker, javascript);
    // Monaco asks for its workers by label; same-origin URLs instead of the blob: URLs of the inline page.
    const workers = {
      editorWorkerService: url('editor.worker.js'),
      json: url('json.worker.js'),
      graphql: url('graphql.worker.js'),
    };
    add(
      'setup.js',
      `self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: function (_moduleId, label) { return ${JSON.stringify(workers)}[label]; } };\n`,
      javascript,
    );
    add('graphiql.js', bundle.js, javascript);
    add(
      'start.js',
      "YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), JSON.parse(document.getElementById('graphiql-options').textContent));\n",
      javascript,
    );
    add('graphiql.css', bundle.css, 'text/css; charset=utf-8');
    return { files, url };
  });
  return loading;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Yoga's `renderGraphiQL`: a small page whose only scripts are same-origin files. */
export async function renderOfflineGraphiQL(options?: GraphiQLOptions): Promise<string> {
  const assets = await loadAssets();
  // In a JSON data block `<` would end the script element: escaped.
  const json = JSON.stringify(options ?? {}).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>${escapeHtml(options?.title ?? 'GraphiQL')}</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${assets.url('graphiql.css')}" />
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>GraphiQL needs JavaScript.</noscript>
    <div id="root"></div>
    <script type="application/json" id="graphiql-options">${json}</script>
    <script src="${assets.url('setup.js')}"></script>
    <script src="${assets.url('graphiql.js')}"></script>
    <script src="${assets.url('start.js')}"></script>
  </body>
</html>
`;
}

/** Serves GraphiQL's files under /graphiql/ (only when GraphiQL is on). */
export function graphiqlAssetsPlugin(): Plugin {
  return {
    async onRequest({ request, url, endResponse }) {
      if (request.method !== 'GET' || !url.pathname.startsWith(GRAPHIQL_ASSETS_PATH)) return;
      const { files } = await loadAssets();
      const asset = files.get(url.pathname.slice(GRAPHIQL_ASSETS_PATH.length));
      if (!asset) return;
      endResponse(
        new Response(asset.body, {
          headers: {
            'content-type': asset.contentType,
            'cache-control': url.searchParams.has('v') ? 'public, max-age=31536000, immutable' : 'no-cache',
          },
        }),
      );
    },
  };
}

/** `INTROSPECTION=0`: __schema and __type are refused at validation (graphql-js' own rule). */
export const introspectionOff: Plugin = {
  onValidate({ addValidationRule }) {
    addValidationRule(NoSchemaIntrospectionCustomRule);
  },
};
