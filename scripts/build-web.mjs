// Builds the operator's Memories tab (src/web) into dist/web: index.html, app.js, app.css (+ source maps).
// Everything is bundled (Preact, graphql-ws): the page needs no CDN and works offline.
// Usage: node scripts/build-web.mjs [--outdir <dir>] [--dev]
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sourceDir = path.join(repoRoot, 'src/web');

/** Returns the output folder. `minify: false` keeps the bundle readable for debugging. */
export async function buildWeb({ outdir = path.join(repoRoot, 'dist/web'), minify = true } = {}) {
  // Overwrite in place (fixed file names): a running server never sees the folder missing.
  await mkdir(outdir, { recursive: true });
  await build({
    absWorkingDir: repoRoot,
    entryPoints: [
      { in: path.join(sourceDir, 'main.tsx'), out: 'app' },
      { in: path.join(sourceDir, 'app.css'), out: 'app' },
    ],
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome111', 'firefox115', 'safari16.4'],
    tsconfig: path.join(sourceDir, 'tsconfig.json'),
    // JSX compiles to Preact's automatic runtime (preact/jsx-runtime), as src/web/tsconfig.json declares.
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify,
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
  });
  // app.js/app.css are served with a one-hour cache: a content hash in the query makes a new build win.
  const version = async (file) =>
    createHash('sha256')
      .update(await readFile(path.join(outdir, file)))
      .digest('hex')
      .slice(0, 12);
  const html = (await readFile(path.join(sourceDir, 'index.html'), 'utf8'))
    .replace('href="app.css"', `href="app.css?v=${await version('app.css')}"`)
    .replace('src="app.js"', `src="app.js?v=${await version('app.js')}"`);
  await writeFile(path.join(outdir, 'index.html.tmp'), html);
  await rename(path.join(outdir, 'index.html.tmp'), path.join(outdir, 'index.html'));
  return outdir;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const args = process.argv.slice(2);
  const outdirIndex = args.indexOf('--outdir');
  const outdir = outdirIndex >= 0 ? path.resolve(args[outdirIndex + 1] ?? '') : undefined;
  const started = Date.now();
  const written = await buildWeb({ outdir, minify: !args.includes('--dev') });
  console.log(
    `built the Memories tab into ${path.relative(process.cwd(), written) || '.'} in ${Date.now() - started} ms`,
  );
}
