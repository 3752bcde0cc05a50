/**
 * Listeners run synchronously in arrival order; one that throws (or rejects) is reported and the
 * others still run, so a consumer's bug never breaks a connection.
 */
export function emitSafely(
  listeners: readonly unknown[],
  self: unknown,
  args: readonly unknown[],
  failed: (error: unknown) => void,
): void {
  for (const listener of listeners as ((...args: unknown[]) => unknown)[]) {
    try {
      const result = listener.apply(self, args as unknown[]);
      if (result instanceof Promise) result.catch(failed);
    } catch (error) {
      failed(error);
    }
  }
}
