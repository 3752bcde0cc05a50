/** Time as the service sees it; tests pass a fake to drive schedules and TTLs. */
export interface Clock {
  /** Wall time in unix milliseconds (for stored times). */
  nowMs(): number;
  /** Monotonic milliseconds (for durations, TTLs and rate windows). */
  monotonicMs(): number;
}

export const systemClock: Clock = {
  nowMs: () => Date.now(),
  monotonicMs: () => performance.now(),
};

/** A clock that only moves when told to. */
export class FakeClock implements Clock {
  #ms: number;

  constructor(startMs = 1_700_000_000_000) {
    this.#ms = startMs;
  }

  nowMs(): number {
    return this.#ms;
  }

  monotonicMs(): number {
    return this.#ms;
  }

  advance(ms: number): void {
    this.#ms += ms;
  }
}
