/** Deterministic pseudo-random numbers, so every run generates the same corpus for a seed. */

/** mulberry32: a fast 32-bit generator; returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A well-mixed 32-bit seed for item `index` of stream `seed` (splitmix-style finaliser). */
export function seedFor(seed: number, index: number): number {
  let h = (Math.imul(index, 0x9e3779b1) ^ seed) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** An integer in [min, max]. */
export function intBetween(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/** An index into `weights`, chosen with probability proportional to its weight. */
export function weighted(random: () => number, cumulative: readonly number[]): number {
  const total = cumulative[cumulative.length - 1] ?? 0;
  const target = random() * total;
  for (let index = 0; index < cumulative.length; index++) {
    if (target < (cumulative[index] ?? 0)) return index;
  }
  return cumulative.length - 1;
}

export function cumulativeOf(weights: readonly number[]): number[] {
  let sum = 0;
  return weights.map((weight) => (sum += weight));
}
