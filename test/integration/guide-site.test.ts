/**
 * The operator's guide builds as a static site (`npm run docs:build`, VitePress): every page
 * compiles (a stray `<name>` in prose is a Vue template error there) and the site's own dead-link
 * check passes; each page of the guide becomes a page of the site.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

it('docs:build turns every page of docs/guide into a page of the site', { timeout: 300_000 }, async (t) => {
  const out = await mkdtemp(join(tmpdir(), 'chorus-guide-site-'));
  t.after(() => rm(out, { recursive: true, force: true }));
  const vitepress = join(ROOT, 'node_modules', 'vitepress', 'bin', 'vitepress.js');
  await run(process.execPath, [vitepress, 'build', 'docs/guide', '--outDir', out], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  const pages = (await readdir(join(ROOT, 'docs', 'guide'))).filter((name) => name.endsWith('.md'));
  assert.ok(pages.length >= 10);
  for (const page of pages) {
    const html = page === 'index.md' ? 'index.html' : page.replace(/\.md$/, '.html');
    assert.ok(existsSync(join(out, html)), `${page} is built as ${html}`);
  }
});
