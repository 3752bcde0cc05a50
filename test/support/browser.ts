/**
 * Headless Chromium for the browser suite: Debian's `chromium` (CHORUS_CHROMIUM overrides the
 * path) driven by playwright-core, and a fresh build of the web console (vite) into a temporary
 * folder so the suite always tests the current source. Without Chromium the suite is skipped,
 * except under CI=true where it fails (.ci/run installs it).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium, selectors, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHORUS_CHROMIUM || '/usr/bin/chromium';
export const IN_CI = process.env.CI === 'true';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
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

export function launchChromium(): Promise<Browser> {
  // The SPA marks what tests look for with data-test (web/README.md).
  selectors.setTestIdAttribute('data-test');
  if (!HAVE_CHROMIUM) throw new Error(`Chromium not found at ${CHROMIUM} (apt-get install chromium fonts-wqy-zenhei)`);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** Builds web/ into `outDir` with the project's vite config. */
export async function buildWeb(outDir: string): Promise<void> {
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
