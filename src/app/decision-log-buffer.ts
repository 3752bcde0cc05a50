/**
 * The repeater's decisions on their way to the database (src/store/decision-log.ts): the reply
 * path only appends the decision and its time to an array (measured: bench/decision-log.ts); every
 * few seconds the array is written in one unit of work, and every few minutes the table is trimmed
 * to the configured days and rows in short steps. Bounded: past `maxPending` a decision is dropped
 * and counted. A failed write is counted and logged, never thrown; on stop what is pending is written.
 */
import { errorMessage } from '../common/errors.ts';
import type { Log } from '../common/log.ts';
import type { RepeaterDecision } from '../repeater/index.ts';
import type { DecisionLogStore, DecisionRow, DecisionTrimPolicy } from '../store/decision-log.ts';

export interface DecisionLogOptions {
  store: Pick<DecisionLogStore, 'add' | 'trim'>;
  log: Log;
  nowMs: () => number;
  /** Read at each trim, so a configuration change applies without a restart. */
  policy: () => DecisionTrimPolicy;
  flushEveryMs?: number;
  trimEveryMs?: number;
  maxPending?: number;
}

/** Reasons that are not a message's decision: the bot's own messages, a second copy, another process's. */
const NOT_KEPT = new Set<RepeaterDecision['reason']>(['self', 'duplicate-id', 'duplicate-event', 'claimed-elsewhere']);

export class DecisionLogBuffer {
  readonly counters = { recorded: 0, written: 0, dropped: 0, write_failed: 0, trimmed: 0 };
  readonly #options: Required<DecisionLogOptions>;
  #pending: { atMs: number; decision: RepeaterDecision }[] = [];
  #flushTimer: NodeJS.Timeout | undefined;
  #trimTimer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  #trimming: Promise<void> | null = null;

  constructor(options: DecisionLogOptions) {
    this.#options = { flushEveryMs: 2_000, trimEveryMs: 300_000, maxPending: 20_000, ...options };
  }

  /** On the reply path: one push, nothing else. */
  record(decision: RepeaterDecision, atMs: number): void {
    if (NOT_KEPT.has(decision.reason)) return;
    if (this.#pending.length >= this.#options.maxPending) {
      this.counters.dropped++;
      return;
    }
    this.#pending.push({ atMs, decision });
    this.counters.recorded++;
    this.#flushTimer ??= setTimeout(() => {
      this.#flushTimer = undefined;
      void this.flush();
    }, this.#options.flushEveryMs).unref();
  }

  start(): void {
    this.#trimTimer ??= setInterval(() => void this.trim(), this.#options.trimEveryMs).unref();
  }

  /** Writes what is pending (after any write still running); never throws. */
  flush(): Promise<void> {
    const batch = this.#pending;
    this.#pending = [];
    if (batch.length === 0) return this.#writing;
    this.#writing = this.#writing.then(async () => {
      try {
        await this.#options.store.add(batch.map(({ atMs, decision }) => rowOf(decision, atMs)));
        this.counters.written += batch.length;
      } catch (error) {
        this.counters.write_failed += batch.length;
        this.#options.log.warn({ rows: batch.length, error: errorMessage(error) }, 'decisions could not be written');
      }
    });
    return this.#writing;
  }

  /** Trims the table to the policy (one trim at a time); never throws. */
  trim(): Promise<void> {
    this.#trimming ??= (async () => {
      try {
        this.counters.trimmed += await this.#options.store.trim(this.#options.policy(), this.#options.nowMs());
      } catch (error) {
        this.#options.log.warn({ error: errorMessage(error) }, 'decisions could not be trimmed');
      } finally {
        this.#trimming = null;
      }
    })();
    return this.#trimming;
  }

  async stop(): Promise<void> {
    clearTimeout(this.#flushTimer);
    clearInterval(this.#trimTimer);
    this.#flushTimer = undefined;
    this.#trimTimer = undefined;
    await this.flush();
    await this.#trimming;
  }
}

export function rowOf(decision: RepeaterDecision, atMs: number): DecisionRow {
  return {
    at: atMs,
    group_id: decision.groupId,
    self_id: decision.selfId,
    user_id: decision.userId,
    message_id: decision.messageId,
    sender_name: decision.senderName,
    raw_message: decision.rawMessage,
    keywords: decision.keywords,
    outcome: decision.outcome,
    reason: decision.reason,
    cause: JSON.stringify(decision.cause ?? { code: decision.reason }),
    texts: JSON.stringify(decision.texts),
    answer_keywords: decision.answerKeywords,
    threshold: decision.threshold,
    cache: decision.cache,
    learn: decision.learn,
    latency_us: Math.round(decision.latencyMs * 1000),
  };
}

/** The decision log of a service: its store on the service's database, trimmed as the repeater config says. */
export function decisionLogFor(
  store: DecisionLogStore,
  log: Log,
  clock: { nowMs(): number },
  repeater: () => { decisionLogDays: number; decisionLogMaxRows: number },
): DecisionLogBuffer {
  const buffer = new DecisionLogBuffer({
    store,
    log,
    nowMs: () => clock.nowMs(),
    policy: () => ({ days: repeater().decisionLogDays, maxRows: repeater().decisionLogMaxRows }),
  });
  buffer.start();
  return buffer;
}
