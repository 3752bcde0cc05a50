import type { LearnInput } from '../domain/corpus.ts';
import { BoundedQueue } from '../common/bounded-queue.ts';
import { CORPUS_TEXT_LIMITS } from '../common/limits.ts';

export const LEARN_QUEUE_MAX = 2048;

/** One group message as the learner sees it. */
export interface LearnableMessage {
  groupId: number;
  rawMessage: string;
  keywords: string;
  /** Unix seconds. */
  time: number;
  isPlainText: boolean;
}

export interface LearnRequest {
  /** The message just before it in the same group (from the in-memory window), if any. */
  predecessor: Pick<LearnableMessage, 'rawMessage' | 'keywords'> | null;
  current: LearnableMessage;
}

export interface LearnJob {
  input: LearnInput;
  /** Monotonic ms when queued, to measure learning lag. */
  queuedAtMs: number;
}

export type EnqueueOutcome = 'queued' | 'excluded' | 'too_long' | 'skipped_pressure' | 'dropped_full';

export interface LearningCounters {
  queued: number;
  excluded: number;
  /** Answer or keywords over CORPUS_TEXT_LIMITS: never learned. */
  tooLong: number;
  skippedPressure: number;
  droppedFull: number;
}

const QUOTED_REPLY = '[CQ:reply,';

/**
 * The message side of learning (docs/rules.md#learn-write): it only enqueues. The pair
 * (predecessor → current) becomes a learn job unless excluded (no predecessor, a repeat of the
 * predecessor, a quoted reply); when the queue has backed up to its pressure level it is skipped,
 * on a full queue dropped; both counted. Never awaits anything.
 *
 * The enqueue does not read the pool's pressure (docs/rules.md#learn-queue): a burst of reads
 * holds many connections for a moment without the database being saturated, and a pair skipped
 * then is lost for good, while the queue absorbs the burst and the learn worker waits out the
 * pressure. Only a queue that keeps growing (the worker cannot keep up) sheds pairs.
 */
export class LearningQueue {
  readonly queue: BoundedQueue<LearnJob>;
  readonly counters: LearningCounters = { queued: 0, excluded: 0, tooLong: 0, skippedPressure: 0, droppedFull: 0 };
  readonly #pressureLevel: number;

  constructor(
    private readonly now: () => number,
    capacity = LEARN_QUEUE_MAX,
  ) {
    this.queue = new BoundedQueue<LearnJob>(capacity);
    // The queue counts as under pressure before it is full (docs/rules.md#learn-queue): a quarter
    // of it is a quarter second of learning at 2,000 messages a second, far more than one batch.
    this.#pressureLevel = Math.max(64, Math.floor(capacity / 4));
  }

  /** 0..1 share of the level at which the queue counts as under pressure. */
  get queuePressure(): number {
    return Math.min(1, this.queue.size / this.#pressureLevel);
  }

  enqueue(request: LearnRequest): EnqueueOutcome {
    const { predecessor, current } = request;
    if (!predecessor || predecessor.rawMessage === current.rawMessage || current.rawMessage.includes(QUOTED_REPLY)) {
      this.counters.excluded++;
      return 'excluded';
    }
    if (
      current.rawMessage.length > CORPUS_TEXT_LIMITS.answerMaxChars ||
      current.keywords.length > CORPUS_TEXT_LIMITS.keywordsMaxChars ||
      predecessor.keywords.length > CORPUS_TEXT_LIMITS.keywordsMaxChars
    ) {
      this.counters.tooLong++;
      return 'too_long';
    }
    if (this.queue.size >= this.#pressureLevel) {
      this.counters.skippedPressure++;
      return 'skipped_pressure';
    }
    const job: LearnJob = {
      input: {
        keywords: predecessor.keywords,
        groupId: current.groupId,
        answerKeywords: current.keywords,
        answerTime: current.time,
        message: current.rawMessage,
        appendOnExisting: current.isPlainText,
      },
      queuedAtMs: this.now(),
    };
    if (!this.queue.offer(job)) {
      this.counters.droppedFull++;
      return 'dropped_full';
    }
    this.counters.queued++;
    return 'queued';
  }
}
