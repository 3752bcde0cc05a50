/**
 * The backfill schedule (docs/rules.md#backfill): an interval job, every CHORUS_CORPUS_BACKFILL_INTERVAL_SEC
 * (1800 s), the first run 120 s after registration, coalesced, one instance. It is registered
 * while backfill is enabled on a primary; each round checks the rest of the eligibility itself
 * (contribution, enrollment, repository), since enrollment may complete after startup.
 * `reregister()` runs when a backfill setting is saved.
 */
import type { ConfigSnapshot } from '../config/index.ts';
import { BACKFILL_FIRST_DELAY_MS, type Backfill } from '../community/backfill.ts';
import type { Log } from '../common/log.ts';
import { IntervalJob } from './interval-job.ts';

export interface BackfillJobOptions {
  backfill: Backfill;
  config: () => ConfigSnapshot;
  log: Log;
}

export class BackfillJob {
  readonly job: IntervalJob;
  #reregistered = 0;

  constructor(private readonly options: BackfillJobOptions) {
    this.job = new IntervalJob({
      label: 'corpus_backfill',
      firstDelayMs: BACKFILL_FIRST_DELAY_MS,
      intervalMs: options.config().backfill.intervalSec * 1000,
      log: options.log,
      run: async () => {
        await options.backfill.runRound();
      },
    });
  }

  /** Whether the job should be registered: backfill enabled, and not a shard worker. */
  wanted(): boolean {
    const config = this.options.config();
    return config.backfill.enabled && config.server.shardRole !== 'worker';
  }

  /** Registers the job when wanted, removes it otherwise. */
  sync(): void {
    if (this.wanted()) this.job.start();
    else void this.job.stop();
  }

  /** Removes and re-adds the job with the current settings (first run 120 s from now). */
  reregister(): { detail: string } {
    this.#reregistered++;
    this.job.reschedule({
      firstDelayMs: BACKFILL_FIRST_DELAY_MS,
      intervalMs: this.options.config().backfill.intervalSec * 1000,
    });
    this.sync();
    return {
      detail: this.job.started
        ? `backfill job registered (every ${this.options.config().backfill.intervalSec} s)`
        : 'backfill job not registered (disabled or shard worker)',
    };
  }

  stop(): Promise<void> {
    return this.job.stop();
  }

  counters(): Record<string, number> {
    return { ...this.job.counters, reregistered: this.#reregistered, registered: this.job.started ? 1 : 0 };
  }
}
