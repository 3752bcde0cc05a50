import type { Context, LearnInput } from '../domain/corpus.ts';
import type { PoolPressure } from '../ports/pool-pressure.ts';
import { BoundedQueue } from '../common/bounded-queue.ts';
import { POOL_PRESSURE } from '../common/limits.ts';

export const MIRROR_QUEUE_MAX = 2048;

export type MirrorItem = { kind: 'insert'; context: Context } | { kind: 'upsert'; input: LearnInput };

export interface MirrorCounters {
  queued: number;
  skippedPressure: number;
  droppedFull: number;
}

export interface MirrorQueueOptions {
  pressure: PoolPressure;
  /** Whether any contribution is enabled now: the community's (no federated source is built, docs/rules.md#mirror). */
  contributionEnabled: () => boolean;
  /** Whether non-critical database work is to be skipped now (docs/rules.md#mirror); absent: never. */
  skipNonCritical?: () => boolean;
  capacity?: number;
  /** Called on the first item ever queued, so the worker starts lazily (docs/rules.md#corpus-shared). */
  onFirstItem?: () => void;
  /** Whether a group's pairs may go to the community (its group config `share`); absent: all. */
  shareGroup?: (groupId: number) => boolean;
}

/**
 * The mirror's scheduling side (docs/rules.md#mirror): queue an item only when some
 * contribution is enabled; drop and count it under pressure (>= 0.78 or the skip signal) or when
 * the queue of 2048 is full. Never blocks the learner.
 */
export class MirrorQueue {
  readonly queue: BoundedQueue<MirrorItem>;
  readonly counters: MirrorCounters = { queued: 0, skippedPressure: 0, droppedFull: 0 };
  #started = false;

  constructor(private readonly options: MirrorQueueOptions) {
    this.queue = new BoundedQueue<MirrorItem>(options.capacity ?? MIRROR_QUEUE_MAX);
  }

  get full(): boolean {
    return this.queue.size >= this.queue.capacity;
  }

  scheduleInsert(context: Context): void {
    const share = this.options.shareGroup;
    if (share && !context.answers.every((answer) => share(answer.groupId))) {
      const answers = context.answers.filter((answer) => share(answer.groupId));
      if (answers.length === 0) return;
      context = { ...context, answers };
    }
    this.#schedule({ kind: 'insert', context });
  }

  scheduleUpsert(input: LearnInput): void {
    if (this.options.shareGroup?.(input.groupId) === false) return;
    this.#schedule({ kind: 'upsert', input });
  }

  #schedule(item: MirrorItem): void {
    if (!this.options.contributionEnabled()) return;
    if (this.options.skipNonCritical?.() || this.options.pressure.pressure() >= POOL_PRESSURE.mirrorDrop) {
      this.counters.skippedPressure++;
      return;
    }
    if (!this.queue.offer(item)) {
      this.counters.droppedFull++;
      return;
    }
    this.counters.queued++;
    if (!this.#started) {
      this.#started = true;
      this.options.onFirstItem?.();
    }
  }
}
