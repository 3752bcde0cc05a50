import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface Stalled<T> {
  result: T;
  /** The worst event-loop delay seen while the work ran, in milliseconds. */
  maxStallMs: number;
  elapsedMs: number;
}

/**
 * Run `work` while sampling event-loop delay at 1 ms resolution. The histogram's max is the
 * longest time a timer was held up, i.e. the longest the process could not answer anything.
 */
export async function withStallMonitor<T>(work: () => Promise<T>): Promise<Stalled<T>> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  // The histogram records the gap between two of its timer ticks: a stall before the first tick
  // would go unseen, so let it tick before the work starts.
  await new Promise((resolve) => setTimeout(resolve, 5));
  const started = performance.now();
  try {
    const result = await work();
    const elapsedMs = performance.now() - started;
    // Let the monitor's timer fire once more so a stall at the very end is recorded too.
    await new Promise((resolve) => setTimeout(resolve, 5));
    return { result, maxStallMs: histogram.max / 1e6, elapsedMs };
  } finally {
    histogram.disable();
  }
}
