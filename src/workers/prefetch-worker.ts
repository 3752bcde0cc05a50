/**
 * The prefetch workers (docs/rules.md#prefetch): started only while the remote find mode is
 * prefetch; `restart()` (remote find mode saved) forgets what was queued, stops them and starts
 * them again when the mode is still prefetch. Each key, whatever its outcome, ends in the
 * scheduler's 90 s cool-down.
 */
import type { ConfigSnapshot, RemoteFindMode } from '../config/index.ts';
import type { PrefetchQueue, PrefetchRunner } from '../community/prefetch.ts';
import { PREFETCH_POOL_SHARE } from '../common/limits.ts';
import type { Log } from '../common/log.ts';
import { QueueWorker } from './queue-worker.ts';

export interface PrefetchWorkersOptions {
  queue: PrefetchQueue;
  runner: PrefetchRunner;
  mode: () => RemoteFindMode;
  /** Workers to run (`prefetchConcurrency`: 1 by default). */
  concurrency: () => number;
  log: Log;
}

/**
 * How many prefetch workers to run (docs/rules.md#pool-cap): the remote limit capped by a share of the
 * pool, so 1 on SQLite and with the default pool.
 */
export function prefetchConcurrency(
  config: Pick<ConfigSnapshot, 'server' | 'remote'>,
  engine: 'sqlite' | 'postgres',
): number {
  if (engine === 'sqlite') return 1;
  const share = Math.max(1, Math.floor(config.server.databasePoolMax * PREFETCH_POOL_SHARE));
  return Math.max(1, Math.min(config.remote.remoteMaxConcurrent, share));
}

/** How long a restart waits for a key being pulled (a read is bounded by its own timeout). */
const RESTART_STOP_DEADLINE_MS = 1000;

export class PrefetchWorkers {
  #worker: QueueWorker<string> | null = null;
  #restarts = 0;
  /** Counters of workers already stopped, so restarts do not reset what was counted. */
  readonly #past = { handled: 0, failed: 0, abandonedAtStop: 0 };

  constructor(private readonly options: PrefetchWorkersOptions) {}

  get running(): boolean {
    return this.#worker?.running ?? false;
  }

  get restarts(): number {
    return this.#restarts;
  }

  /** Starts the workers when the mode is prefetch; otherwise does nothing. */
  start(): boolean {
    if (this.options.mode() !== 'prefetch' || this.running) return this.running;
    const { queue, runner, log } = this.options;
    this.#worker = new QueueWorker<string>({
      label: 'prefetch',
      queue: queue.queue,
      concurrency: Math.max(1, this.options.concurrency()),
      log,
      handle: async (key) => {
        try {
          await runner.run(key);
        } finally {
          queue.finish(key);
        }
      },
    });
    this.#worker.start();
    return true;
  }

  /** Clears the scheduler's state, stops, and starts again if the mode is prefetch. */
  async restart(): Promise<{ detail: string }> {
    this.#restarts++;
    this.options.queue.reset();
    await this.stop(RESTART_STOP_DEADLINE_MS);
    const running = this.start();
    return { detail: running ? 'prefetch workers restarted' : 'prefetch workers stopped (mode is not prefetch)' };
  }

  async stop(deadlineMs: number): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    // Queued keys are not worth a shutdown delay: they are pulled again after the next miss.
    this.options.queue.reset();
    if (!worker) return;
    await worker.stop(deadlineMs);
    this.#past.handled += worker.counters.handled;
    this.#past.failed += worker.counters.failed;
    this.#past.abandonedAtStop += worker.counters.abandonedAtStop;
  }

  counters(): Record<string, number> {
    const now = this.#worker?.counters ?? { handled: 0, failed: 0, abandonedAtStop: 0 };
    return {
      handled: this.#past.handled + now.handled,
      failed: this.#past.failed + now.failed,
      abandonedAtStop: this.#past.abandonedAtStop + now.abandonedAtStop,
      restarts: this.#restarts,
      running: this.running ? 1 : 0,
    };
  }
}
