/**
 * Compiles every TypeScript file of the repository (tsconfig.json: src, test, bench, demo, and the
 * web files tests import) once, type checks off, into `.test-build/` for `npm test`
 * (docs/testing.md#how-the-suite-is-run). `register.mjs` then hands Node these files for the
 * `.ts` URLs, so a test process does not start a TypeScript compiler of its own: tsx cost each of
 * the hundred test processes about 0.6 s of CPU more. Type errors are the type check's business.
 */
import { spawnSync } from 'node:child_process';
import { rmSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const BUILD = join(ROOT, '.test-build');

const staging = `${BUILD}.staging-${process.pid}`;
rmSync(staging, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
// tsc rewrites relative imports to `.js`; the hooks resolve them back to the `.ts` sources and
// load the compiled text under the source's own URL, so import.meta.url and relative paths are
// those of the source.
const result = spawnSync(
  process.execPath,
  [tsc, '-p', join(ROOT, 'tsconfig.json'), '--noCheck', '--sourceMap', 'false', '--outDir', staging],
  { cwd: ROOT, stdio: 'inherit' },
);
if (result.status !== 0) {
  rmSync(staging, { recursive: true, force: true });
  console.error(`compiling the sources for the tests failed (tsc exit ${result.status})`);
  process.exit(1);
}
writeFileSync(join(staging, '.complete'), '');
rmSync(BUILD, { recursive: true, force: true });
renameSync(staging, BUILD);
