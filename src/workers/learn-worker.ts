import type { LearnJob, LearningQueue } from '../corpus/learning-queue.ts';
import type { LearnBatchResult, LearnInput } from '../domain/corpus.ts';
import type { PoolPressure } from '../ports/pool-pressure.ts';
import { LEARN_BATCH, POOL_PRESSURE } from '../common/limits.ts';
import type { Log } from '../common/log.ts';
import { QueueWorker } from './queue-worker.ts';

/** How long the worker waits before looking at the pressure again. */
const PRESSURE_WAIT_MS = 20;
/**
 * The queue's share of its pressure level at which the worker stops waiting out pool pressure:
 * beyond it, pairs would soon be skipped for good, a worse loss than the load a batch adds.
 */
const BACKLOG_WRITES_ANYWAY = 0.5;

/** What the worker needs of the learner (src/corpus/learner.ts). */
export interface BatchLearner {
  learnBatch(inputs: readonly LearnInput[]): Promise<LearnBatchResult>;
}

export interface LearnWorkerOptions {
  queue: LearningQueue;
  learner: BatchLearner;
  pressure: PoolPressure;
  now: () => number;
  log: Log;
  concurrency?: number;
  /** Pairs written per unit of work at most (default LEARN_BATCH.max). */
  batchMax?: number;
  /** How long a batch smaller than the bound waits for more pairs (default LEARN_BATCH.lingerMs). */
  batchLingerMs?: number;
  /** Told how long each job waited from enqueue to written (learning lag). */
  onLearned?: (lagMs: number) => void;
  /** Told, after each batch committed, the distinct context keywords it wrote (the fleet's caches). */
  onBatchLearned?: (contextKeywords: readonly string[]) => void;
}

export interface LearnBatchCounters {
  /** Units of work written (each a batch of one or more pairs). */
  batches: number;
  /** Batches whose unit of work failed and whose pairs were retried one by one. */
  batchesRetried: number;
  largestBatch: number;
}

/**
 * The learning worker: performs the writes the message side only queued, a batch at a time
 * (docs/rules.md#learn-write): what is queued, up to a bound, in one unit of work. It waits while
 * the database is under pressure (>= 0.25) rather than adding to it, unless its backlog is growing
 * toward the skip level (docs/rules.md#learn-queue); its own units of work are not
 * counted in that pressure (docs/rules.md#store-pressure). Pairs counted `handled` include those
 * the guard rejected; `failed` are pairs not written even when retried alone.
 */
export class LearnWorker extends QueueWorker<LearnJob> {
  readonly batchCounters: LearnBatchCounters;

  constructor(options: LearnWorkerOptions) {
    const counters: LearnBatchCounters = { batches: 0, batchesRetried: 0, largestBatch: 0 };
    const write = async (jobs: LearnJob[]): Promise<number> => {
      const result = await options.learner.learnBatch(jobs.map((job) => job.input));
      counters.batches++;
      counters.largestBatch = Math.max(counters.largestBatch, jobs.length);
      if (result.retriedPairByPair) counters.batchesRetried++;
      const now = options.now();
      let failed = 0;
      const written = new Set<string>();
      for (const [index, job] of jobs.entries()) {
        const outcome = result.outcomes[index];
        if (outcome === 'failed' || outcome === undefined) failed++;
        else options.onLearned?.(now - job.queuedAtMs);
        if (outcome === 'created' || outcome === 'existing') written.add(job.input.keywords);
      }
      if (written.size > 0) options.onBatchLearned?.([...written]);
      if (failed > 0 || result.retriedPairByPair) {
        options.log.warn(
          { worker: 'learn', pairs: jobs.length, failed, error: result.error ?? null },
          result.retriedPairByPair ? 'learn batch failed; its pairs were retried one by one' : 'learn batch failed',
        );
      }
      return failed;
    };
    super({
      label: 'learn',
      queue: options.queue.queue,
      concurrency: options.concurrency ?? 1,
      log: options.log,
      beforeEach: async (stopping) => {
        // On stop the queue drains regardless: what was accepted is written, not lost.
        const waitOut = () =>
          options.pressure.pressure() >= POOL_PRESSURE.learnWorkerWait &&
          options.queue.queuePressure < BACKLOG_WRITES_ANYWAY;
        while (!stopping() && waitOut()) {
          await new Promise((resolve) => setTimeout(resolve, PRESSURE_WAIT_MS));
        }
      },
      handle: async (job) => {
        if ((await write([job])) > 0) throw new Error('learn failed');
      },
      batch: {
        max: options.batchMax ?? LEARN_BATCH.max,
        lingerMs: options.batchLingerMs ?? LEARN_BATCH.lingerMs,
        handle: write,
      },
    });
    this.batchCounters = counters;
  }
}

export function createLearnWorker(options: LearnWorkerOptions): LearnWorker {
  return new LearnWorker(options);
}
