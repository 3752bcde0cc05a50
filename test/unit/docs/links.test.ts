/**
 * The guide's checks can fail: a link to a missing page or heading is reported with its line, a
 * stale configuration reference fails `docs:check`, and the repository as committed passes both.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { anchorsOf, brokenLinks, markdownFiles, slugOf } from '../../../src/app/doc-links.ts';
import { REFERENCE_FILE, runDocsTool } from '../../../src/app/docs-tool.ts';
import { renderConfigReference } from '../../../src/config/reference-doc.ts';
import { SECTIONS } from '../../../src/config/index.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

async function tree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'chorus-docs-'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

describe('documentation links', () => {
  it('slugs headings as GitHub does, numbering repeats', () => {
    assert.equal(slugOf('The console API'), 'the-console-api');
    assert.equal(slugOf('Why is it silent?'), 'why-is-it-silent');
    assert.equal(slugOf('Layout: one folder, one role'), 'layout-one-folder-one-role');
    assert.deepEqual(
      [...anchorsOf('# A\n\n## Limits\n\n```\n# not a heading\n```\n## Limits\n')],
      ['a', 'limits', 'limits-1'],
    );
  });

  it('reports a missing page, a missing heading and a link out of the repository, not code or web addresses', async () => {
    const root = await tree({
      'README.md': [
        '[ok](docs/a.md#part-two) [web](https://example.org/x) `[code](nowhere.md)`',
        '[gone](docs/missing.md)',
        '[no heading](docs/a.md#part-three)',
        '```',
        '[in a fence](nowhere.md)',
        '```',
        '[out](../elsewhere.md)',
      ].join('\n'),
      'docs/a.md': '# A\n\n## Part two\n\n[self](#a) [back](../README.md)\n',
    });
    try {
      const broken = await brokenLinks(root, await markdownFiles(root));
      assert.deepEqual(
        broken.map((link) => `${link.file}:${link.line} ${link.target} ${link.why}`),
        [
          'README.md:2 docs/missing.md no such file',
          'README.md:3 docs/a.md#part-three no such heading',
          'README.md:7 ../elsewhere.md outside the repository',
        ],
      );
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('the README, the guide and the developer pages have no broken link', async () => {
    const files = await markdownFiles(ROOT);
    assert.ok(files.includes('docs/guide/index.md') && files.includes('README.md'));
    assert.deepEqual(await brokenLinks(ROOT, files), []);
  });
});

describe('configuration reference', () => {
  it('lists every key of every section, secrets without their default', () => {
    const page = renderConfigReference();
    for (const section of SECTIONS) {
      assert.ok(page.includes(`## ${section.title}`), section.title);
      for (const field of section.fields) assert.ok(page.includes(`| \`${field.env}\` |`), field.env);
    }
    assert.match(page, /\| `CHORUS_DATABASE_URL` \| \*\(empty\)\* \|/);
  });

  it('docs:check fails on a stale reference and passes once it is written', async () => {
    const root = await tree({
      'README.md': '# R\n',
      'docs/guide/configuration.md': '# C\n',
      [REFERENCE_FILE]: 'old\n',
    });
    const errors: string[] = [];
    try {
      assert.equal(
        await runDocsTool(
          'check',
          root,
          () => undefined,
          (line) => errors.push(line),
        ),
        1,
      );
      assert.match(errors.join('\n'), /reference\.md is stale/);
      assert.equal(await runDocsTool('config', root, () => undefined), 0);
      assert.equal(await runDocsTool('check', root, () => undefined), 0);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
