/**
 * Collects the answers the bot sends and writes them to `reply_usage` every few seconds in one
 * unit of work (src/store/reply-usage.ts), so the reply path never waits on it. Sends of the same
 * answer in the same group add up in memory first (src/common/batch-writer.ts: bounded, drops
 * counted, what is pending written on stop).
 */
import type { AnswerSent } from '../repeater/index.ts';
import { BatchWriter } from '../common/batch-writer.ts';
import { errorMessage } from '../common/errors.ts';
import type { Log } from '../common/log.ts';
import type { ReplySent, ReplyUsageStore } from '../store/reply-usage.ts';

const FLUSH_EVERY_MS = 2_000;
const MAX_PENDING = 10_000;

export class ReplyUsageBuffer {
  readonly #writer: BatchWriter<ReplySent>;

  constructor(store: Pick<ReplyUsageStore, 'record'>, log: Log) {
    this.#writer = new BatchWriter({
      write: (batch) => store.record(batch),
      flushEveryMs: FLUSH_EVERY_MS,
      maxPending: MAX_PENDING,
      failed: (entries, error) => log.warn({ entries, error: errorMessage(error) }, 'reply usage could not be written'),
    });
  }

  get counters(): BatchWriter<ReplySent>['counters'] {
    return this.#writer.counters;
  }

  add(sent: AnswerSent): void {
    this.#writer.add(
      `${sent.groupId}\u0000${sent.contextKeywords}\u0000${sent.answerKeywords}`,
      () => ({ ...sent, count: 0 }),
      (entry) => {
        entry.count++;
        entry.time = Math.max(entry.time, sent.time);
      },
    );
  }

  /** Writes what is pending (one unit of work); never throws. */
  flush(): Promise<void> {
    return this.#writer.flush();
  }

  stop(): Promise<void> {
    return this.#writer.stop();
  }
}
