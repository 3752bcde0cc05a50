import type { Kysely, MigrationProvider } from 'kysely';
import type { PoolPressure } from '../ports/pool-pressure.ts';
import type { EngineKind } from './engine-kind.ts';
import type { Program } from './program.ts';
import type { Database } from './schema.ts';

export type { EngineKind };

/**
 * The migrations an engine applies. The bot's store uses its own set (the default); another
 * schema on the same machinery (the community hub) passes its provider and, so that both may
 * share one database, its own bookkeeping table names.
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
 * `DB` is the schema type (the bot's corpus by default).
 */
export interface SqlEngine<DB = Database> extends PoolPressure {
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

export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Migrator options for a migration set (only the table names that were given). */
export function migratorTables(set: MigrationSet): { migrationTableName?: string; migrationLockTableName?: string } {
  return {
    ...(set.tableName !== undefined ? { migrationTableName: set.tableName } : {}),
    ...(set.lockTableName !== undefined ? { migrationLockTableName: set.lockTableName } : {}),
  };
}
