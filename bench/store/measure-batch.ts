import { LearningQueue } from '../../src/corpus/learning-queue.ts';
import type { LearnInput } from '../../src/domain/corpus.ts';
import { LEARN_BATCH } from '../../src/common/limits.ts';
import { silentLog } from '../../src/common/log.ts';
import type { LocalStore } from '../../src/store/open-store.ts';
import { createLearnWorker } from '../../src/workers/learn-worker.ts';
import type { Throughput } from './measure-write.ts';

export interface BatchThroughput extends Throughput {
  batches: number;
  largestBatch: number;
  failed: number;
}

/**
 * Learning as the service does it: the learn worker (src/workers/learn-worker.ts) with its batch
 * bound for the engine, writing through the store's learn batch, with every event queued up front
 * (a backlog, as under load). Measured from start to the last pair written.
 */
export async function learnThroughWorker(store: LocalStore, inputs: readonly LearnInput[]): Promise<BatchThroughput> {
  const queue = new LearningQueue(() => performance.now(), inputs.length);
  let created = 0;
  const worker = createLearnWorker({
    queue,
    learner: {
      async learnBatch(batch) {
        const result = await store.corpus.learnAnswers(batch);
        created += result.outcomes.filter((outcome) => outcome === 'created').length;
        return result;
      },
    },
    pressure: store.engine,
    now: () => performance.now(),
    log: silentLog,
    batchMax: store.engine.longTransactions ? LEARN_BATCH.max : LEARN_BATCH.sqliteMax,
  });
  for (const input of inputs) queue.queue.offer({ input, queuedAtMs: performance.now() });
  const started = performance.now();
  worker.start();
  const done = () => worker.counters.handled + worker.counters.failed >= inputs.length;
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 1));
  const ms = performance.now() - started;
  await worker.stop(1000);
  return {
    perSecond: inputs.length / (ms / 1000),
    events: inputs.length,
    created,
    batches: worker.batchCounters.batches,
    largestBatch: worker.batchCounters.largestBatch,
    failed: worker.counters.failed,
  };
}
