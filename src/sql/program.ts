/**
 * A unit of work written once for both engines.
 *
 * SQLite (better-sqlite3) is synchronous and has one connection: a transaction must run without
 * yielding to the event loop, or other work would interleave inside it. PostgreSQL is asynchronous.
 * A generator expresses the unit of work as a sequence of statements; each engine drives it its own
 * way (synchronously inside `db.transaction`, or awaiting each statement on one pooled client), so
 * every repository operation has a single definition.
 */

/**
 * A statement ready to run: SQL text in the engine's dialect plus positional parameters. `O` is the
 * type of its rows (from Kysely, see query.ts); it is never set at run time, only carried in types.
 */
export interface BoundQuery<O = unknown> {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  /** Hot statements are prepared once and reused (named prepared statements on PostgreSQL). */
  readonly prepared?: boolean;
  /** Type only: the row type, so that `rows`/`first` infer it. Always absent. */
  readonly row?: O;
}

export type StepKind = 'rows' | 'exec';

export interface Step {
  readonly query: BoundQuery;
  readonly kind: StepKind;
}

/** A unit of work that yields statements and finally returns T. */
export type Program<T> = Generator<Step, T, unknown>;

/**
 * Yields one step and receives the engine's answer. Each engine answers a `rows` step with the
 * statement's rows and an `exec` step with a changed-row count (engine-sqlite.ts,
 * engine-postgres.ts); the generator protocol types every answer `unknown`, so that contract is
 * restated here, in the one place a step's answer is typed.
 */
function* step<T>(query: BoundQuery, kind: StepKind): Generator<Step, T, unknown> {
  return (yield { query, kind }) as T;
}

/** Run a statement and receive its rows. */
export function* rows<O>(query: BoundQuery<O>): Generator<Step, O[], unknown> {
  return yield* step<O[]>(query, 'rows');
}

/** Run a statement and receive its first row, if any. */
export function* first<O>(query: BoundQuery<O>): Generator<Step, O | undefined, unknown> {
  const result = yield* step<O[]>(query, 'rows');
  return result[0];
}

/** Run a statement for its effect; receive the number of rows it changed. */
export function* exec(query: BoundQuery): Generator<Step, number, unknown> {
  return yield* step<number>(query, 'exec');
}
