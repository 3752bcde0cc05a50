/**
 * Contributions that could not be delivered (the hub unreachable or answering with an error),
 * or that were learned before the deployment enrolled, wait here and are sent again with
 * exponential back-off, so pairs learned during a hub outage or before the first enrollment
 * reach the community once it can be reached. The backlog is bounded: when it is full the new item is
 * dropped and counted. An item is given up (counted) after MAX_ATTEMPTS deliveries that failed.
 * What it holds was de-identified before it was first sent.
 */
import type { Context, LearnInput } from '../domain/corpus.ts';
import { RateLimitedLog, type Log } from '../common/log.ts';
import type { ContributeOutcome } from './community-client.ts';

export type RetryItem = { kind: 'insert'; context: Context } | { kind: 'upsert'; input: LearnInput };

/** Where a retry is delivered: the community client as built now. */
export interface RetryTarget {
  insert(context: Context): Promise<ContributeOutcome>;
  upsertAnswer(input: LearnInput): Promise<ContributeOutcome>;
}

export interface MirrorRetryCounters {
  queued: number;
  delivered: number;
  droppedFull: number;
  gaveUp: number;
  attemptsFailed: number;
}

export interface MirrorRetryOptions {
  target: () => RetryTarget | null;
  log: Log;
  /** Monotonic ms. */
  now: () => number;
  capacity?: number;
  firstDelayMs?: number;
  maxDelayMs?: number;
}

const CAPACITY = 2_048;
const FIRST_DELAY_MS = 1_000;
const MAX_DELAY_MS = 120_000;
const MAX_ATTEMPTS = 12;

interface Waiting {
  item: RetryItem;
  queuedAtMs: number;
  attempts: number;
}

export class MirrorRetry {
  readonly counters: MirrorRetryCounters = { queued: 0, delivered: 0, droppedFull: 0, gaveUp: 0, attemptsFailed: 0 };
  readonly #waiting: Waiting[] = [];
  readonly #options: MirrorRetryOptions;
  readonly #log: RateLimitedLog;
  #delayMs: number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;
  #unreachable = false;

  constructor(options: MirrorRetryOptions) {
    this.#options = options;
    this.#log = new RateLimitedLog(options.log, options.now);
    this.#delayMs = options.firstDelayMs ?? FIRST_DELAY_MS;
  }

  get size(): number {
    return this.#waiting.length;
  }

  /** The last delivery failed for want of a connection: new contributions should wait too. */
  get unreachable(): boolean {
    return this.#unreachable && this.#waiting.length > 0;
  }

  /** Seconds the oldest waiting item has waited (0 when none). */
  oldestAgeSec(): number {
    const oldest = this.#waiting[0];
    return oldest ? Math.round((this.#options.now() - oldest.queuedAtMs) / 1000) : 0;
  }

  /** `unreachable`: the hub could not be reached (rather than refusing). */
  add(item: RetryItem, unreachable = false): void {
    if (unreachable) this.#unreachable = true;
    if (this.#waiting.length >= (this.#options.capacity ?? CAPACITY)) {
      this.counters.droppedFull++;
      return;
    }
    this.#waiting.push({ item, queuedAtMs: this.#options.now(), attempts: 1 });
    this.counters.queued++;
    this.#schedule();
  }

  /**
   * A credential arrived (an enrollment, a reloaded state file): what waits is sent after the
   * first delay again instead of at the end of a long back-off.
   */
  wake(): void {
    if (this.#stopped || this.#waiting.length === 0) return;
    this.#delayMs = this.#options.firstDelayMs ?? FIRST_DELAY_MS;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#schedule();
  }

  /** Stops retrying; what still waits is reported by `size` (and lost with the process). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
    if (this.#waiting.length > 0) {
      this.#options.log.warn(
        { waiting: this.#waiting.length, oldest_age_sec: this.oldestAgeSec() },
        'contributions still waiting for the community at shutdown are not sent (the backfill can upload history)',
      );
    }
  }

  /** One delivery round now (tests; the timer runs them otherwise). */
  runOnce(): Promise<void> {
    this.#running ??= this.#round().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  #schedule(): void {
    if (this.#stopped || this.#timer || this.#waiting.length === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.runOnce().finally(() => this.#schedule());
    }, this.#delayMs);
    this.#timer.unref();
  }

  /** In order until one fails: then the hub is still away, and the delay doubles. */
  async #round(): Promise<void> {
    const maxDelay = this.#options.maxDelayMs ?? MAX_DELAY_MS;
    while (!this.#stopped && this.#waiting.length > 0) {
      const target = this.#options.target();
      const next = this.#waiting[0];
      if (!next) break;
      if (!target) {
        // No credential yet (the deployment is still to enroll): look again less and less often;
        // `wake` ends the wait when one arrives.
        this.#delayMs = Math.min(maxDelay, this.#delayMs * 2);
        break;
      }
      let outcome: ContributeOutcome | 'failed';
      try {
        outcome =
          next.item.kind === 'insert'
            ? await target.insert(next.item.context)
            : await target.upsertAnswer(next.item.input);
      } catch {
        outcome = 'failed';
      }
      this.#unreachable = outcome === 'failed';
      if (outcome === 'ok') {
        this.#waiting.shift();
        this.counters.delivered++;
        this.#delayMs = this.#options.firstDelayMs ?? FIRST_DELAY_MS;
        continue;
      }
      this.counters.attemptsFailed++;
      next.attempts++;
      if (next.attempts > MAX_ATTEMPTS) {
        this.#waiting.shift();
        this.counters.gaveUp++;
      }
      this.#delayMs = Math.min(maxDelay, this.#delayMs * 2);
      this.#log.warn(
        'mirror-retry',
        { waiting: this.#waiting.length, next_in_ms: this.#delayMs },
        'community still unreachable; contributions wait',
      );
      break;
    }
  }
}
