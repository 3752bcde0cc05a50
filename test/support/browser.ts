/**
 * Headless Chromium for the browser suite: Debian's `chromium` (CHORUS_CHROMIUM overrides the
 * path) driven by playwright-core, and a build of the web console (vite) of the current source.
 * The build is shared: every browser test file, in whichever process it runs, gets the same
 * folder, named by a hash of the console's sources, built once by the first file that asks
 * (a build is ~20 s of CPU; seven files built it seven times). Without Chromium the suite is
 * skipped, except under CI=true where it fails (.ci/run installs it).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
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

/** What a build depends on: the console's sources and the locked dependency versions. */
function webSourceHash(): string {
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name === 'node_modules' || entry.name === 'dist') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else hash.update(relative(ROOT, path)).update('\0').update(readFileSync(path)).update('\0');
    }
  };
  walk(join(ROOT, 'web'));
  // The console imports the bot's CQ parser (web/src/components/corpus/CqText.vue).
  hash.update(readFileSync(join(ROOT, 'src/onebot/cq-code.ts')));
  hash.update(readFileSync(join(ROOT, 'package-lock.json')));
  return hash.digest('hex').slice(0, 16);
}

/** A builder that died leaves its lock behind; past this age another file builds instead. */
const STALE_LOCK_MS = 5 * 60_000;
const BUILD_WAIT_MS = 10 * 60_000;

/**
 * The folder holding a build of the current web/ sources, built now if no file has built these
 * sources yet. Builders take a lock (mkdir is atomic) and publish with one rename, so a reader
 * never sees half a build; the others wait for the folder to appear.
 */
export async function sharedWebBuild(): Promise<string> {
  const target = join(tmpdir(), `chorus-test-web-${webSourceHash()}`);
  const lock = `${target}.lock`;
  const deadline = Date.now() + BUILD_WAIT_MS;
  while (!existsSync(join(target, 'index.html'))) {
    if (Date.now() > deadline) throw new Error(`no web build appeared at ${target}`);
    if (await takeLock(lock)) {
      try {
        if (existsSync(join(target, 'index.html'))) break;
        const staging = `${target}.staging-${process.pid}`;
        await buildWeb(staging);
        await rm(target, { recursive: true, force: true });
        await rename(staging, target);
      } finally {
        await rm(lock, { recursive: true, force: true });
      }
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return target;
}

async function takeLock(lock: string): Promise<boolean> {
  try {
    await mkdir(lock);
    return true;
  } catch {
    const age = await stat(lock).then(
      (info) => Date.now() - info.mtimeMs,
      () => 0,
    );
    if (age > STALE_LOCK_MS) await rm(lock, { recursive: true, force: true });
    return false;
  }
}
