import type { MirrorItem, MirrorQueue } from '../corpus/mirror-queue.ts';
import type { RemoteBudget } from '../corpus/remote-budget.ts';
import { communityContext, communityLearnInput } from '../domain/deidentify.ts';
import type { MirrorTarget } from '../ports/remote-corpus.ts';
import type { Log } from '../shared/log.ts';
import { QueueWorker } from './queue-worker.ts';

export interface MirrorWorkerCounters {
  sent: number;
  noTarget: number;
  skippedBudget: number;
}

export interface MirrorWorkerOptions {
  queue: MirrorQueue;
  /** The community contribute side as built now (null while not configured). */
  target: () => MirrorTarget | null;
  budget: RemoteBudget;
  log: Log;
}

/**
 * The mirror worker (spec "Learning write path" 6): exactly one, sending queued learning to the
 * community de-identified (group 0 on every answer, no bans), each call under the background
 * remote budget, waiting for a permit.
 */
export function createMirrorWorker(options: MirrorWorkerOptions): {
  worker: QueueWorker<MirrorItem>;
  counters: MirrorWorkerCounters;
} {
  const counters: MirrorWorkerCounters = { sent: 0, noTarget: 0, skippedBudget: 0 };
  const worker = new QueueWorker<MirrorItem>({
    label: 'mirror',
    queue: options.queue.queue,
    concurrency: 1,
    log: options.log,
    handle: async (item) => {
      const target = options.target();
      if (!target) {
        counters.noTarget++;
        return;
      }
      const release = await options.budget.acquire(false, true);
      if (!release) {
        counters.skippedBudget++;
        return;
      }
      try {
        if (item.kind === 'insert') await target.insert(communityContext(item.context));
        else await target.upsertAnswer(communityLearnInput(item.input));
        counters.sent++;
      } finally {
        release();
      }
    },
  });
  return { worker, counters };
}
