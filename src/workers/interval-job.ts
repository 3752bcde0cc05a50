import type { Log } from '../common/log.ts';
import { errorMessage } from '../common/errors.ts';

export interface IntervalJobOptions {
  label: string;
  firstDelayMs: number;
  intervalMs: number;
  run: () => Promise<void>;
  log: Log;
}

export interface IntervalJobCounters {
  runs: number;
  failures: number;
  /** Ticks that found the previous run still going: coalesced into it rather than overlapping. */
  coalesced: number;
}

/**
 * A periodic job (the origin's APScheduler jobs: first delay, interval, coalesce, one instance).
 * A tick that finds the previous run still going is skipped and counted; a failing run is logged
 * and the schedule goes on. `reschedule` re-registers it with new timings (config changes).
 */
export class IntervalJob {
  readonly counters: IntervalJobCounters = { runs: 0, failures: 0, coalesced: 0 };
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #options: IntervalJobOptions;
  #started = false;
  /** Bumped by every start and reschedule: a run of an older schedule does not schedule again. */
  #generation = 0;

  constructor(options: IntervalJobOptions) {
    this.#options = options;
  }

  get started(): boolean {
    return this.#started;
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#generation++;
    this.#schedule(this.#options.firstDelayMs);
  }

  /** New timings; the next run is one first-delay away, as after a start. */
  reschedule(timings: Pick<IntervalJobOptions, 'firstDelayMs' | 'intervalMs'>): void {
    this.#options = { ...this.#options, ...timings };
    if (!this.#started) return;
    clearTimeout(this.#timer);
    this.#generation++;
    this.#schedule(this.#options.firstDelayMs);
  }

  /** Runs now unless a run is going (then joins it). */
  runNow(): Promise<void> {
    if (this.#running) {
      this.counters.coalesced++;
      return this.#running;
    }
    this.#running = this.#execute().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** Stops the schedule and waits for a run in progress. */
  async stop(): Promise<void> {
    this.#started = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  #schedule(delayMs: number): void {
    const generation = this.#generation;
    this.#timer = setTimeout(() => {
      void this.runNow().then(() => {
        // A stop and a start (or a reschedule) during the run began a schedule of its own.
        if (this.#started && generation === this.#generation) this.#schedule(this.#options.intervalMs);
      });
    }, delayMs);
    this.#timer.unref();
  }

  async #execute(): Promise<void> {
    try {
      await this.#options.run();
      this.counters.runs++;
    } catch (error) {
      this.counters.failures++;
      this.#options.log.warn({ job: this.#options.label, error: errorMessage(error) }, 'scheduled job failed');
    }
  }
}
