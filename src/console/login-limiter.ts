/**
 * Failed console credentials per client address in a fixed window, whichever route presented
 * them (src/console/access.ts; 429 with Retry-After). Only failures count: a caller who knows a token gains nothing from it, and a
 * success does not reset the count, so a valid read token cannot be used to keep guessing the
 * write token. Memory is bounded: expired windows are swept, then the oldest address goes.
 */
export interface LoginLimits {
  maxFailures: number;
  windowMs: number;
}

export type LoginVerdict = { allowed: true } | { allowed: false; retryAfterSec: number };

interface Window {
  startedAt: number;
  failures: number;
}

export class LoginLimiter {
  readonly #windows = new Map<string, Window>();

  constructor(
    private readonly limits: () => LoginLimits,
    private readonly now: () => number,
    private readonly maxAddresses: number,
  ) {}

  check(address: string): LoginVerdict {
    const { maxFailures, windowMs } = this.limits();
    const window = this.#current(address, windowMs);
    if (window === undefined || window.failures < maxFailures) return { allowed: true };
    const remainingMs = window.startedAt + windowMs - this.now();
    return { allowed: false, retryAfterSec: Math.max(1, Math.ceil(remainingMs / 1000)) };
  }

  recordFailure(address: string): void {
    const { windowMs } = this.limits();
    const window = this.#current(address, windowMs);
    if (window !== undefined) {
      window.failures++;
      return;
    }
    if (this.#windows.size >= this.maxAddresses) this.#sweep(windowMs);
    this.#windows.set(address, { startedAt: this.now(), failures: 1 });
  }

  #current(address: string, windowMs: number): Window | undefined {
    const window = this.#windows.get(address);
    if (window === undefined) return undefined;
    if (this.now() - window.startedAt >= windowMs) {
      this.#windows.delete(address);
      return undefined;
    }
    return window;
  }

  #sweep(windowMs: number): void {
    const now = this.now();
    for (const [address, window] of this.#windows)
      if (now - window.startedAt >= windowMs) this.#windows.delete(address);
    while (this.#windows.size >= this.maxAddresses) {
      const oldest = this.#windows.keys().next();
      if (oldest.done === true) break;
      this.#windows.delete(oldest.value);
    }
  }
}
