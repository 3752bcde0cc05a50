/**
 * `node --import ./test/support/compiled-tests/register.mjs`: every `.ts` file of this repository
 * is loaded from the compiled `.test-build/` that `build.mjs` wrote, under its own URL.
 */
import { existsSync } from 'node:fs';
import { register } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = new URL('../../../', import.meta.url).href;
const build = new URL('.test-build/', root).href;
if (!existsSync(fileURLToPath(new URL('.complete', build)))) {
  throw new Error('no compiled test build in .test-build/: run `node test/support/compiled-tests/build.mjs` first');
}
register('./hooks.mjs', import.meta.url, { data: { root, build } });
