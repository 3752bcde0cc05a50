/** Typed errors that cross layers; the console maps them to HTTP statuses. */

/** The database could not hand out a connection in time (pool exhausted, SQLite busy). */
export class PoolTimeoutError extends Error {
  override readonly name = 'PoolTimeoutError';
}

/** Bad input from a caller, naming the offending field. */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}
