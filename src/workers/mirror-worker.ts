import type { MirrorItem, MirrorQueue } from '../corpus/mirror-queue.ts';
import type { RemoteBudget } from '../corpus/remote-budget.ts';
import { communityContext, communityLearnInput, withheldCounters } from '../domain/deidentify.ts';
import type { MirrorTarget } from '../ports/remote-corpus.ts';
import type { Log } from '../common/log.ts';
import { QueueWorker } from './queue-worker.ts';

export interface MirrorWorkerCounters {
  sent: number;
  noTarget: number;
  skippedBudget: number;
  /** Items not sent because nothing of them may leave the deployment, per reason. */
  withheld: Record<string, number>;
}

export interface MirrorWorkerOptions {
  queue: MirrorQueue;
  /** The community contribute side as built now (null while not configured). */
  target: () => MirrorTarget | null;
  budget: RemoteBudget;
  log: Log;
}

/**
 * The mirror worker (docs/rules.md#mirror): exactly one, sending queued learning to the
 * community de-identified (src/domain/deidentify.ts: plain short phrases, group 0, no bans; what
 * may not leave is counted per reason), each call under the background remote budget, waiting
 * for a permit.
 */
export function createMirrorWorker(options: MirrorWorkerOptions): {
  worker: QueueWorker<MirrorItem>;
  counters: MirrorWorkerCounters;
} {
  const withheld = withheldCounters();
  const counters: MirrorWorkerCounters = { sent: 0, noTarget: 0, skippedBudget: 0, withheld: withheld.counts };
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
      // De-identified before anything else: what may not leave costs no budget and no request.
      const shared =
        item.kind === 'insert'
          ? { kind: 'insert' as const, context: communityContext(item.context, withheld.sink) }
          : { kind: 'upsert' as const, input: communityLearnInput(item.input, withheld.sink) };
      if (shared.kind === 'insert' ? shared.context === null : shared.input === null) return;
      const release = await options.budget.contributePermit();
      if (!release) {
        counters.skippedBudget++;
        return;
      }
      try {
        if (shared.kind === 'insert') {
          if (shared.context) await target.insert(shared.context);
        } else if (shared.input) {
          await target.upsertAnswer(shared.input);
        }
        counters.sent++;
      } finally {
        release();
      }
    },
  });
  return { worker, counters };
}
