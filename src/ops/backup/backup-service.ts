/**
 * Backups as jobs (one at a time; the console answers 409 for a second): SQLite through the
 * online backup API, consistent while the bot keeps learning; PostgreSQL with pg_dump when the
 * client tools are installed (pg-tools.ts), else as the portable corpus file of Chorus's tables.
 * Restores are two steps: a preview that answers a confirmation token bound to that backup, then
 * the restore with the token (a database file or a dump: replaced at a restart, see restore.ts;
 * the portable file: merged as an import job).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ReadStream } from 'node:fs';
import { open, rename, rm, stat } from 'node:fs/promises';
import { ensurePrivateDir } from '../../config/index.ts';
import { exportCorpus, runImport, type CorpusSource, type CorpusTarget } from '../corpus-file/index.ts';
import type { Job, JobContext, JobOutcome, JobRegistry } from '../jobs/index.ts';
import {
  BackupBusyError,
  BackupChangedError,
  BackupPathError,
  checkLabel,
  deleteRun,
  findRun,
  listRuns,
  newRunName,
  runPath,
  sha256Of,
  verifyRun,
  writeRunDescription,
  type BackupFormat,
  type BackupRun,
} from './folder.ts';
import { CHORUS_TABLES } from '../../store/database-overview.ts';
import { MIGRATION_TABLES, pgDump, PgToolError, type PgTools } from './pg-tools.ts';
import { lastRestore, requestRestore, type RestoreResult } from './restore.ts';

export const BACKUP_JOB = 'db-backup';
/** A restore confirmation token is good for this long. */
const CONFIRM_TTL_SEC = 600;

export interface BackupServiceOptions {
  /** `<data>/backups` */
  folder: string;
  dataDir: string;
  engine: 'sqlite' | 'postgres';
  /** SQLite only: the engine's online backup. */
  sqliteBackup?: (destination: string, onProgress: (copied: number, total: number) => void) => Promise<void>;
  corpus: CorpusSource & CorpusTarget;
  jobs: JobRegistry;
  /** Unix milliseconds. */
  now: () => number;
  version: string;
  /** SQLite restore: stop, swap (restore.ts) and start again; called after the answer is sent. */
  restart: () => void;
  /** PostgreSQL: the client tools (null when not installed), the URL and this deployment's schema. */
  postgres?: {
    tools: () => Promise<PgTools | null>;
    url: string;
    schema: () => Promise<string>;
    env: Readonly<Record<string, string | undefined>>;
  };
}

export interface RestorePreview {
  run: BackupRun;
  /** What a restore does here, in one sentence. */
  effect: string;
  confirm_token: string;
  expires_at: number;
}

export class BackupService {
  readonly #options: BackupServiceOptions;
  readonly #secret = randomBytes(32);
  /**
   * The backup whose restore is being checked or waits for the restart, or null. Taken before the
   * first await of a restore, so that a second one meanwhile is refused (409) instead of both
   * answering "restarting" and one silently winning; kept once the restart is asked for.
   */
  #restoring: string | null = null;
  #restartAsked = false;

  constructor(options: BackupServiceOptions) {
    this.#options = options;
  }

  get folder(): string {
    return this.#options.folder;
  }

