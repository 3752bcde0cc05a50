/**
 * Prefetch (docs/rules.md#prefetch): after a local reply miss in prefetch mode,
 * the key is pulled from the community in the background and imported into the local store, so
 * the next lookup answers locally. Scheduling never blocks the hot path and every decline is
 * counted.
 *
 * Gates, in order (docs/rules.md#prefetch): the mode; global pressure (pool >= 0.15, the learning queue under
 * pressure, or 64 keys already queued); an empty key or one already queued or running; the
 * short-key delay (keys of <= 6 characters need 2 misses within 45 s); a key finished less than
 * 90 s ago. Then a non-blocking offer to a queue of 4096.
 */
import { hasReplyReadyAnswer } from '../domain/reply-ready.ts';
import { TransientLookupError } from '../common/errors.ts';
import type { RemoteFindMode } from '../config/index.ts';
import type { RemoteBudget } from '../corpus/remote-budget.ts';
import type { Context } from '../domain/corpus.ts';
import type { PoolPressure } from '../ports/pool-pressure.ts';
import type { PrefetchScheduler, RemoteCorpusSource } from '../ports/remote-corpus.ts';
import { BoundedQueue } from '../common/bounded-queue.ts';
import { POOL_PRESSURE } from '../common/limits.ts';

export const PREFETCH = {
  queueMax: 4096,
  /** At this many queued keys the scheduler counts itself under pressure: max(32, 4096 / 64). */
  queuePressureLevel: 64,
  shortKeyMaxChars: 6,
  shortKeyMisses: 2,
  shortKeyWindowMs: 45_000,
  shortKeyMapMax: 20_000,
  finishedCooldownMs: 90_000,
  finishedMapMax: 50_000,
} as const;

export interface PrefetchSchedulerOptions {
  mode: () => RemoteFindMode;
  pressure: PoolPressure;
  /** 0..1; at 1 the learning queue is under pressure (LearningQueue.queuePressure). */
  learnQueuePressure: () => number;
  /** Monotonic ms. */
  now: () => number;
}

export interface PrefetchSchedulerCounters {
  queued: number;
  skippedMode: number;
  skippedPoolPressure: number;
  skippedLearnQueue: number;
  skippedQueueLevel: number;
  skippedEmpty: number;
  skippedAlreadyQueued: number;
  deferredShortKey: number;
  skippedRecentlyFinished: number;
  droppedFull: number;
  /** Times a bounded map was purged of stale entries or cleared. */
  mapsPurged: number;
}

/** The scheduling side: gates, the queue, and the per-key bookkeeping the workers update. */
export class PrefetchQueue implements PrefetchScheduler {
  readonly counters: PrefetchSchedulerCounters = {
    queued: 0,
    skippedMode: 0,
    skippedPoolPressure: 0,
    skippedLearnQueue: 0,
    skippedQueueLevel: 0,
    skippedEmpty: 0,
    skippedAlreadyQueued: 0,
    deferredShortKey: 0,
    skippedRecentlyFinished: 0,
    droppedFull: 0,
    mapsPurged: 0,
  };
  readonly queue = new BoundedQueue<string>(PREFETCH.queueMax);
  /** Keys queued or being pulled. */
  readonly #scheduled = new Set<string>();
  /** Short keys: misses in the current window. */
  readonly #misses = new Map<string, { count: number; windowStart: number }>();
  /** Keys finished, until when they stay in cool-down. */
  readonly #finished = new Map<string, number>();

  constructor(private readonly options: PrefetchSchedulerOptions) {}

  schedule(keywords: string): void {
    const c = this.counters;
    if (this.options.mode() !== 'prefetch') {
      c.skippedMode++;
      return;
    }
    if (this.options.pressure.pressure() >= POOL_PRESSURE.prefetchGate) {
      c.skippedPoolPressure++;
      return;
    }
    if (this.options.learnQueuePressure() >= 1) {
      c.skippedLearnQueue++;
      return;
    }
    if (this.queue.size >= PREFETCH.queuePressureLevel) {
      c.skippedQueueLevel++;
      return;
    }
    const key = keywords.trim();
    if (key === '') {
      c.skippedEmpty++;
      return;
    }
    if (this.#scheduled.has(key)) {
      c.skippedAlreadyQueued++;
      return;
    }
    const now = this.options.now();
    if (isShortKey(key) && !this.#countMiss(key, now)) {
      c.deferredShortKey++;
      return;
    }
    const until = this.#finished.get(key);
    if (until !== undefined) {
      if (now < until) {
        c.skippedRecentlyFinished++;
        return;
      }
      this.#finished.delete(key);
    }
    if (!this.queue.offer(key)) {
      c.droppedFull++;
      return;
    }
    this.#misses.delete(key);
    this.#scheduled.add(key);
    c.queued++;
  }

