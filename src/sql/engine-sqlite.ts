import { UNHEALTHY_AFTER_FAILURE_MS } from '../ports/pool-pressure.ts';
import { chmodSync, closeSync, openSync, statSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { LRUCache } from 'lru-cache';
import { PoolTimeoutError } from '../common/errors.ts';
import { SQLITE_CHECKPOINT_INTERVAL_MS, SQLITE_WAL_MAX_BYTES } from '../common/limits.ts';
import { BusyWindow } from './busy-window.ts';
import { WalCheckpointer } from './wal-checkpointer.ts';
import { errorCode, migratorTables, type MigrationSet, type RunOptions, type SqlEngine } from './engine.ts';
import type { Program, Step } from './program.ts';

const STATEMENT_CACHE_MAX = 500;

/** Pages copied per step of an online backup (4 KiB pages: about 1 MiB, a millisecond or two). */
const BACKUP_PAGES_PER_STEP = 256;

export interface SqliteEngineOptions {
  /** The owner's migrations (the bot's or the hub's). */
  migrations: MigrationSet;
  /** The WAL is truncated once past this size (default SQLITE_WAL_MAX_BYTES; tests use less). */
  walMaxBytes?: number;
}

/** SQLite through better-sqlite3: synchronous calls, one connection, WAL. */
export class SqliteEngine<DB> implements SqlEngine<DB> {
  readonly kind = 'sqlite' as const;
  readonly longTransactions = false;
  readonly db: Kysely<DB>;
  readonly #migrations: MigrationSet;
  readonly #raw: BetterSqlite3.Database;
  readonly #busy = new BusyWindow();
  #lastPoolFailureMs = Number.NEGATIVE_INFINITY;
  readonly #statements = new LRUCache<string, BetterSqlite3.Statement>({ max: STATEMENT_CACHE_MAX });
  readonly #checkpointer: WalCheckpointer | undefined;
  /** A statement of the unit of work under way wrote: the checkpointer is told once it ends. */
  #wrote = false;

  constructor(path: string, options: SqliteEngineOptions) {
    this.#migrations = options.migrations;
    const onDisk = path !== ':memory:' && path !== '';
    if (onDisk) makePrivate(path);
    this.#raw = new BetterSqlite3(path);
    this.#raw.pragma('journal_mode = WAL');
    // NORMAL in WAL mode loses at most the last transactions on power loss, never corrupts.
    this.#raw.pragma('synchronous = NORMAL');
    this.#raw.pragma('foreign_keys = ON');
    this.#raw.pragma('busy_timeout = 5000');
    this.#raw.pragma('cache_size = -65536');
    this.#raw.pragma('temp_store = MEMORY');
    // SQLite reuses a WAL file at its largest size; with a limit, the first commit after a
    // checkpoint has emptied it cuts the file back to this size. A TRUNCATE checkpoint from the
    // worker was tried and measured: it holds the writer's lock for the cut and stalled the loop
    // for 340 ms during a large import (bench:corpus-file), where this costs nothing visible.
    this.#raw.pragma(`journal_size_limit = ${Math.floor(options.walMaxBytes ?? SQLITE_WAL_MAX_BYTES)}`);
    if (onDisk) {
      this.#raw.pragma('wal_autocheckpoint = 0');
      this.#checkpointer = new WalCheckpointer(path, SQLITE_CHECKPOINT_INTERVAL_MS, () => {
        // Without the worker, SQLite's own checkpointing comes back rather than the WAL growing.
        if (this.#raw.open) this.#raw.pragma('wal_autocheckpoint = 1000');
      });
    }
    this.db = new Kysely<DB>({ dialect: new SqliteDialect({ database: this.#raw }) });
  }

  /**
   * The share of the last second the database was busy with units of work other than background
   * ones (docs/rules.md#store-pressure): the learn worker waits on this number and must not read
   * its own writes as load (it bounds them itself: one transaction per batch, yielding between).
   */
  pressure(): number {
    return this.#busy.fraction();
  }

  unhealthy(): boolean {
    return performance.now() - this.#lastPoolFailureMs < UNHEALTHY_AFTER_FAILURE_MS;
  }

  run<T>(program: () => Program<T>, options: RunOptions = {}): Promise<T> {
    const started = performance.now();
    try {
      const body = (): T => this.#drive(program());
      const result = options.write ? this.#raw.transaction(body).immediate() : body();
      return Promise.resolve(result);
    } catch (error) {
      const mapped = mapError(error);
      if (mapped instanceof PoolTimeoutError) this.#lastPoolFailureMs = performance.now();
      return Promise.reject(mapped);
    } finally {
      if (options.background !== true) this.#busy.record(performance.now() - started);
      if (this.#wrote) {
        this.#wrote = false;
        this.#checkpointer?.written();
      }
    }
  }

  /**
   * A consistent copy of the database at `destination`, made with SQLite's online backup API a
   * few hundred pages per step between which the event loop runs (the bot keeps answering and
   * learning; a write during the copy restarts it from that point, as the API does).
   */
  async backupTo(destination: string, onProgress?: (copiedPages: number, totalPages: number) => void): Promise<void> {
    await this.#raw.backup(destination, {
      progress: ({ totalPages, remainingPages }) => {
        onProgress?.(totalPages - remainingPages, totalPages);
        return BACKUP_PAGES_PER_STEP;
      },
    });
  }

  async migrate(): Promise<void> {
    const { error } = await new Migrator({
      db: this.db,
      provider: this.#migrations.provider,
      ...migratorTables(this.#migrations),
    }).migrateToLatest();
    if (error) throw error;
  }

  /** The WAL checkpointer of a database on disk (tests). */
  get checkpointer(): WalCheckpointer | undefined {
    return this.#checkpointer;
  }

  async close(): Promise<void> {
    await this.#checkpointer?.stop();
    this.#statements.clear();
    await this.db.destroy();
  }

  #drive<T>(iterator: Program<T>): T {
    let next = iterator.next();
    while (!next.done) next = iterator.next(this.#step(next.value));
    return next.value;
  }

  #step({ query, kind }: Step): unknown {
    let statement = this.#statements.get(query.sql);
    if (!statement) {
      statement = this.#raw.prepare(query.sql);
      this.#statements.set(query.sql, statement);
    }
    // Only a write asks for a checkpoint; an idle service reads nothing and so checkpoints nothing.
    if (!statement.readonly) this.#wrote = true;
    const parameters = query.parameters.map(toSqliteValue);
    return kind === 'rows' ? statement.all(parameters) : statement.run(parameters).changes;
  }
}

function toSqliteValue(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

function mapError(error: unknown): unknown {
  const code = errorCode(error);
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
    return new PoolTimeoutError(`database is busy: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return error;
}

/**
 * The database holds group messages and user numbers: it is created 0600, and an older file (or
 * its WAL and shared-memory files, which SQLite creates with the database's mode) readable by
 * others is made 0600.
 */
function makePrivate(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    let mode: number;
    try {
      mode = statSync(file).mode;
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
      if (file === path) {
        closeSync(openSync(path, 'a', 0o600));
        chmodSync(path, 0o600);
      }
      continue;
    }
    if ((mode & 0o077) !== 0) chmodSync(file, 0o600);
  }
}
