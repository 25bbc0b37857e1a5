// The README and docs point at each other: every relative link must reach a file, and its #anchor a heading.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

async function documents(): Promise<string[]> {
  const docs = await readdir(path.join(repoRoot, 'docs'), { recursive: true });
  return ['README.md', 'bench/README.md', ...docs.filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
}

/** The text outside code fences and inline code, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading = ''] of markdown.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} +(.+?) *$/gm)) {
    const slug = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count ? `${slug}-${count}` : slug);
  }
  return result;
}

/** The relative links of `file` (text `markdown`) that reach no file, or no heading of it. */
async function brokenLinks(file: string, markdown: string): Promise<string[]> {
  const broken: string[] = [];
  for (const [, target = ''] of prose(markdown).matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)) {
    if (/^[a-z]+:/i.test(target)) continue;
    const [targetPath = '', anchor] = target.split('#');
    const resolved = path.resolve(path.dirname(path.join(repoRoot, file)), targetPath || path.basename(file));
    if (!existsSync(resolved)) broken.push(`${file}: ${target} (no such file)`);
    else if (anchor && resolved.endsWith('.md') && !anchors(await readFile(resolved, 'utf8')).has(anchor))
      broken.push(`${file}: ${target} (no such heading)`);
  }
  return broken;
}

describe('Docs: links between the README and docs/', () => {
  it('Docs: every relative link reaches a file, and every #anchor a heading of it', async () => {
    const broken: string[] = [];
    for (const file of await documents())
      broken.push(...(await brokenLinks(file, await readFile(path.join(repoRoot, file), 'utf8'))));
    expect(broken).toEqual([]);
  });

  it('Docs: the check reports a missing file and a missing heading, and reads GitHub anchors', async () => {
    const text =
      '[a](docs/nope.md) [b](docs/api.md#nope) [c](docs/api.md#callers-and-tokens) `[d](x.md)` [e](#f)';
    expect(await brokenLinks('README.md', `${text}\n## F\n`)).toEqual([
      'README.md: docs/nope.md (no such file)',
      'README.md: docs/api.md#nope (no such heading)',
      'README.md: #f (no such heading)',
    ]);
    expect(
      anchors("# MCP (agents' tool channel)\n## Cost isolation (S7–S9)\n## x\n## x\n```\n# y\n```"),
    ).toEqual(new Set(['mcp-agents-tool-channel', 'cost-isolation-s7s9', 'x', 'x-1']));
  });
});

describe('Docs: the README is read in five minutes', () => {
  it('Docs: README.md is at most 150 lines; reference and the walk-through live in docs/', async () => {
    const lines = (await readFile(path.join(repoRoot, 'README.md'), 'utf8')).trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(150);
  });
});
