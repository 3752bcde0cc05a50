/**
 * The heartbeat schedule (docs/rules.md#heartbeat): every max(60, CHORUS_COMMUNITY_STATS_INTERVAL_SEC)
 * seconds, the first beat 60 s after start, coalesced, one instance; only on a primary with
 * reporting enabled and a hub configured. `sync()` follows configuration changes.
 */
import type { ConfigSnapshot } from '../config/index.ts';
import { HEARTBEAT_FIRST_DELAY_MS, type HeartbeatReporter } from '../community/heartbeat.ts';
import type { Log } from '../common/log.ts';
import { IntervalJob } from './interval-job.ts';

export interface HeartbeatJobOptions {
  reporter: HeartbeatReporter;
  config: () => ConfigSnapshot;
  log: Log;
}

export class HeartbeatJob {
  readonly job: IntervalJob;
  #intervalMs: number;

  constructor(private readonly options: HeartbeatJobOptions) {
    this.#intervalMs = this.#interval();
    this.job = new IntervalJob({
      label: 'community_stats_heartbeat',
      firstDelayMs: HEARTBEAT_FIRST_DELAY_MS,
      intervalMs: this.#intervalMs,
      log: options.log,
      run: async () => {
        await options.reporter.beat();
      },
    });
  }

  /** Starts, re-times or stops the job to match the configuration now. */
  sync(): void {
    const { reporter } = this.options;
    if (!reporter.active()) {
      reporter.noteIdle();
      void this.job.stop();
      return;
    }
    const interval = this.#interval();
    if (interval !== this.#intervalMs) {
      this.#intervalMs = interval;
      this.job.reschedule({ firstDelayMs: HEARTBEAT_FIRST_DELAY_MS, intervalMs: interval });
    }
    this.job.start();
  }

  stop(): Promise<void> {
    return this.job.stop();
  }

  #interval(): number {
    return Math.max(60, this.options.config().communityStats.intervalSec) * 1000;
  }
}
