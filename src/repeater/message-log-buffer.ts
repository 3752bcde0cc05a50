import type { EnqueueOutcome } from '../corpus/learning-queue.ts';
import type { GroupChatMessage } from '../domain/chat.ts';
import type { GroupMessage } from '../domain/corpus.ts';
import type { GroupMessageLog } from '../ports/group-log.ts';
import { yieldToEventLoop } from '../common/adaptive-chunk.ts';
import { RateLimitedLog, type Log } from '../common/log.ts';
import type { MessageText } from './keywords.ts';
import { MESSAGE_LOG } from './limits.ts';
import type { LearningSink } from './repeater-options.ts';

export interface MessageLogCounters {
  appended: number;
  written: number;
  /** Dropped because the buffer was full (the database is slow or down). */
  dropped: number;
  failedFlushes: number;
}

export interface MessageLogBufferOptions {
  log: GroupMessageLog;
  logger: Log;
  capacity?: number;
  batchSize?: number;
  flushEveryMs?: number;
  /** Monotonic ms, for rate limiting the failure log. */
  now?: () => number;
}

/**
 * The group chat log, written in batches off the message path: `push` never waits; a flush runs
 * when a batch is full, and a timer armed by the first message waiting writes the rest (no timer
 * runs while nothing waits: docs/rules.md#idle-quiet). A failed batch goes back to the front (as far
 * as the capacity allows) and the timer is armed again; what does not fit is dropped and counted.
 */
export class MessageLogBuffer {
  readonly counters: MessageLogCounters = { appended: 0, written: 0, dropped: 0, failedFlushes: 0 };
  #items: GroupMessage[] = [];
  #flushing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #started = false;
  readonly #capacity: number;
  readonly #batchSize: number;
  readonly #flushEveryMs: number;
  readonly #warn: RateLimitedLog;

  constructor(private readonly options: MessageLogBufferOptions) {
    this.#warn = new RateLimitedLog(options.logger, options.now ?? (() => performance.now()));
    this.#capacity = options.capacity ?? MESSAGE_LOG.capacity;
    this.#batchSize = options.batchSize ?? MESSAGE_LOG.batchSize;
    this.#flushEveryMs = options.flushEveryMs ?? MESSAGE_LOG.flushEveryMs;
  }

  get size(): number {
    return this.#items.length;
  }

  push(message: GroupMessage): void {
    if (this.#items.length >= this.#capacity) {
      this.counters.dropped++;
      return;
    }
    this.#items.push(message);
    this.counters.appended++;
    if (this.#items.length >= this.#batchSize) void this.flush();
    else this.#arm();
  }

  start(): void {
    this.#started = true;
    this.#arm();
  }

  /** Stops the timer and writes what is waiting (one attempt per batch). */
  async stop(): Promise<void> {
    this.#started = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }

  /** A flush within the interval, when something waits and none is due yet. */
  #arm(): void {
    if (!this.#started || this.#timer || this.#items.length === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, this.#flushEveryMs);
    this.#timer.unref();
  }

  /** Writes everything waiting, batch by batch; joins a flush in progress. Never throws. */
  flush(): Promise<void> {
    this.#flushing ??= this.#drain().finally(() => {
      this.#flushing = undefined;
      // A failed batch is back in the buffer: try again in an interval.
      this.#arm();
    });
    return this.#flushing;
  }

  async #drain(): Promise<void> {
    while (this.#items.length > 0) {
      const batch = this.#items.splice(0, this.#batchSize);
      try {
        await this.options.log.append(batch);
        this.counters.written += batch.length;
      } catch (error) {
        this.counters.failedFlushes++;
        const room = Math.max(0, this.#capacity - this.#items.length);
        this.counters.dropped += Math.max(0, batch.length - room);
        this.#items.unshift(...batch.slice(0, room));
        this.#warn.warn(
          'chat-log',
          { error: String(error), waiting: this.#items.length },
          'writing the chat log failed',
        );
        return;
      }
      // On SQLite the append is synchronous: a turn of the event loop between two batches.
      if (this.#items.length > 0) await yieldToEventLoop();
    }
  }
}

/** The chat-log row of a group message as the repeater saw it. */
export function logRow(message: GroupChatMessage, text: MessageText): GroupMessage {
  return {
    groupId: message.groupId,
    userId: message.userId,
    botId: message.selfId,
    rawMessage: text.rawMessage,
    isPlainText: text.isPlainText,
    plainText: message.plainText,
    keywords: text.keywords,
    time: message.time,
    senderName: message.senderName,
    messageId: message.messageId,
    replyToMessageId: message.replyToMessageId,
  };
}

/** Offers the (predecessor → message) pair to the learning queue; a blank message is not offered. */
export function offerLearning(
  learning: LearningSink,
  message: GroupChatMessage,
  text: MessageText,
  predecessor: { rawMessage: string; keywords: string } | null,
): EnqueueOutcome | 'not-offered' {
  if (text.rawMessage.trim() === '') return 'not-offered';
  return learning.enqueue({
    predecessor: predecessor && { rawMessage: predecessor.rawMessage, keywords: predecessor.keywords },
    current: {
      groupId: message.groupId,
      rawMessage: text.rawMessage,
      keywords: text.keywords,
      time: message.time,
      isPlainText: text.isPlainText,
    },
  });
}
