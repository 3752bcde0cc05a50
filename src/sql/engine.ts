import type { Kysely, MigrationProvider } from 'kysely';
import type { PoolPressure } from '../ports/pool-pressure.ts';
import type { EngineKind } from './engine-kind.ts';
import { exec, first, rows, type BoundQuery, type Program } from './program.ts';

export type { EngineKind };

/**
 * The migrations an engine applies, given by its owner: the bot's store passes its set
 * (src/store/migrations.ts), the community hub its own (src/hub/migrations.ts) with its own
 * bookkeeping table names, so that both may share one database.
 */
export interface MigrationSet {
  readonly provider: MigrationProvider;
  /** Kysely's bookkeeping tables (default `kysely_migration` and `kysely_migration_lock`). */
  readonly tableName?: string;
  readonly lockTableName?: string;
}

export interface RunOptions {
  /** Run as one transaction (all or nothing). Reads run without one. */
  write?: boolean;
  /**
   * The unit of work of a worker that waits on pool pressure itself (the learn worker): it is not
   * counted in `pressure()` (docs/rules.md#store-pressure), or that worker would shed its own load.
   */
  background?: boolean;
}

/**
 * One database engine: runs units of work (see program.ts) and reports pool pressure.
 * `db` is used to build and compile queries in the engine's dialect, and for migrations.
 * `DB` is the schema type of whoever owns the engine (src/store/schema.ts, src/hub/schema.ts).
 */
export interface SqlEngine<DB> extends PoolPressure {
  readonly kind: EngineKind;
  readonly db: Kysely<DB>;
  /**
   * Whether a unit of work may run long without stalling the process. False for SQLite, whose
   * calls hold the event loop: bulk work there is cut into short transactions instead.
   */
  readonly longTransactions: boolean;
  run<T>(program: () => Program<T>, options?: RunOptions): Promise<T>;
  migrate(): Promise<void>;
  /** SQLite only: a consistent online copy of the database file (backups). */
  backupTo?(destination: string, onProgress?: (copiedPages: number, totalPages: number) => void): Promise<void>;
  close(): Promise<void>;
}

/** The `code` a driver error carries (pg: SQLSTATE; better-sqlite3 and node: a name), if any. */
export function errorCode(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
}

/** One statement read on its own (no transaction): its rows, typed by the statement. */
export function readRows<DB, O>(engine: SqlEngine<DB>, query: BoundQuery<O>): Promise<O[]> {
  return engine.run(() => rows(query));
}

/** One statement read on its own: its first row, if any. */
export function readFirst<DB, O>(engine: SqlEngine<DB>, query: BoundQuery<O>): Promise<O | undefined> {
  return engine.run(() => first(query));
}

/** One statement written in its own transaction: the number of rows it changed. */
export function writeOne<DB>(engine: SqlEngine<DB>, query: BoundQuery): Promise<number> {
  return engine.run(() => exec(query), { write: true });
}

export function isUniqueViolation(error: unknown): boolean {
  const code = errorCode(error);
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Migrator options for a migration set (only the table names that were given). */
export function migratorTables(set: MigrationSet): { migrationTableName?: string; migrationLockTableName?: string } {
  return {
    ...(set.tableName !== undefined ? { migrationTableName: set.tableName } : {}),
    ...(set.lockTableName !== undefined ? { migrationLockTableName: set.lockTableName } : {}),
  };
}
