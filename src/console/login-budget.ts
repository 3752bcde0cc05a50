/**
 * A failure budget for the whole console (docs/rules.md#console-auth): the per-address limit
 * (login-limiter.ts) does nothing against guesses spread over many addresses (issue 33: 200
 * addresses made 2,000 guesses in one window). Failed credentials from every address count in one
 * window; once they reach the budget, token checks are paced for the rest of that window: one
 * every `spacingMs` across the console, the others answered 429 `login_slowed` with a short
 * Retry-After whatever their token, so the right token still gets in after a short wait while
 * guessing drops to one try a second. Session cookies are not paced (they cannot be guessed).
 */
export interface LoginBudgetLimits {
  /** Failures in one window, from every address together, before checks are paced. */
  budget: number;
  windowMs: number;
  /** While paced: one token check per this many milliseconds. */
  spacingMs: number;
}

export type BudgetVerdict = { allowed: true } | { allowed: false; retryAfterSec: number };

export interface LoginBudgetStats {
  failures_in_window: number;
  budget: number;
  slowed: boolean;
  failures_total: number;
  slowed_refusals: number;
}

export class LoginBudget {
  #windowStartedAt = Number.NEGATIVE_INFINITY;
  #failures = 0;
  #lastCheckAt = Number.NEGATIVE_INFINITY;
  #failuresTotal = 0;
  #refusals = 0;

  constructor(
    private readonly limits: () => LoginBudgetLimits,
    private readonly now: () => number,
  ) {}

  /** Whether a token check may go ahead now; a check that goes ahead takes the next turn. */
  admit(): BudgetVerdict {
    const { spacingMs } = this.limits();
    const now = this.now();
    if (this.slowed()) {
      const waitMs = this.#lastCheckAt + spacingMs - now;
      if (waitMs > 0) {
        this.#refusals++;
        return { allowed: false, retryAfterSec: Math.max(1, Math.ceil(waitMs / 1000)) };
      }
    }
    this.#lastCheckAt = now;
    return { allowed: true };
  }

  /** Counts a failed credential; true when this one used up the budget (the slowing starts). */
  recordFailure(): boolean {
    const { budget, windowMs } = this.limits();
    const now = this.now();
    if (now - this.#windowStartedAt >= windowMs) {
      this.#windowStartedAt = now;
      this.#failures = 0;
    }
    this.#failures++;
    this.#failuresTotal++;
    return this.#failures === budget;
  }

  slowed(): boolean {
    const { budget, windowMs } = this.limits();
    return this.now() - this.#windowStartedAt < windowMs && this.#failures >= budget;
  }

  stats(): LoginBudgetStats {
    const { budget, windowMs } = this.limits();
    const current = this.now() - this.#windowStartedAt < windowMs ? this.#failures : 0;
    return {
      failures_in_window: current,
      budget,
      slowed: this.slowed(),
      failures_total: this.#failuresTotal,
      slowed_refusals: this.#refusals,
    };
  }
}
