/**
 * `npm run docs:config | docs:check`: the operator's guide's generated page and its links.
 * - config: writes docs/guide/reference.md from the configuration sections;
 * - check: exits 1 when that page is stale, or when a link in README.md or docs/ points at a file
 *   or a heading that does not exist (part of `npm test`, as openapi:check is).
 * `--root <dir>` points at another checkout (tests use a copy).
 */
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderConfigReference } from '../config/reference-doc.ts';
import { brokenLinks, markdownFiles } from './doc-links.ts';
import { readOptional } from './openapi-tool.ts';

export const REFERENCE_FILE = 'docs/guide/reference.md';

/** Returns the process exit code. */
export async function runDocsTool(
  command: string,
  root: string,
  out = console.log,
  err = console.error,
): Promise<number> {
  const referencePath = join(root, REFERENCE_FILE);
  switch (command) {
    case 'config':
      await writeFile(referencePath, renderConfigReference());
      out(`wrote ${REFERENCE_FILE}`);
      return 0;
    case 'check': {
      let failed = false;
      if ((await readOptional(referencePath)) !== renderConfigReference()) {
        err(`${REFERENCE_FILE} is stale: run npm run docs:config and commit it`);
        failed = true;
      }
      const files = await markdownFiles(root);
      const broken = await brokenLinks(root, files);
      for (const link of broken) err(`${link.file}:${link.line}: broken link ${link.target} (${link.why})`);
      if (!failed && broken.length === 0) out(`${files.length} pages, links and ${REFERENCE_FILE} up to date`);
      return failed || broken.length > 0 ? 1 : 0;
    }
    default:
      err(`usage: docs-tool config|check [--root DIR]`);
      return 2;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const rootIndex = args.indexOf('--root');
  const root =
    rootIndex >= 0 && args[rootIndex + 1]
      ? resolve(args[rootIndex + 1] as string)
      : fileURLToPath(new URL('../../', import.meta.url));
  process.exitCode = await runDocsTool(args[0] ?? '', root);
}
