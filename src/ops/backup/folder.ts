/**
 * The backup folder (`<data>/backups`): each backup is a file and a `<file>.json` description
 * beside it. Names come from clients on every route (download, delete, restore), so a name is
 * checked against one pattern (no separators, no leading dot, so no `..` and no absolute path)
 * and the resolved path must still be inside the folder.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { writeFileAtomic } from '../../config/index.ts';

export type BackupFormat = 'sqlite' | 'pg-dump' | 'corpus-jsonl-gz';

const EXTENSIONS: Record<BackupFormat, string> = {
  sqlite: '.db',
  'pg-dump': '.pgdump',
  'corpus-jsonl-gz': '.jsonl.gz',
};

export interface BackupRun {
  name: string;
  label: string;
  engine: 'sqlite' | 'postgres';
  format: BackupFormat;
  /** Unix seconds. */
  created_at: number;
  bytes: number;
  sha256: string;
  /** Contexts in the corpus when it was taken. */
  contexts: number;
  /** pg-dump: the PostgreSQL schema it holds (a restore goes back into it). */
  schema?: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const LABEL = /^[A-Za-z0-9_-]{0,40}$/;

export class BackupPathError extends Error {
  override readonly name = 'BackupPathError';
}

/** The backup's file is not what its description recorded (size or sha256): it is not used. */
export class BackupChangedError extends Error {
  override readonly name = 'BackupChangedError';
}

/** A restore is already under way (a restart is coming, or another request is being checked). */
export class BackupBusyError extends Error {
  override readonly name = 'BackupBusyError';
}

/**
 * Checks that a backup's file is the one its description records (size, then sha256, which reads
 * the whole file): a changed byte is refused, not restored.
 */
export async function verifyRun(folder: string, run: BackupRun): Promise<void> {
  const path = runPath(folder, run.name);
  const { size } = await stat(path);
  if (size !== run.bytes)
    throw new BackupChangedError(
      `name: the file of ${run.name} changed since the backup was written (${run.bytes} bytes recorded, ${size} now)`,
    );
  if ((await sha256Of(path)) !== run.sha256)
    throw new BackupChangedError(
      `name: the file of ${run.name} changed since the backup was written (its sha256 is not the recorded one)`,
    );
}

/** The file of backup `name`, refused unless it is a plain name inside the folder. */
export function runPath(folder: string, name: string): string {
  if (!NAME.test(name) || name.endsWith('.json')) {
    throw new BackupPathError(`name: "${name.slice(0, 64)}" is not a backup name (letters, digits, . _ -)`);
  }
  const root = resolve(folder);
  const path = resolve(root, name);
  if (!path.startsWith(root + sep)) throw new BackupPathError('name: outside the backup folder');
  return path;
}

export function checkLabel(label: string): string {
  if (!LABEL.test(label)) throw new BackupPathError('label: up to 40 letters, digits, _ or -');
  return label;
}

/** `chorus-20261124-193000[-label].<ext>` */
export function newRunName(nowMs: number, label: string, format: BackupFormat): string {
  const stamp = new Date(nowMs).toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `chorus-${stamp}${label ? `-${label}` : ''}${EXTENSIONS[format]}`;
}

export async function writeRunDescription(folder: string, run: BackupRun): Promise<void> {
  await writeFileAtomic(`${runPath(folder, run.name)}.json`, `${JSON.stringify(run, null, 2)}\n`, { mode: 0o600 });
}

/** Every described backup whose file is there, newest first. */
export async function listRuns(folder: string): Promise<BackupRun[]> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const runs: BackupRun[] = [];
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const run = await readDescription(join(folder, name));
    if (run && names.includes(run.name)) runs.push(run);
  }
  return runs.sort((a, b) => b.created_at - a.created_at || b.name.localeCompare(a.name));
}

async function readDescription(path: string): Promise<BackupRun | null> {
  try {
    const value = JSON.parse(await readFile(path, 'utf8')) as Partial<BackupRun>;
    if (typeof value.name !== 'string' || !NAME.test(value.name)) return null;
    return {
      name: value.name,
      label: typeof value.label === 'string' ? value.label : '',
      engine: value.engine === 'postgres' ? 'postgres' : 'sqlite',
      format: value.format === 'corpus-jsonl-gz' || value.format === 'pg-dump' ? value.format : 'sqlite',
      created_at: typeof value.created_at === 'number' ? value.created_at : 0,
      bytes: typeof value.bytes === 'number' ? value.bytes : 0,
      sha256: typeof value.sha256 === 'string' ? value.sha256 : '',
      contexts: typeof value.contexts === 'number' ? value.contexts : 0,
      ...(typeof value.schema === 'string' ? { schema: value.schema } : {}),
    };
  } catch {
    return null;
  }
}

export async function findRun(folder: string, name: string): Promise<BackupRun | null> {
  runPath(folder, name);
  return (await listRuns(folder)).find((run) => run.name === name) ?? null;
}

export async function deleteRun(folder: string, name: string): Promise<boolean> {
  const path = runPath(folder, name);
  const existed = await stat(path).then(
    () => true,
    () => false,
  );
  await rm(path, { force: true });
  await rm(`${path}.json`, { force: true });
  return existed;
}

export async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
