/**
 * Headless Chromium for the browser suite: Debian's `chromium` (CHORUS_CHROMIUM overrides the
 * path) driven by playwright-core, and a build of the web console (vite) of the current source.
 * The build is shared: every browser test file, in whichever process it runs, gets the same
 * folder, named by a hash of the console's sources, built once by the first file that asks
 * (a build is ~20 s of CPU; seven files built it seven times). Without Chromium the suite is
 * skipped, except under CI=true where it fails (.ci/run installs it).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, selectors, type Browser } from 'playwright-core';
import { ROOT, sharedBuild, sourceHash } from './shared-build.ts';

export const CHROMIUM = process.env.CHORUS_CHROMIUM || '/usr/bin/chromium';
export const IN_CI = process.env.CI === 'true';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
export { ROOT };
/** Screenshots and figures (gitignored). */
export const OUTPUT = join(ROOT, 'test-output');

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

/**
 * A browser for one test file: under the suite runner, a connection to the Chromium it shares
 * between the browser files (CHORUS_TEST_BROWSER_WS, test/support/compiled-tests/shared-chromium.mjs);
 * run alone, a Chromium of its own. Either way `close()` ends what the file opened.
 */
export function launchChromium(): Promise<Browser> {
  // The SPA marks what tests look for with data-test (web/README.md).
  selectors.setTestIdAttribute('data-test');
  if (!HAVE_CHROMIUM) throw new Error(`Chromium not found at ${CHROMIUM} (apt-get install chromium fonts-wqy-zenhei)`);
  const shared = process.env.CHORUS_TEST_BROWSER_WS;
  if (shared) return chromium.connect(shared);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** Builds web/ into `outDir` with the project's vite config. */
async function buildWeb(outDir: string): Promise<void> {
  const { build } = await import('vite');
  await build({
    configFile: join(ROOT, 'web/vite.config.ts'),
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true },
  });
}

/** Gzipped bytes of the JavaScript index.html loads up front (entry and module preloads). */
export async function initialJsGzip(outDir: string): Promise<{ files: number; bytes: number }> {
  const html = await readFile(join(outDir, 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+\.js)"/g)].map((m) => m[1] as string);
  let bytes = 0;
  for (const file of files) bytes += gzipSync(await readFile(join(outDir, file)), { level: 9 }).length;
  return { files: files.length, bytes };
}

/** Files outside web/ the console's build reads: the bot's CQ parser (CqText.vue) and the locked versions. */
const WEB_ALSO_BUILT_FROM = ['src/onebot/cq-code.ts', 'package-lock.json'];

/** The folder holding a build of the current web/ sources (built now if no file has built them yet). */
export function sharedWebBuild(): Promise<string> {
  return sharedBuild({
    target: join(tmpdir(), `chorus-test-web-${sourceHash(['web'], WEB_ALSO_BUILT_FROM)}`),
    marker: 'index.html',
    build: buildWeb,
  });
}
