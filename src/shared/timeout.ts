/** Returned by `withTimeout` when the time ran out first. */
export const TIMED_OUT: unique symbol = Symbol('timed out');

/**
 * The value of `promise`, or TIMED_OUT after `timeoutMs` (0 or less waits without bound). The
 * promise goes on; a caller that no longer wants it must handle its rejection. The timer is not
 * unref'd: a caller is waiting on it, and it is cleared as soon as the promise settles.
 */
export function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T | typeof TIMED_OUT> {
  if (timeoutMs <= 0) return promise;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
