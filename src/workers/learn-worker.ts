import type { Learner } from '../corpus/learner.ts';
import type { LearnJob, LearningQueue } from '../corpus/learning-queue.ts';
import type { PoolPressure } from '../ports/pool-pressure.ts';
import { POOL_PRESSURE } from '../shared/limits.ts';
import type { Log } from '../shared/log.ts';
import { QueueWorker } from './queue-worker.ts';

const PRESSURE_WAIT_MS = 200;

export interface LearnWorkerOptions {
  queue: LearningQueue;
  learner: Learner;
  pressure: PoolPressure;
  now: () => number;
  log: Log;
  concurrency?: number;
  /** Told how long each job waited from enqueue to written (learning lag). */
  onLearned?: (lagMs: number) => void;
}

/**
 * The learning worker: performs the writes the message side only queued. It waits while the
 * database is under pressure (>= 0.25) rather than adding to it.
 */
export function createLearnWorker(options: LearnWorkerOptions): QueueWorker<LearnJob> {
  return new QueueWorker<LearnJob>({
    label: 'learn',
    queue: options.queue.queue,
    concurrency: options.concurrency ?? 1,
    log: options.log,
    beforeEach: async (stopping) => {
      // On stop the queue drains regardless: what was accepted is written, not lost.
      while (!stopping() && options.pressure.pressure() >= POOL_PRESSURE.learnEnqueueSkip) {
        await new Promise((resolve) => setTimeout(resolve, PRESSURE_WAIT_MS));
      }
    },
    handle: async (job) => {
      await options.learner.learn(job.input);
      options.onLearned?.(options.now() - job.queuedAtMs);
    },
  });
}
