/**
 * Sizes the steps of bulk work so that each synchronous call stays near a time target: a step
 * that ran long halves the next one, a quick one doubles it. Bulk work on SQLite uses it so that no
 * single call holds the event loop for long, whatever the shape of the data.
 */
export class AdaptiveChunk {
  #size: number;

  constructor(
    initial: number,
    private readonly min: number,
    private readonly max: number,
    private readonly targetMs: number,
  ) {
    this.#size = initial;
  }

  get size(): number {
    return this.#size;
  }

  /** Report how long the last step took. */
  record(elapsedMs: number): void {
    // Shrink in proportion to the overrun: a step ten times over target must not take three more.
    if (elapsedMs > this.targetMs) {
      this.#size = Math.max(this.min, Math.floor((this.#size * this.targetMs) / elapsedMs));
    } else if (elapsedMs < this.targetMs / 3) this.#size = Math.min(this.max, this.#size * 2);
  }
}

/** Let timers, I/O and other requests run between two steps of bulk work. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
