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

/**
 * Waits for `work` to settle, at most `timeoutMs` (a rejection still rejects); the work goes on
 * after the time is up. True when it settled in time. The timer does not keep the process alive:
 * shutdown uses this, and it is the one "wait at most" of the code base (task sets, workers,
 * lifecycle scopes).
 */
export async function waitAtMost(work: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeUp = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, timeoutMs));
    timer.unref();
  });
  try {
    return await Promise.race([work.then(() => true as const), timeUp]);
  } finally {
    clearTimeout(timer);
  }
}

/** A time budget that started now: `left()` is what remains of it, never below zero. */
export function deadlineFrom(nowMs: () => number, budgetMs: number): { left(): number } {
  const began = nowMs();
  return { left: () => Math.max(0, budgetMs - (nowMs() - began)) };
}
