import { E_ALREADY_LOCKED, Semaphore, tryAcquire } from 'async-mutex';
import type { PoolPressure } from '../ports/pool-pressure.ts';
import { POOL_PRESSURE } from '../common/limits.ts';

export type ReleasePermit = () => void;

export interface RemoteBudgetCounters {
  skippedPressure: number;
  skippedBusy: number;
}

export interface RemoteBudgetOptions {
  pressure: PoolPressure;
  /** CHORUS_CORPUS_REMOTE_MAX_CONCURRENT. */
  maxConcurrent: number;
  /** Whether non-critical database work is to be skipped now (database unhealthy); absent: never. */
  skipNonCritical?: () => boolean;
}

/**
 * The remote budget (docs/rules.md#remote-budget): a pool-pressure gate (0.70 on the hot path, 0.55
 * in the background) and one process-wide semaphore. Hot-path reads never wait for a permit
 * (`tryReadPermit` gives up when contended); contributions wait for one (`contributePermit`). Skips are counted.
 */
export class RemoteBudget {
  readonly counters: RemoteBudgetCounters = { skippedPressure: 0, skippedBusy: 0 };
  #semaphore: Semaphore;
  #limit: number;

  constructor(private readonly options: RemoteBudgetOptions) {
    this.#limit = options.maxConcurrent;
    this.#semaphore = new Semaphore(this.#limit);
  }

  get limit(): number {
    return this.#limit;
  }

  /** A new limit takes a new semaphore; permits held on the old one are released to it. */
  setLimit(limit: number): void {
    if (limit === this.#limit) return;
    this.#limit = limit;
    this.#semaphore = new Semaphore(limit);
  }

  /** True (and counted) when remote work must be skipped for pressure. */
  shouldSkip(hotPath: boolean): boolean {
    const gate = hotPath ? POOL_PRESSURE.remoteHotPathGate : POOL_PRESSURE.remoteBackgroundGate;
    if (this.options.skipNonCritical?.() || this.options.pressure.pressure() >= gate) {
      this.counters.skippedPressure++;
      return true;
    }
    return false;
  }

  /**
   * A permit for one hot-path read (a reply lookup, a prefetch read), or null at once when the
   * hot-path gate is shut or every permit is taken: a read never waits. Release it when done.
   */
  tryReadPermit(): Promise<ReleasePermit | null> {
    return this.#acquire(true, false);
  }

  /**
   * A permit for one contribution (mirror, backfill): null when the background gate is shut,
   * otherwise it waits for a free permit. Release it when done.
   */
  contributePermit(): Promise<ReleasePermit | null> {
    return this.#acquire(false, true);
  }

  async #acquire(hotPath: boolean, wait: boolean): Promise<ReleasePermit | null> {
    if (this.shouldSkip(hotPath)) return null;
    const semaphore = this.#semaphore;
    if (wait) {
      const [, release] = await semaphore.acquire();
      return release;
    }
    try {
      const [, release] = await tryAcquire(semaphore).acquire();
      return release;
    } catch (error) {
      if (error !== E_ALREADY_LOCKED) throw error;
      this.counters.skippedBusy++;
      return null;
    }
  }

  /** The counters since the last drain, reset (the diagnostics tick reads them periodically). */
  drainCounters(): RemoteBudgetCounters {
    const snapshot = { ...this.counters };
    this.counters.skippedPressure = 0;
    this.counters.skippedBusy = 0;
    return snapshot;
  }
}
