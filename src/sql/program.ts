/**
 * A unit of work written once for both engines.
 *
 * SQLite (better-sqlite3) is synchronous and has one connection: a transaction must run without
 * yielding to the event loop, or other work would interleave inside it. PostgreSQL is asynchronous.
 * A generator expresses the unit of work as a sequence of statements; each engine drives it its own
 * way (synchronously inside `db.transaction`, or awaiting each statement on one pooled client), so
 * every repository operation has a single definition.
 */

/** A statement ready to run: SQL text in the engine's dialect plus positional parameters. */
export interface BoundQuery {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  /** Hot statements are prepared once and reused (named prepared statements on PostgreSQL). */
  readonly prepared?: boolean;
}

export type StepKind = 'rows' | 'exec';

export interface Step {
  readonly query: BoundQuery;
  readonly kind: StepKind;
}

/** A unit of work that yields statements and finally returns T. */
export type Program<T> = Generator<Step, T, unknown>;

/** Run a statement and receive its rows. */
export function* rows<R>(query: BoundQuery): Generator<Step, R[], unknown> {
  return (yield { query, kind: 'rows' }) as R[];
}

/** Run a statement and receive its first row, if any. */
export function* first<R>(query: BoundQuery): Generator<Step, R | undefined, unknown> {
  const result = (yield { query, kind: 'rows' }) as R[];
  return result[0];
}

/** Run a statement for its effect; receive the number of rows it changed. */
export function* exec(query: BoundQuery): Generator<Step, number, unknown> {
  return (yield { query, kind: 'exec' }) as number;
}
