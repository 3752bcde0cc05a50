/**
 * A build several test files share: made once by the first file that asks, under a lock (mkdir is
 * atomic), and published with one rename, so a reader never sees half a build; the others wait
 * for the finished folder. Used for the web console (test/support/browser.ts) and for the
 * compiled server the tests start as `chorus` (test/support/server-build.ts).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A builder that died leaves its lock behind; past this age another file builds instead. */
const STALE_LOCK_MS = 5 * 60_000;
const BUILD_WAIT_MS = 10 * 60_000;

export interface SharedBuild {
  /** The published folder. */
  target: string;
  /** A file inside `target` whose presence says the build is complete. */
  marker: string;
  /** Builds into `staging` (a fresh path beside `target`). */
  build(staging: string): Promise<void>;
}

/** Returns `target` once it holds a complete build, building it here if no one has yet. */
export async function sharedBuild({ target, marker, build }: SharedBuild): Promise<string> {
  const lock = `${target}.lock`;
  const deadline = Date.now() + BUILD_WAIT_MS;
  while (!existsSync(join(target, marker))) {
    if (Date.now() > deadline) throw new Error(`no build appeared at ${target}`);
    if (await takeLock(lock)) {
      try {
        if (existsSync(join(target, marker))) break;
        const staging = `${target}.staging-${process.pid}`;
        await rm(staging, { recursive: true, force: true });
        await build(staging);
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

/** A short hash of the files under `folders` (relative to the repository) and of `files`. */
export function sourceHash(folders: string[], files: string[]): string {
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name === 'node_modules' || entry.name === 'dist') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else hash.update(relative(ROOT, path)).update('\0').update(readFileSync(path)).update('\0');
    }
  };
  for (const folder of folders) walk(join(ROOT, folder));
  for (const file of files)
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(join(ROOT, file)));
  return hash.digest('hex').slice(0, 16);
}
