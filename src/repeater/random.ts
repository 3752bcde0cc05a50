/**
 * The repeater's randomness, injected so that tests (and a benchmark) can replay a run: every
 * random choice of the reply path goes through a `RandomSource`.
 */
export interface RandomSource {
  /** A number in [0, 1). */
  next(): number;
}

/** The platform's generator, for production. */
export const systemRandom: RandomSource = Object.freeze({ next: () => Math.random() });

/** A small deterministic generator (mulberry32) for tests and benchmarks. */
export function seededRandom(seed: number): RandomSource {
  let state = seed >>> 0;
  return {
    next() {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}

/** Index picked with probability proportional to its weight; -1 when no weight is positive. */
export function weightedIndex(weights: readonly number[], random: RandomSource): number {
  let total = 0;
  for (const weight of weights) if (weight > 0) total += weight;
  if (total <= 0) return -1;
  let point = random.next() * total;
  let last = -1;
  for (let index = 0; index < weights.length; index++) {
    const weight = weights[index] ?? 0;
    if (weight <= 0) continue;
    last = index;
    if (point < weight) return index;
    point -= weight;
  }
  return last;
}

/** A uniformly random element, or undefined for an empty list. */
export function pickOne<T>(items: readonly T[], random: RandomSource): T | undefined {
  if (items.length === 0) return undefined;
  return items[Math.min(items.length - 1, Math.floor(random.next() * items.length))];
}

/** A uniformly random number in [min, max]. */
export function between(min: number, max: number, random: RandomSource): number {
  return max <= min ? min : min + random.next() * (max - min);
}

/** Waits a human-like delay drawn from `range` (tests pass their own `sleep`). */
export function sleepBetween(
  range: { minMs: number; maxMs: number },
  random: RandomSource,
  sleep?: (ms: number) => Promise<void>,
): Promise<void> {
  const ms = between(range.minMs, range.maxMs, random);
  return sleep ? sleep(ms) : new Promise((resolve) => setTimeout(resolve, ms));
}
