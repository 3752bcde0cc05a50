/**
 * Restoring a SQLite backup (docs/guide/backups.md): the console only
 * records the request (`restore-pending.json`) and asks for a restart; between stopping and
 * starting again, with the database closed, `applyPendingRestore` checks a copy of the backup
 * (it opens, passes `integrity_check` and holds the corpus tables) and only then renames it over
 * the database. A backup that fails the check leaves the old database in place and in use. The
 * outcome is kept in `restore-result.json` for the console.
 */
import { chmod, copyFile, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { writeFileAtomic } from '../../config/index.ts';
import type { Log } from '../../common/log.ts';
import { runPath, sha256Of } from './folder.ts';
import { errorMessage } from '../../common/errors.ts';

const MARKER = 'restore-pending.json';
const RESULT = 'restore-result.json';

/** What became of a restore, as a code the console words: done, the file changed since, or the check or replacement failed. */
export type RestoreCode = 'restored' | 'file_changed' | 'not_restored';

export interface RestoreResult {
  ok: boolean;
  /** Absent in a result written before codes (read as `ok`). */
  code?: RestoreCode;
  name: string;
  detail: string;
  /** Unix seconds. */
  at: number;
}

/** `sha256`: the backup's recorded hash, checked again when the restore is applied. */
export async function requestRestore(dataDir: string, name: string, nowSec: number, sha256: string): Promise<void> {
  await writeFileAtomic(join(dataDir, MARKER), `${JSON.stringify({ name, sha256, requested_at: nowSec })}\n`, {
    mode: 0o600,
  });
}

export async function lastRestore(dataDir: string): Promise<RestoreResult | null> {
  try {
    return JSON.parse(await readFile(join(dataDir, RESULT), 'utf8')) as RestoreResult;
  } catch {
    return null;
  }
}

/**
 * Puts the backup file at `source` in place of the database; throws, with the old database
 * untouched and in use, when it cannot.
 */
export type ReplaceDatabase = (source: string) => Promise<void>;

/** Runs with the database closed (at start). Null when no restore was asked for. */
export async function applyPendingRestore(
  dataDir: string,
  backupFolder: string,
  replace: ReplaceDatabase,
  log: Log,
  nowSec: number,
): Promise<RestoreResult | null> {
  let name: string;
  let sha256: unknown;
  try {
    ({ name, sha256 } = JSON.parse(await readFile(join(dataDir, MARKER), 'utf8')) as {
      name: string;
      sha256?: unknown;
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    name = '';
  }
  let result: RestoreResult;
  let code: RestoreCode = 'not_restored';
  try {
    const source = runPath(backupFolder, name);
    // Checked when it was asked for; checked again here, as the file could change in between.
    if (typeof sha256 !== 'string' || (await sha256Of(source)) !== sha256) {
      code = 'file_changed';
      throw new Error('the backup file is not the one recorded (sha256 differs)');
    }
    await replace(source);
    result = { ok: true, code: 'restored', name, detail: 'restored; migrations ran at start', at: nowSec };
    log.warn({ backup: name }, 'database restored from a backup');
  } catch (error) {
    const detail = errorMessage(error);
    const failed = `not restored, the previous database is in use: ${detail}`;
    result = { ok: false, code, name, detail: failed, at: nowSec };
    log.error({ backup: name, detail }, 'restore failed; the previous database is in use');
  }
  await writeFileAtomic(join(dataDir, RESULT), `${JSON.stringify(result)}\n`, { mode: 0o600 });
  await rm(join(dataDir, MARKER), { force: true });
  return result;
}

/** SQLite: a checked copy of the backup renamed over the database file. */
export function replaceSqliteFile(databaseFile: string): ReplaceDatabase {
  return async (source) => {
    const staged = `${databaseFile}.restoring`;
    try {
      await copyFile(source, staged);
      await chmod(staged, 0o600);
      checkDatabase(staged);
      // The old database was closed cleanly, so its WAL holds nothing it still needs.
      await rm(`${databaseFile}-wal`, { force: true });
      await rm(`${databaseFile}-shm`, { force: true });
      await rename(staged, databaseFile);
    } catch (error) {
      await rm(staged, { force: true });
      throw error;
    }
  };
}

function checkDatabase(path: string): void {
  let db: BetterSqlite3.Database | undefined;
  try {
    db = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
    const check = db.pragma('integrity_check', { simple: true });
    if (check !== 'ok') throw new Error(`integrity check: ${String(check)}`);
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'context'").get();
    if (table === undefined) throw new Error('not a Chorus database (no context table)');
  } catch (error) {
    if (error instanceof Error && /not a database|malformed/i.test(error.message)) {
      throw new Error('the backup is not a readable SQLite database', { cause: error });
    }
    throw error;
  } finally {
    db?.close();
  }
}
