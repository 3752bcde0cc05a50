/**
 * Reading a service's Prometheus metrics (GET {base}/api/metrics) for benchmarks that drive child
 * processes: counters and gauges by name and labels, and histograms subtracted between two scrapes
 * with their quantiles estimated as Prometheus's histogram_quantile does (linear within a bucket).
 */
import parsePrometheusTextFormat, { type PromFamily } from 'parse-prometheus-text-format';

export class Scrape {
  readonly #families: Map<string, PromFamily>;

  constructor(text: string) {
    this.#families = new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]));
  }

  /** The sum of the samples of `name` whose labels include `labels` (0 when there are none). */
  value(name: string, labels: Record<string, string> = {}): number {
    let total = 0;
    for (const sample of this.#families.get(name)?.metrics ?? []) {
      if (Object.entries(labels).every(([key, value]) => sample.labels?.[key] === value)) total += Number(sample.value);
    }
    return total;
  }

  /** The first (unlabelled) histogram `name`: cumulative counts by upper bound, ascending. */
  histogram(name: string): Histogram {
    const sample = this.#families.get(name)?.metrics[0];
    const buckets = Object.entries(sample?.buckets ?? {})
      .map(([bound, count]) => ({
        le: bound === '+Inf' ? Number.POSITIVE_INFINITY : Number(bound),
        count: Number(count),
      }))
      .sort((a, b) => a.le - b.le);
    return { buckets, count: Number(sample?.count ?? 0), sum: Number(sample?.sum ?? 0) };
  }
}

export interface Histogram {
  buckets: { le: number; count: number }[];
  count: number;
  sum: number;
}

/** What was observed between two scrapes of the same histogram. */
export function histogramDelta(before: Histogram, after: Histogram): Histogram {
  const earlier = new Map(before.buckets.map((bucket) => [bucket.le, bucket.count]));
  return {
    buckets: after.buckets.map((bucket) => ({ le: bucket.le, count: bucket.count - (earlier.get(bucket.le) ?? 0) })),
    count: after.count - before.count,
    sum: after.sum - before.sum,
  };
}

/** Histograms of several processes added up (same buckets). */
export function histogramSum(histograms: readonly Histogram[]): Histogram {
  const counts = new Map<number, number>();
  for (const histogram of histograms) {
    for (const bucket of histogram.buckets) counts.set(bucket.le, (counts.get(bucket.le) ?? 0) + bucket.count);
  }
  return {
    buckets: [...counts].map(([le, count]) => ({ le, count })).sort((a, b) => a.le - b.le),
    count: histograms.reduce((sum, histogram) => sum + histogram.count, 0),
    sum: histograms.reduce((sum, histogram) => sum + histogram.sum, 0),
  };
}

/**
 * The q-quantile (0..1), linear within its bucket; NaN with no observations, the largest finite
 * bound when it falls in +Inf (the figure is then "more than that").
 */
export function quantile(histogram: Histogram, q: number): number {
  if (histogram.count <= 0) return Number.NaN;
  const rank = q * histogram.count;
  let lower = 0;
  let below = 0;
  for (const bucket of histogram.buckets) {
    if (bucket.count >= rank) {
      if (!Number.isFinite(bucket.le)) return lower;
      const inBucket = bucket.count - below;
      return inBucket > 0 ? lower + ((bucket.le - lower) * (rank - below)) / inBucket : bucket.le;
    }
    lower = bucket.le;
    below = bucket.count;
  }
  return lower;
}

/** The share of observations at or under `bound` (a bucket bound, for an exact answer). */
export function shareAtMost(histogram: Histogram, bound: number): number {
  if (histogram.count <= 0) return Number.NaN;
  const bucket = histogram.buckets.find((candidate) => candidate.le >= bound);
  return (bucket?.count ?? histogram.count) / histogram.count;
}

/** Scrapes `{consoleUrl}api/metrics` with the read token. */
export async function scrape(consoleUrl: string, token: string): Promise<Scrape> {
  const response = await fetch(`${consoleUrl}api/metrics`, { headers: { 'x-chorus-token': token } });
  const text = await response.text();
  if (!response.ok) throw new Error(`metrics answered ${response.status}: ${text.slice(0, 200)}`);
  return new Scrape(text);
}
