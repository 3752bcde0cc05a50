/** Typed errors that cross layers; the console maps them to HTTP statuses. */

/** The database could not hand out a connection in time (pool exhausted, SQLite busy). */
export class PoolTimeoutError extends Error {
  override readonly name = 'PoolTimeoutError';
}

/**
 * A lookup that could not be answered just now (the pool under pressure, a query past its
 * timeout, a pool timeout or its 2 s failure window): not a miss, so nothing may cache it as
 * "no context". The caller answers nothing this time and asks again next time.
 */
export class TransientLookupError extends Error {
  override readonly name = 'TransientLookupError';
  constructor(readonly reason: 'pressure' | 'timeout' | 'pool-timeout' | 'failure-window') {
    super(`lookup not answered now: ${reason}`);
  }
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

/** The message of anything thrown, for logs and error details (never a stack). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