  /** Whether the key is queued or being pulled. */
  isScheduled(key: string): boolean {
    return this.#scheduled.has(key.trim());
  }

  /** A worker finished the key (whatever the outcome): it is free again after the cool-down. */
  finish(key: string): void {
    this.#scheduled.delete(key);
    if (this.#finished.size >= PREFETCH.finishedMapMax) this.#purgeFinished();
    this.#finished.set(key, this.options.now() + PREFETCH.finishedCooldownMs);
  }

  /** Forget everything queued and remembered (workers restarted). */
  reset(): void {
    while (this.queue.take() !== undefined);
    this.#scheduled.clear();
    this.#misses.clear();
    this.#finished.clear();
  }

  /** Counts a short key's miss; true once it reached the threshold within the window. */
  #countMiss(key: string, now: number): boolean {
    let entry = this.#misses.get(key);
    if (!entry || now - entry.windowStart >= PREFETCH.shortKeyWindowMs) {
      if (!entry && this.#misses.size >= PREFETCH.shortKeyMapMax) this.#purgeMisses(now);
      entry = { count: 0, windowStart: now };
      this.#misses.set(key, entry);
    }
    entry.count++;
    return entry.count >= PREFETCH.shortKeyMisses;
  }

  #purgeMisses(now: number): void {
    this.counters.mapsPurged++;
    for (const [key, entry] of this.#misses) {
      if (now - entry.windowStart >= PREFETCH.shortKeyWindowMs) this.#misses.delete(key);
    }
    if (this.#misses.size >= PREFETCH.shortKeyMapMax) this.#misses.clear();
  }

  #purgeFinished(): void {
    this.counters.mapsPurged++;
    const now = this.options.now();
    for (const [key, until] of this.#finished) if (until <= now) this.#finished.delete(key);
    if (this.#finished.size >= PREFETCH.finishedMapMax) this.#finished.clear();
  }
}

/** Keys of at most 6 characters (code points; docs/rules.md#prefetch) wait for a second miss. */
function isShortKey(key: string): boolean {
  let count = 0;
  for (const _char of key) if (++count > PREFETCH.shortKeyMaxChars) return false;
  return true;
}

/** The local store as prefetch writes it: directly, never through the composite (no mirror). */
export interface PrefetchLocal {
  findByKeywordsForReply(keywords: string): Promise<Context | null>;
  contextExistsByKeywords(keywords: string): Promise<boolean>;
  insert(context: Context): Promise<void>;
  /** Merges whole contexts: a present answer keeps the larger count, messages are united. */
  importContexts(contexts: readonly Context[]): Promise<unknown>;
}

export interface PrefetchRunnerOptions {
  local: PrefetchLocal;
  /** The community source as built now (null when none can be built). */
  remote: () => RemoteCorpusSource | null;
  budget: Pick<RemoteBudget, 'shouldSkip' | 'tryReadPermit'>;
  /** Clears the key's cached lookups after an import (composite find caches, local snapshot). */
  invalidate: (keywords: string) => void;
  /** The contamination guard: a message it rejects is not imported. */
  rejects: (message: string) => boolean;
  /** The count at which an answer is reply-ready: a local context without one is worth a pull. */
  answerThreshold: () => number;
  /** Monotonic ms (the back-off's clock); default performance.now. */
  now?: () => number;
}

export interface PrefetchRunnerCounters {
  pulled: number;
  skippedPressure: number;
  skippedNoSource: number;
  skippedLocalHit: number;
  skippedBudget: number;
  remoteMisses: number;
  remoteErrors: number;
  /** Keys not pulled while backing off from a failing hub. */
  skippedBackoff: number;
  importedInserts: number;
  importedUpserts: number;
  guardRejected: number;
}

export type PrefetchOutcome =
  | 'imported'
  | 'skipped_pressure'
  | 'no_source'
  | 'local_hit'
  | 'skipped_budget'
  | 'remote_miss'
  | 'remote_error'
  | 'backing_off';

/** After a failed pull, the next waits this long, doubling per failure up to the cap. */
const BACKOFF_FIRST_MS = 1_000;
const BACKOFF_MAX_MS = 300_000;

/** The work of one key (docs/rules.md#prefetch) and its import (docs/rules.md#prefetch). */
export class PrefetchRunner {
  readonly counters: PrefetchRunnerCounters = {
    pulled: 0,
    skippedPressure: 0,
    skippedNoSource: 0,
    skippedLocalHit: 0,
    skippedBudget: 0,
    remoteMisses: 0,
    remoteErrors: 0,
    skippedBackoff: 0,
    importedInserts: 0,
    importedUpserts: 0,
    guardRejected: 0,
  };

  #backoffMs = 0;
  #pausedUntil = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: PrefetchRunnerOptions) {}

  async run(key: string): Promise<PrefetchOutcome> {
    const { budget, local } = this.options;
    const c = this.counters;
    const now = this.options.now?.() ?? performance.now();
    // A failing hub is not asked once per new key: after a failure, pulls pause (exponentially
    // longer while it keeps failing); the misses in between are counted and dropped.
    if (now < this.#pausedUntil) {
      c.skippedBackoff++;
      return 'backing_off';
    }
    // The background gate (0.55) first: prefetch is never worth load on a busy database.
    if (budget.shouldSkip(false)) {
      c.skippedPressure++;
      return 'skipped_pressure';
    }
    const remote = this.options.remote();
    if (!remote) {
      c.skippedNoSource++;
      return 'no_source';
    }
    let found: Context | null;
    try {
      found = await local.findByKeywordsForReply(key);
    } catch (error) {
      // The local database is busy: not worth a remote read now (the next miss schedules again).
      if (!(error instanceof TransientLookupError)) throw error;
      c.skippedPressure++;
      return 'skipped_pressure';
    }
    if (hasReplyReadyAnswer(found, this.options.answerThreshold())) {
      c.skippedLocalHit++;
      return 'local_hit';
    }
    // A remote read is a hot-path read (docs/rules.md#remote-budget): it never waits for a permit.
    const release = await budget.tryReadPermit();
    if (!release) {
      c.skippedBudget++;
      return 'skipped_budget';
    }
    let context: Context | null;
    try {
      c.pulled++;
      context = await remote.findByKeywords(key);
    } catch {
      c.remoteErrors++;
      this.#backoffMs = Math.min(BACKOFF_MAX_MS, this.#backoffMs === 0 ? BACKOFF_FIRST_MS : this.#backoffMs * 2);
      this.#pausedUntil = (this.options.now?.() ?? performance.now()) + this.#backoffMs;
      return 'remote_error';
    } finally {
      release();
    }
    this.#backoffMs = 0;
    if (!context || context.answers.length === 0) {
      c.remoteMisses++;
      return 'remote_miss';
    }
    return (await this.import(key, context)) ? 'imported' : 'remote_miss';
  }

  /**
   * The community's context merged into the local one (a missing context is inserted whole): each
   * answer with its community count, an answer already present keeping the larger count, messages
   * united, so importing the same remote context twice changes nothing. Group ids are the hub's
   * (normally 0). Messages the contamination guard rejects are left out. Then the key's cached
   * lookups are cleared.
   */
  async import(key: string, remote: Context): Promise<boolean> {
    const { local, rejects } = this.options;
    if (key.trim() === '') return false;
    const answers = remote.answers
      .map((answer) => {
        const messages = answer.messages
          .map((message) => message.trim())
          .filter((message) => message !== '' && !rejects(message));
        this.counters.guardRejected += answer.messages.filter((message) => rejects(message)).length;
        return answer.messages.length > 0 && messages.length === 0 ? null : { ...answer, messages };
      })
      .filter((answer) => answer !== null);
    if (answers.length === 0) return false;
    const existed = await local.contextExistsByKeywords(key);
    await local.importContexts([{ ...remote, keywords: key, answers, bans: [] }]);
    if (existed) this.counters.importedUpserts += answers.length;
    else this.counters.importedInserts++;
    this.options.invalidate(key);
    return true;
  }
}
