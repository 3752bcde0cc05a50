import type { MirrorItem, MirrorQueue } from '../corpus/mirror-queue.ts';
import type { RemoteBudget } from '../corpus/remote-budget.ts';
import { communityContext, communityLearnInput, withheldCounters, type WithheldSink } from '../domain/deidentify.ts';
import type { MirrorTarget } from '../ports/remote-corpus.ts';
import type { Log } from '../common/log.ts';
import { QueueWorker } from './queue-worker.ts';

export interface MirrorWorkerCounters {
  sent: number;
  /** Items kept for a target that does not exist yet (`park`: enrollment still to come). */
  parked: number;
  /** Items dropped because there is no target and none is coming. */
  noTarget: number;
  skippedBudget: number;
  /** Items not sent because nothing of them may leave the deployment, per reason. */
  withheld: Record<string, number>;
}

export interface MirrorWorkerOptions {
  queue: MirrorQueue;
  /** The community contribute side as built now (null while not configured). */
  target: () => MirrorTarget | null;
  /**
   * Keeps a de-identified item while there is no target yet (the deployment is still to enroll):
   * true when kept, false when no target is coming. Absent: such items are dropped as `noTarget`.
   */
  park?: (item: MirrorItem) => boolean;
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
  const counters: MirrorWorkerCounters = {
    sent: 0,
    parked: 0,
    noTarget: 0,
    skippedBudget: 0,
    withheld: withheld.counts,
  };
  const worker = new QueueWorker<MirrorItem>({
    label: 'mirror',
    queue: options.queue.queue,
    concurrency: 1,
    log: options.log,
    handle: async (item) => {
      // De-identified before anything else: what may not leave costs no budget and no request,
      // and nothing else is ever kept for later.
      const shared = deidentified(item, withheld.sink);
      if (!shared) return;
      const target = options.target();
      if (!target) {
        // Learned before the deployment enrolled: it waits for the credential (docs/rules.md#mirror).
        if (options.park?.(shared)) counters.parked++;
        else counters.noTarget++;
        return;
      }
      const release = await options.budget.contributePermit();
      if (!release) {
        counters.skippedBudget++;
        return;
      }
      try {
        if (shared.kind === 'insert') await target.insert(shared.context);
        else await target.upsertAnswer(shared.input);
        counters.sent++;
      } finally {
        release();
      }
    },
  });
  return { worker, counters };
}

/** What of `item` may leave the deployment (docs/rules.md#deidentify), or null when nothing may. */
function deidentified(item: MirrorItem, sink: WithheldSink): MirrorItem | null {
  if (item.kind === 'insert') {
    const context = communityContext(item.context, sink);
    return context ? { kind: 'insert', context } : null;
  }
  const input = communityLearnInput(item.input, sink);
  return input ? { kind: 'upsert', input } : null;
}
