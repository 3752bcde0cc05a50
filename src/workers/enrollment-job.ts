/**
 * Enrollment on a schedule (docs/rules.md#enroll: startup or scheduled enrollment): one
 * check at start (not awaited: startup never blocks on the hub; a failure only warns), then one
 * every cool-down (5 min), which re-enrolls when the credential expired, the policy locked
 * contribution out, or the startup attempt failed. A configuration change checks again at once.
 * Never on a shard worker.
 */
import { ENROLL_COOLDOWN_MS, type Enrollment } from '../community/enrollment.ts';
import type { Log } from '../common/log.ts';
import { IntervalJob } from './interval-job.ts';
import { errorMessage } from '../common/errors.ts';

export interface EnrollmentJobOptions {
  enrollment: Enrollment;
  isShardWorker: () => boolean;
  log: Log;
}

export class EnrollmentJob {
  readonly job: IntervalJob;
  #inflight: Promise<void> | null = null;
  /** A check was asked for since the running one read the configuration: check again. */
  #again = false;

  constructor(private readonly options: EnrollmentJobOptions) {
    this.job = new IntervalJob({
      label: 'corpus_enrollment_check',
      firstDelayMs: ENROLL_COOLDOWN_MS,
      intervalMs: ENROLL_COOLDOWN_MS,
      log: options.log,
      run: () => this.check(),
    });
  }

  /** The startup check (in the background) and the periodic ones; nothing on a shard worker. */
  start(): void {
    if (this.options.isShardWorker()) return;
    void this.check();
    this.job.start();
  }

  /** Follows a configuration change: checks now (within the cool-down), or stops on a worker. */
  sync(): void {
    if (this.options.isShardWorker()) {
      void this.job.stop();
      return;
    }
    void this.check();
    this.job.start();
  }

  /**
   * One check now. A call while a check runs makes that check run once more when it ends, so a
   * check always sees the configuration as of its call. Never rejects.
   */
  check(): Promise<void> {
    this.#again = true;
    if (this.#inflight) return this.#inflight;
    const loop = async () => {
      while (this.#again) {
        this.#again = false;
        try {
          await this.options.enrollment.ensure();
        } catch (error) {
          this.options.log.warn(
            { error: errorMessage(error) },
            'community enrollment check failed',
          );
        }
      }
      // Cleared in the same step that saw no further request, so none can be lost.
      this.#inflight = null;
    };
    this.#inflight = loop();
    return this.#inflight;
  }

  async stop(): Promise<void> {
    await this.job.stop();
    await this.#inflight;
  }
}
