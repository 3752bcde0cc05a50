/**
 * Crash-safe file replacement for settings and state files (docs/rules.md#cfg-files): the
 * data goes to a temporary file in the same folder (rename is only atomic within one file
 * system), is flushed to disk, then renamed over the target. A reader sees the old file or the
 * new one, never a torn one, even if the process or the machine dies midway.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync } from 'node:fs';
import { chmod, mkdir, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface WriteAtomicOptions {
  /** Permission bits of the new file, applied regardless of the umask (default 0o600). */
  mode?: number;
}

export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: WriteAtomicOptions = {},
): Promise<void> {
  const mode = options.mode ?? 0o600;
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', mode);
  let renamed = false;
  try {
    try {
      // open's mode is masked by the umask; chmod makes 0600 (or whatever was asked) exact.
      await handle.chmod(mode);
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
    renamed = true;
    await syncFolder(dir);
  } finally {
    if (!renamed) await unlink(temp).catch(() => undefined);
  }
}

/**
 * fsyncs a folder, making the renames and links in it durable. Some file systems refuse to fsync
 * a folder; that is not fatal (they order their metadata themselves).
 */
export async function syncFolder(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // Best effort: file contents are already durable; only a rename could be lost on power loss.
  } finally {
    await handle?.close();
  }
}

/**
 * The data folder and the folders of state files: created 0700 (only the service's user may list
 * or open what they hold: group messages, user numbers, tokens). A folder that already exists
 * keeps its mode; the operator chose it.
 */
export async function ensurePrivateDir(path: string): Promise<void> {
  const created = await mkdir(path, { recursive: true, mode: 0o700 });
  // mkdir's mode is masked by the umask; chmod makes the new folder exactly 0700.
  if (created !== undefined) await chmod(path, 0o700);
}

/** The synchronous twin, for the SQLite engine's constructor. */
export function ensurePrivateDirSync(path: string): void {
  const created = mkdirSync(path, { recursive: true, mode: 0o700 });
  if (created !== undefined) chmodSync(path, 0o700);
}
