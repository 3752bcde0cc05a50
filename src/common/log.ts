/** The logging surface the inner layers need; pino's Logger satisfies it. */
export interface Log {
  debug(object: object, message?: string): void;
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
}

/** A log that drops everything (tests that do not look at logs). */
export const silentLog: Log = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Logs one line per scope at most every `intervalMs`, counting what it held back, so a failing
 * dependency cannot flood the log.
 */
export class RateLimitedLog {
  readonly #last = new Map<string, { at: number; suppressed: number }>();

  constructor(
    private readonly log: Log,
    private readonly now: () => number,
    private readonly intervalMs = 60_000,
  ) {}

  warn(scope: string, object: object, message: string): void {
    const seen = this.#last.get(scope);
    const now = this.now();
    if (seen && now - seen.at < this.intervalMs) {
      seen.suppressed++;
      return;
    }
    this.log.warn({ ...object, scope, ...(seen?.suppressed ? { suppressed: seen.suppressed } : {}) }, message);
    this.#last.set(scope, { at: now, suppressed: 0 });
  }
}
