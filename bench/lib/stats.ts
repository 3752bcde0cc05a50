/** Latency samples and their percentiles (nearest rank), in whatever unit they were recorded. */

export interface Summary {
  count: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentile of an ascending array; `p` in 0..100. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

/** A fixed-capacity sample buffer: no allocation while measuring. */
export class Samples {
  readonly #values: Float64Array;
  #count = 0;

  constructor(capacity: number) {
    this.#values = new Float64Array(capacity);
  }

  add(value: number): void {
    if (this.#count < this.#values.length) this.#values[this.#count++] = value;
  }

  get count(): number {
    return this.#count;
  }

  summary(): Summary {
    const sorted = this.#values.slice(0, this.#count).sort();
    let total = 0;
    for (const value of sorted) total += value;
    return {
      count: sorted.length,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted[sorted.length - 1] ?? Number.NaN,
      mean: sorted.length ? total / sorted.length : Number.NaN,
    };
  }
}

/** `ours / bare`, or NaN when the bare figure is missing or zero. */
export function ratio(ours: number, bare: number): number {
  return bare > 0 && Number.isFinite(bare) ? ours / bare : Number.NaN;
}
