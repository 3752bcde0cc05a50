/**
 * Collects the answers the bot sends and writes them to `reply_usage` every few seconds in one
 * unit of work (src/store/reply-usage.ts), so the reply path never waits on it. Sends of the same
 * answer in the same group add up in memory first. Bounded: past MAX_PENDING distinct entries a
 * new one is dropped and counted; on stop what is pending is written within the deadline.
 */
import type { AnswerSent } from '../repeater/index.ts';
import type { Log } from '../shared/log.ts';
import type { ReplySent, ReplyUsageStore } from '../store/reply-usage.ts';

const FLUSH_EVERY_MS = 2_000;
const MAX_PENDING = 10_000;

export class ReplyUsageBuffer {
  readonly counters = { recorded: 0, written: 0, dropped: 0, write_failed: 0 };
  #pending = new Map<string, ReplySent>();
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Pick<ReplyUsageStore, 'record'>,
    private readonly log: Log,
  ) {}

  add(sent: AnswerSent): void {
    const key = `${sent.groupId}\u0000${sent.contextKeywords}\u0000${sent.answerKeywords}`;
    const known = this.#pending.get(key);
    if (known) {
      known.count++;
      known.time = Math.max(known.time, sent.time);
    } else if (this.#pending.size >= MAX_PENDING) {
      this.counters.dropped++;
      return;
    } else {
      this.#pending.set(key, { ...sent, count: 1 });
    }
    this.counters.recorded++;
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, FLUSH_EVERY_MS).unref();
  }

  /** Writes what is pending (one unit of work); never throws. */
  flush(): Promise<void> {
    const batch = [...this.#pending.values()];
    this.#pending = new Map();
    if (batch.length === 0) return this.#writing;
    this.#writing = this.#writing.then(async () => {
      try {
        await this.store.record(batch);
        this.counters.written += batch.length;
      } catch (error) {
        this.counters.write_failed += batch.length;
        this.log.warn({ entries: batch.length, error: String(error) }, 'reply usage could not be written');
      }
    });
    return this.#writing;
  }

  async stop(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }
}
