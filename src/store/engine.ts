import type { Kysely } from 'kysely';
import type { PoolPressure } from '../ports/pool-pressure.ts';
import type { EngineKind } from './migrations.ts';
import type { Program } from './program.ts';
import type { Database } from './schema.ts';

export type { EngineKind };

export interface RunOptions {
  /** Run as one transaction (all or nothing). Reads run without one. */
  write?: boolean;
}

/**
 * One database engine: runs units of work (see program.ts) and reports pool pressure.
 * `db` is used to build and compile queries in the engine's dialect, and for migrations.
 */
export interface SqlEngine extends PoolPressure {
  readonly kind: EngineKind;
  readonly db: Kysely<Database>;
  /**
   * Whether a unit of work may run long without stalling the process. False for SQLite, whose
   * calls hold the event loop: bulk work there is cut into short transactions instead.
   */
  readonly longTransactions: boolean;
  run<T>(program: () => Program<T>, options?: RunOptions): Promise<T>;
  migrate(): Promise<void>;
  close(): Promise<void>;
}

export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
