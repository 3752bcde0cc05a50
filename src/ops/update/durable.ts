/**
 * Flushing a staged version to disk before `current` is switched to it (docs/rules.md#update-durable):
 * a rename is durable only once the folder holding it is flushed, and what the new link names
 * must be on disk before the link is, or a power cut could leave `current` naming a version whose
 * files are empty or missing. Some file systems refuse to fsync a folder; that is not fatal.
 */
import { open, readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { syncFolder } from '../../config/atomic-file.ts';

export { syncFolder };

/** fsyncs at a time: enough to keep a disk busy, few enough to leave file handles for the service. */
const SYNC_PARALLEL = 8;

export interface SyncTreeOptions {
  /**
   * Below this folder only folders are flushed: its files are hard links to files already on
   * disk (a reused node_modules), so only the new names need flushing.
   */
  foldersOnlyBelow?: string | null;
}

/** fsyncs every file and folder under `dir`, `dir` last; resolves with how many were flushed. */
export async function syncTree(dir: string, options: SyncTreeOptions = {}): Promise<number> {
  const files: string[] = [];
  const folders: string[] = [];
  const below = options.foldersOnlyBelow ?? null;
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && !(below !== null && isUnder(path, below))) files.push(path);
    }
    folders.push(folder);
  };
  await walk(dir);
  // Files first, then folders deepest first, so each folder is flushed after what it names.
  await inParallel(files, syncFile);
  await inParallel(folders.slice(0, -1), syncFolder);
  await syncFolder(dir);
  return files.length + folders.length;
}

async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function isUnder(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..';
}

async function inParallel(paths: readonly string[], each: (path: string) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < paths.length) await each(paths[next++] as string);
  };
  await Promise.all(Array.from({ length: Math.min(SYNC_PARALLEL, paths.length) }, worker));
}
