import { SQLITE_PRESSURE_WINDOW_MS } from '../common/limits.ts';

const BUCKETS = 10;
const BUCKET_MS = SQLITE_PRESSURE_WINDOW_MS / BUCKETS;

/**
 * The fraction of wall time spent busy over the last second, for SQLite's pool pressure
 * (docs/rules.md#store-pressure: SQLite has no pool). Ten 100 ms buckets: recording and reading are O(10),
 * no allocation, cheap enough to call on every message.
 */
export class BusyWindow {
  readonly #busyMs = new Float64Array(BUCKETS);
  readonly #epoch = new Float64Array(BUCKETS).fill(-1);

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Record `durationMs` of busy time that ended now. */
  record(durationMs: number): void {
    const epoch = Math.floor(this.now() / BUCKET_MS);
    const slot = epoch % BUCKETS;
    if (this.#epoch[slot] !== epoch) {
      this.#epoch[slot] = epoch;
      this.#busyMs[slot] = 0;
    }
    this.#busyMs[slot] = (this.#busyMs[slot] ?? 0) + durationMs;
  }

  /** Busy fraction over the last window, 0..1. */
  fraction(): number {
    const current = Math.floor(this.now() / BUCKET_MS);
    let total = 0;
    for (let slot = 0; slot < BUCKETS; slot++) {
      const epoch = this.#epoch[slot] ?? -1;
      if (epoch > current - BUCKETS && epoch <= current) total += this.#busyMs[slot] ?? 0;
    }
    return Math.min(1, total / SQLITE_PRESSURE_WINDOW_MS);
  }
}
