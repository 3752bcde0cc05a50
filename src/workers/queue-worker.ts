import type { BoundedQueue } from '../common/bounded-queue.ts';
import type { Log } from '../common/log.ts';
import { yieldToEventLoop } from '../common/adaptive-chunk.ts';
import { errorMessage } from '../common/errors.ts';

/** The longest a worker runs units of work back to back before it lets the event loop turn. */
const HOLD_LOOP_MAX_MS = 5;

export interface QueueWorkerOptions<T> {
  label: string;
  queue: BoundedQueue<T>;
  /** Handles one item; a failure is logged and counted, and the worker goes on. */
  handle: (item: T) => Promise<void>;
  /**
   * When set, items are handled in batches instead (docs/rules.md#learn-write): up to `max` of
   * what is queued, after waiting up to `lingerMs` for more when fewer are there. `handle` returns
   * how many items of the batch failed (each counted); a batch that throws counts all as failed.
   */
  batch?: { max: number; lingerMs: number; handle: (items: T[]) => Promise<number> };
  /**
   * Awaited before each item (e.g. wait while the database is under pressure). `stopping` turns
   * true when stop() is called, so a wait can end early and let the queue drain.
   */
  beforeEach?: (stopping: () => boolean) => Promise<void>;
  concurrency?: number;
  log: Log;
}

export interface QueueWorkerCounters {
  handled: number;
  failed: number;
  /** Items still queued when a stop hit its deadline: lost by design, and counted. */
  abandonedAtStop: number;
}

/**
 * Consumes a bounded queue with a fixed number of loops (docs/rules.md#style-owner: `start` and `stop` belong
 * to the owner). `stop` drains what is queued until its deadline, then abandons and counts the rest.
 */
export class QueueWorker<T> {
  readonly counters: QueueWorkerCounters = { handled: 0, failed: 0, abandonedAtStop: 0 };
  #loops: Promise<void>[] = [];
  #stopping = false;
  #deadlinePassed = false;

  constructor(private readonly options: QueueWorkerOptions<T>) {}

  get running(): boolean {
    return this.#loops.length > 0;
  }

  start(): void {
    if (this.running) return;
    this.#stopping = false;
    this.#deadlinePassed = false;
    const loops = this.options.concurrency ?? 1;
    for (let index = 0; index < loops; index++) this.#loops.push(this.#loop());
  }

  async stop(deadlineMs: number): Promise<void> {
    if (!this.running) return;
    this.#stopping = true;
    this.options.queue.wakeAll();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.#deadlinePassed = true;
        resolve();
      }, deadlineMs);
      timer.unref();
    });
    await Promise.race([Promise.all(this.#loops), deadline]);
    clearTimeout(timer);
    const left = this.options.queue.size;
    if (left > 0) {
      this.counters.abandonedAtStop += left;
      this.options.log.warn({ worker: this.options.label, left }, 'stop deadline reached; queued items abandoned');
      while (this.options.queue.take() !== undefined);
    }
    this.#loops = [];
  }

  async #loop(): Promise<void> {
    const { queue } = this.options;
    let heldSince = performance.now();
    for (;;) {
      if (this.#deadlinePassed) return;
      if (queue.size === 0) {
        if (this.#stopping) return;
        await queue.whenAvailable();
        heldSince = performance.now();
        continue;
      }
      await this.options.beforeEach?.(() => this.#stopping);
      if (this.options.batch) await this.#handleBatch(this.options.batch);
      else await this.#handleOne();
      // A handler over synchronous SQLite resolves without ever leaving the microtask queue: with a
      // backlog, batch after batch would hold the event loop and every message waiting on it
      // (docs/rules.md#store-chunks). A turn of the loop once the worker has held it long enough.
      if (performance.now() - heldSince >= HOLD_LOOP_MAX_MS) {
        await yieldToEventLoop();
        heldSince = performance.now();
      }
    }
  }

  async #handleOne(): Promise<void> {
    const item = this.options.queue.take();
    if (item === undefined) return;
    try {
      await this.options.handle(item);
      this.counters.handled++;
    } catch (error) {
      this.counters.failed++;
      this.#warnFailed(error);
    }
  }

  async #handleBatch(batch: NonNullable<QueueWorkerOptions<T>['batch']>): Promise<void> {
    const { queue } = this.options;
    const items: T[] = [];
    const takeUpTo = () => {
      while (items.length < batch.max) {
        const item = queue.take();
        if (item === undefined) return;
        items.push(item);
      }
    };
    takeUpTo();
    if (items.length === 0) return;
    if (items.length < batch.max && batch.lingerMs > 0 && !this.#stopping) {
      await new Promise((resolve) => setTimeout(resolve, batch.lingerMs));
      takeUpTo();
    }
    try {
      const failed = Math.min(items.length, Math.max(0, await batch.handle(items)));
      this.counters.handled += items.length - failed;
      this.counters.failed += failed;
    } catch (error) {
      this.counters.failed += items.length;
      this.#warnFailed(error);
    }
  }

  #warnFailed(error: unknown): void {
    this.options.log.warn({ worker: this.options.label, error: errorMessage(error) }, 'worker item failed');
  }
}