  async info(): Promise<{
    engine: string;
    format: BackupFormat;
    folder: string;
    runs: number;
    bytes: number;
    last_backup_at: number | null;
    last_restore: RestoreResult | null;
  }> {
    const runs = await listRuns(this.#options.folder);
    return {
      engine: this.#options.engine,
      format: await this.#format(),
      folder: this.#options.folder,
      runs: runs.length,
      bytes: runs.reduce((sum, run) => sum + run.bytes, 0),
      last_backup_at: runs[0]?.created_at ?? null,
      last_restore: await lastRestore(this.#options.dataDir),
    };
  }

  runs(): Promise<BackupRun[]> {
    return listRuns(this.#options.folder);
  }

  active(): Job | undefined {
    return this.#options.jobs.active(BACKUP_JOB);
  }

  job(id: string): Job | undefined {
    const job = this.#options.jobs.get(id);
    return job?.kind === BACKUP_JOB ? job : undefined;
  }

  /**
   * The file of a described backup, opened for download with its length; BackupPathError for a bad
   * name, BackupChangedError when its size is not the recorded one (a shrunk file sent with the
   * recorded length left the client waiting for bytes that never came), null if none.
   */
  async file(name: string): Promise<{ stream: ReadStream; bytes: number; run: BackupRun } | null> {
    const run = await findRun(this.#options.folder, name);
    if (!run) return null;
    const handle = await open(runPath(this.#options.folder, name), 'r').catch(() => null);
    if (!handle) return null;
    const { size } = await handle.stat();
    if (size !== run.bytes) {
      await handle.close();
      throw new BackupChangedError(
        `name: the file of ${run.name} changed since the backup was written (${run.bytes} bytes recorded, ${size} now)`,
      );
    }
    // The stream closes the handle when it ends or is destroyed.
    // Exactly the recorded bytes, even if the file grows meanwhile.
    return { stream: handle.createReadStream(size > 0 ? { end: size - 1 } : {}), bytes: size, run };
  }

  /** Starts a backup job; JobBusyError while a database job runs, BackupBusyError while a restore is under way. */
  start(label: string): Job {
    checkLabel(label);
    if (this.#restoring !== null) throw new BackupBusyError(`a restore of ${this.#restoring} is under way`);
    return this.#options.jobs.start(BACKUP_JOB, 'backup', (context) => this.#backup(label, context));
  }

  async delete(names: readonly string[]): Promise<{ deleted: string[]; missing: string[] }> {
    for (const name of names) runPath(this.#options.folder, name);
    const deleted: string[] = [];
    const missing: string[] = [];
    for (const name of names) ((await deleteRun(this.#options.folder, name)) ? deleted : missing).push(name);
    return { deleted, missing };
  }

  async preview(name: string): Promise<RestorePreview | null> {
    const run = await findRun(this.#options.folder, name);
    if (!run) return null;
    const expires = Math.floor(this.#options.now() / 1000) + CONFIRM_TTL_SEC;
    return {
      run,
      effect:
        run.format === 'corpus-jsonl-gz'
          ? 'The backup is merged into the corpus (larger counts win); nothing is deleted.'
          : 'Chorus restarts and the database is replaced by this backup; what was learned since is lost.',
      confirm_token: `${expires}.${this.#sign(run, expires)}`,
      expires_at: expires,
    };
  }

  /**
   * Checks the token and the file (its recorded size and sha256), then restores: a database file
   * or a dump is recorded and the service restarts (`restarting`); the portable file starts an
   * import job. BackupPathError when the token is wrong or expired, BackupChangedError when the
   * file is not the one recorded, BackupBusyError while another restore is under way.
   */
  async restore(name: string, token: string): Promise<{ restarting: boolean; job: Job | null }> {
    const run = await findRun(this.#options.folder, name);
    if (!run) throw new BackupPathError(`name: no backup called ${name}`);
    const [expiresText = '', signature = ''] = token.split('.');
    const expires = Number(expiresText);
    const expected = Buffer.from(this.#sign(run, expires), 'hex');
    const given = Buffer.from(signature, 'hex');
    const valid = given.length === expected.length && timingSafeEqual(given, expected);
    if (!valid || !Number.isSafeInteger(expires) || expires * 1000 < this.#options.now()) {
      throw new BackupPathError('confirm_token: missing, wrong or expired; ask for a new preview');
    }
    // No await between this check and the claim.
    if (this.#restoring !== null) throw new BackupBusyError(`a restore of ${this.#restoring} is under way`);
    const busy = this.active();
    if (busy) throw new BackupBusyError(`a database job is running (job ${busy.id})`);
    this.#restoring = name;
    try {
      return await this.#restoreChecked(run);
    } finally {
      if (!this.#restartAsked) this.#restoring = null;
    }
  }

  async #restoreChecked(run: BackupRun): Promise<{ restarting: boolean; job: Job | null }> {
    if (run.format === 'pg-dump') await this.#checkPgDump(run);
    if (run.format === 'sqlite' && this.#options.engine !== 'sqlite')
      throw new BackupPathError('name: a SQLite backup cannot restore PostgreSQL');
    await verifyRun(this.#options.folder, run);
    if (run.format === 'sqlite' || run.format === 'pg-dump') {
      await requestRestore(this.#options.dataDir, run.name, Math.floor(this.#options.now() / 1000), run.sha256);
      this.#restartAsked = true;
      this.#options.restart();
      return { restarting: true, job: null };
    }
    const path = runPath(this.#options.folder, run.name);
    const job = this.#options.jobs.start(BACKUP_JOB, 'restore', (context) =>
      runImport(this.#options.corpus, path, false, context),
    );
    return { restarting: false, job };
  }

  async #format(): Promise<BackupFormat> {
    if (this.#options.engine === 'sqlite') return 'sqlite';
    return (await this.#options.postgres?.tools()) ? 'pg-dump' : 'corpus-jsonl-gz';
  }

  /** A dump restores only on PostgreSQL with the client tools, into the schema it came from. */
  async #checkPgDump(run: BackupRun): Promise<void> {
    const postgres = this.#options.postgres;
    if (this.#options.engine !== 'postgres' || !postgres)
      throw new BackupPathError('name: a pg_dump backup restores only on PostgreSQL');
    if ((await postgres.tools()) === null)
      throw new BackupPathError('name: restoring a pg_dump backup needs pg_restore and psql, which are not installed');
    const schema = await postgres.schema();
    if (run.schema !== undefined && run.schema !== schema)
      throw new BackupPathError(`name: the backup holds schema "${run.schema}", this deployment uses "${schema}"`);
  }

  #sign(run: BackupRun, expires: number): string {
    return createHmac('sha256', this.#secret).update(`${run.name}\0${run.sha256}\0${expires}`).digest('hex');
  }

  async #backup(label: string, context: JobContext): Promise<JobOutcome> {
    const { folder } = this.#options;
    await ensurePrivateDir(folder);
    let format = await this.#format();
    const startedAt = this.#options.now();
    const name = (chosen: BackupFormat) => newRunName(startedAt, label, chosen);
    let path = runPath(folder, name(format));
    let temp = `${path}.partial`;
    let schema: string | undefined;
    try {
      const contexts = await this.#options.corpus.countContexts();
      context.progress(0, `backing up ${contexts} contexts`, { code: 'backup.started', params: { contexts } });
      if (format === 'sqlite') {
        const backup = this.#options.sqliteBackup;
        if (!backup) throw new Error('this engine has no online backup');
        await backup(temp, (copied, total) =>
          context.progress(Math.round((copied / Math.max(1, total)) * 95), `${copied}/${total} pages`, {
            code: 'backup.pages',
            params: { copied, total },
          }),
        );
      }
      if (format === 'pg-dump') {
        try {
          schema = await this.#pgDump(temp, context);
        } catch (error) {
          if (!(error instanceof PgToolError)) throw error;
          // Still a backup: the portable file of the corpus, which any engine can import.
          await rm(temp, { force: true });
          context.line(`${error.message}; writing the portable corpus file instead`);
          format = 'corpus-jsonl-gz';
          path = runPath(folder, name(format));
          temp = `${path}.partial`;
        }
      }
      if (format === 'corpus-jsonl-gz') {
        await exportCorpus(this.#options.corpus, temp, {
          generator: `chorus ${this.#options.version}`,
          nowSec: Math.floor(this.#options.now() / 1000),
          onProgress: (done, total) =>
            context.progress(Math.round((done / Math.max(1, total)) * 95), `${done}/${total} contexts`, {
              code: 'corpus_file.progress',
              params: { done, total },
            }),
        });
      }
      await rename(temp, path);
      const run: BackupRun = {
        name: name(format),
        label,
        engine: this.#options.engine,
        format,
        created_at: Math.floor(this.#options.now() / 1000),
        bytes: (await stat(path)).size,
        sha256: await sha256Of(path),
        contexts,
        ...(schema !== undefined ? { schema } : {}),
      };
      await writeRunDescription(folder, run);
      return {
        result: { ...run },
        message: `backup ${run.name} written (${run.bytes} bytes)`,
        text: { code: 'backup.written', params: { name: run.name, bytes: run.bytes } },
      };
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  /** pg_dump of Chorus's tables; answers the schema they are in. */
  async #pgDump(destination: string, context: JobContext): Promise<string> {
    const postgres = this.#options.postgres;
    const tools = await postgres?.tools();
    if (!postgres || !tools) throw new PgToolError('pg_dump is not installed');
    const schema = await postgres.schema();
    const tables = [...CHORUS_TABLES, ...MIGRATION_TABLES];
    let done = 0;
    context.line(`${tools.version}: schema ${schema}`);
    await pgDump(tools, postgres.url, schema, tables, destination, {
      signal: context.signal,
      env: postgres.env,
      onTable: (table) => {
        done++;
        context.progress(Math.round((done / tables.length) * 95), `dumping ${table} (${done}/${tables.length})`, {
          code: 'backup.dumping',
          params: { table, done, total: tables.length },
        });
      },
    });
    return schema;
  }
}
