/**
 * The project owns its rules (docs/ARCHITECTURE.md): every rule a comment cites exists in
 * docs/rules.md, no comment cites a document outside the repository, every src/ folder says
 * what it holds in a README, and the top README fits on a page (the rest is in docs/guide).
 */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const SCANNED = ['src', 'test', 'bench', 'demo', join('web', 'src')];
const CODE = /\.(ts|vue|js|md)$/;
/** Citations of documents that are not in a checkout (the spec, its decisions, the origin's notes). */
const OUTSIDE = [
  /DECISIONS\.md/,
  /\breference (F|§)\d/,
  /\breference "[A-Z]/,
  /house style \d/,
  /\bF\d+\.\d+[a-z]?\b/,
  /\b(corpus|console|community-hub)\.md\b/,
  /\bspec "[A-Z]/,
  /\.\.\/shared\/(ARCHITECTURE|spec)/,
];
/** `docs/rules.md#a` and the further ids of the same citation, `, #b`. */
const CITATION = /docs\/rules\.md#([a-z][a-z-]*[a-z])((?:,\s*(?:\*\s*)?#[a-z][a-z-]*[a-z])*)/g;
/** The old form, `rule <id>`, which must not come back. */
const BARE_RULE = /\brules? ([a-z][a-z-]*[a-z])\b/g;

async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'fixtures') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await files(path)));
    else if (CODE.test(entry.name)) out.push(path);
  }
  return out;
}

async function folders(dir: string): Promise<string[]> {
  const out = [dir];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) out.push(...(await folders(join(dir, entry.name))));
  }
  return out;
}

async function ruleIds(): Promise<Set<string>> {
  const text = await readFile(join(ROOT, 'docs', 'rules.md'), 'utf8');
  return new Set([...text.matchAll(/^- \*\*([a-z][a-z-]*)\*\*:/gm)].map((m) => m[1]!));
}

async function scannedFiles(): Promise<string[]> {
  const all: string[] = [];
  for (const dir of SCANNED) all.push(...(await files(join(ROOT, dir))));
  return all.filter((path) => !path.endsWith(join('test', 'unit', 'docs', 'rules.test.ts')));
}

describe('the project owns its rules', () => {
  it('docs/rules.md gives each rule a unique id', async () => {
    const text = await readFile(join(ROOT, 'docs', 'rules.md'), 'utf8');
    const ids = [...text.matchAll(/^- \*\*([a-z][a-z-]*)\*\*:/gm)].map((m) => m[1]!);
    assert.ok(ids.length >= 40, `only ${ids.length} rules found`);
    assert.equal(new Set(ids).size, ids.length, 'an id is used twice');
  });

  it('every rule a comment cites exists', async () => {
    const ids = await ruleIds();
    const unknown: string[] = [];
    let citations = 0;
    for (const path of await scannedFiles()) {
      const text = await readFile(path, 'utf8');
      for (const match of text.matchAll(CITATION)) {
        const cited = [match[1]!, ...[...match[2]!.matchAll(/#([a-z][a-z-]*[a-z])/g)].map((m) => m[1]!)];
        for (const id of cited) {
          citations++;
          if (!ids.has(id)) unknown.push(`${relative(ROOT, path)}: docs/rules.md#${id}`);
        }
      }
      for (const bare of text.matchAll(BARE_RULE)) {
        if (ids.has(bare[1]!)) unknown.push(`${relative(ROOT, path)}: "${bare[0]}" (cite docs/rules.md#${bare[1]})`);
      }
    }
    assert.deepEqual(unknown, []);
    assert.ok(citations > 100, `only ${citations} citations found: is the pattern still right?`);
  });

  it('no comment cites a document outside the repository', async () => {
    const found: string[] = [];
    for (const path of await scannedFiles()) {
      const lines = (await readFile(path, 'utf8')).split('\n');
      lines.forEach((line, index) => {
        if (OUTSIDE.some((pattern) => pattern.test(line)))
          found.push(`${relative(ROOT, path)}:${index + 1}: ${line.trim()}`);
      });
    }
    assert.deepEqual(found, []);
  });

  it('every src/ folder has a README of 5 to 10 lines (the detail goes to docs/)', async () => {
    const wrong: string[] = [];
    for (const folder of await folders(join(ROOT, 'src'))) {
      const readme = join(folder, 'README.md');
      const text = await readFile(readme, 'utf8').catch(() => null);
      const lines = text === null ? 0 : text.trimEnd().split('\n').length;
      if (lines < 5 || lines > 10)
        wrong.push(`${relative(ROOT, folder)}: ${text === null ? 'missing' : `${lines} lines`}`);
    }
    assert.deepEqual(wrong, []);
  });

  it('the top README stays under 8 KB (everything else goes to the operator guide)', async () => {
    const bytes = Buffer.byteLength(await readFile(join(ROOT, 'README.md'), 'utf8'));
    assert.ok(bytes < 8 * 1024, `README.md is ${bytes} bytes`);
  });
});
