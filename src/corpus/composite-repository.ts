import type {
  Answer,
  Ban,
  BanReplyTarget,
  Context,
  LearnBatchResult,
  LearnInput,
  LearnOutcome,
} from '../domain/corpus.ts';
import { mergeContexts } from '../domain/merge.ts';
import { hasReplyReadyAnswer } from '../domain/reply-ready.ts';
import type { CorpusRepository, ReplyLookup, ReplyLookupSource } from '../ports/corpus-repository.ts';
import type { PrefetchScheduler, RemoteCorpusSource, RemoteSourceName } from '../ports/remote-corpus.ts';
import type { Clock } from '../common/clock.ts';
import { SLOW_PATH_MS } from '../common/limits.ts';
import { RateLimitedLog, type Log } from '../common/log.ts';
import { TIMED_OUT, withTimeout } from '../common/timeout.ts';
import type { CorpusState } from './corpus-state.ts';

export type RemoteSources = Partial<Record<RemoteSourceName, RemoteCorpusSource>>;

/** What the composite uses of the state it shares with the community side (CorpusState). */
export type CompositeShared = Pick<
  CorpusState,
  'activation' | 'budget' | 'caches' | 'mirror' | 'forgetKey' | 'onKeyChanged' | 'guardRejects' | 'guardCounters'
>;

export interface CompositeDeps {
  local: CorpusRepository;
  /** The remote sources as built now (rebuilt when credentials change). */
  sources: () => RemoteSources;
  shared: CompositeShared;
  prefetch: PrefetchScheduler;
  /** Told of every ban written through the composite (chat bans): the community hears of it. */
  banned?: (contextKeywords: string, answerKeywords: string) => void;
  clock: Clock;
  log: Log;
}

export interface CompositeCounters {
  guardRejected: number;
  remoteErrors: number;
  /** Hot-path remote reads abandoned at the reply budget (the local answers went out without them). */
  remoteTimeouts: number;
  prefetchScheduled: number;
}

type LocalLookup = (keywords: string) => Promise<Context | null>;

/**
 * What a merge tells its cache: a remote read skipped, failed or (past `deadline`, on the reply
 * path) abandoned calls `incomplete`, and the merge is answered but not stored
 * (docs/rules.md#transient-not-miss).
 */
interface MergeBound {
  deadline?: number;
  incomplete: () => void;
}

/** Left of the reply budget for the local lookup and the decision after the remote reads. */
const REPLY_MARGIN_MS = 150;
/** A remote read gets at least this long, however small the budget. */
const MIN_REMOTE_MS = 50;

/**
 * The corpus as callers see it (docs/rules.md#store-ops): the local store plus, when active,
 * remote sources merged in `merge_order`, behind the same interface. Reads are cached; writes go
 * to the local store, then to the mirror. A failing remote source is skipped, never an error
 * (on_remote_failure = local_only); a failing local store is an error.
 */
export class CompositeRepository implements CorpusRepository, ReplyLookupSource {
  readonly counters: CompositeCounters;
  readonly #deps: CompositeDeps;
  readonly #slowLog: RateLimitedLog;

  constructor(deps: CompositeDeps) {
    this.#deps = deps;
    this.#slowLog = new RateLimitedLog(deps.log, () => deps.clock.monotonicMs());
    const guard = deps.shared.guardCounters;
    this.counters = {
      // The guard is shared with the prefetch import: its refusals are counted in one place.
      get guardRejected() {
        return guard.rejected;
      },
      remoteErrors: 0,
      remoteTimeouts: 0,
      prefetchScheduled: 0,
    };
  }

  /**
   * Clear the find caches for one key, or entirely (docs/rules.md#cache-find), and tell the listeners: the
   * repeater drops its cached misses for the key, so a phrase just learned answers at once.
   */
  invalidateFindCache(keywords?: string): void {
    this.#deps.shared.forgetKey(keywords);
  }

  /** Called with each key whose stored context changed (undefined: possibly every key). */
  onKeyChanged(listener: (keywords: string | undefined) => void): () => void {
    return this.#deps.shared.onKeyChanged(listener);
  }

  /**
   * Whether reads go through the merge and its caches: the composite is active and at least one
   * remote source could be built (docs/rules.md#corpus-sources; without one the local store answers directly).
   */
  wrapping(): boolean {
    const sources = this.#deps.sources();
    return (
      this.#deps.shared.activation().compositeActive && (sources.community !== undefined || sources.fed !== undefined)
    );
  }

  async findByKeywords(keywords: string): Promise<Context | null> {
    if (!this.wrapping()) return this.#deps.local.findByKeywords(keywords);
    const key = keywords.trim();
    if (!key) return null;
    return this.#timed('find', key, () =>
      this.#deps.shared.caches.merged.get(key, (dontStore) =>
        this.#merge(key, (k) => this.#deps.local.findByKeywords(k), { incomplete: dontStore }),
      ),
    );
  }

  /** The hot path's context (see `lookupForReply`). */
  async findByKeywordsForReply(keywords: string): Promise<Context | null> {
    return (await this.lookupForReply(keywords)).context;
  }

  /**
   * The hot path. Mode sync merges every source (remote reads take a permit without waiting);
   * otherwise only the local snapshot answers, and in prefetch mode every miss, cached or not,
   * is reported to the prefetch scheduler without waiting (its gates count repeated misses, so it
   * must see them all). A context without answers counts as a miss. The answer says whether it is
   * whole: one missing a remote part is neither cached here nor by the caller
   * (docs/rules.md#transient-not-miss).
   */
  async lookupForReply(keywords: string): Promise<ReplyLookup> {
    if (!this.wrapping()) return { context: await this.#deps.local.findByKeywordsForReply(keywords), complete: true };
    const key = keywords.trim();
    if (!key) return { context: null, complete: true };
    const activation = this.#deps.shared.activation();
    const mode = activation.remoteFindMode;
    const started = this.#deps.clock.monotonicMs();
    const found = await this.#deps.shared.caches.reply.lookup(key, async (dontStore) => {
      if (mode === 'sync') {
        // Remote reads get what is left of the reply budget: a slow hub never costs a reply the
        // local answers could give. A merge missing a remote part is answered, not cached.
        const deadline = started + Math.max(MIN_REMOTE_MS, activation.replyBudgetMs - REPLY_MARGIN_MS);
        return this.#merge(key, (k) => this.#deps.local.findByKeywordsForReply(k), { deadline, incomplete: dontStore });
      }
      const local = await this.#deps.local.findByKeywordsForReply(key);
      return local && local.answers.length > 0 ? local : null;
    });
    // A miss or a weak hit (answers, none reply-ready) may be filled from the community. A null
    // during a database failure window is not a miss: nothing to pull for it.
    const weak = !hasReplyReadyAnswer(found.value, activation.answerThreshold);
    if (weak && mode === 'prefetch' && found.complete) {
      this.counters.prefetchScheduled++;
      this.#deps.prefetch.schedule(key);
    }
    return { context: found.value, complete: found.complete };
  }

  async contextExistsByKeywords(keywords: string): Promise<boolean> {
    if (await this.localContextExistsByKeywords(keywords)) return true;
    if (!this.wrapping() || this.#deps.shared.activation().remoteFindMode !== 'sync') return false;
    const sources = this.#deps.sources();
    // A fixed order, not merge_order (docs/rules.md#corpus-reads).
    for (const name of ['fed', 'community'] as const) {
      const source = sources[name];
      if (!source) continue;
      const found = await this.#remoteFind(name, source, keywords.trim());
      if (found) return true;
    }
    return false;
  }

  /** Existence in the local store only: never touches a remote source. */
  async localContextExistsByKeywords(keywords: string): Promise<boolean> {
    return this.#timed('exists', keywords, () => this.#deps.local.contextExistsByKeywords(keywords));
  }

  async learnAnswer(input: LearnInput): Promise<boolean> {
    if (this.#rejected(input.message)) return false;
    const created = await this.#deps.local.learnAnswer(input);
    this.invalidateFindCache(input.keywords);
    if (created) this.#deps.shared.mirror.scheduleInsert(oneAnswerContext(input));
    else this.#deps.shared.mirror.scheduleUpsert(input);
    return created;
  }

  /**
   * learn_answer for a batch (docs/rules.md#corpus-writes, #learn-write): the guard per pair, one
   * local unit of work for the pairs it lets through, then, once that has committed, what
   * learnAnswer does per pair: the key's cached lookups dropped (once per key) and the mirror told.
   */
  async learnAnswers(inputs: readonly LearnInput[]): Promise<LearnBatchResult> {
    const outcomes: LearnOutcome[] = inputs.map(() => 'rejected');
    const accepted = inputs.filter((input) => !this.#rejected(input.message));
    if (accepted.length === 0) return { outcomes, retriedPairByPair: false };
    const written = await this.#deps.local.learnAnswers(accepted);
    const forgotten = new Set<string>();
    let position = 0;
    for (const [index, input] of inputs.entries()) {
      if (input !== accepted[position]) continue;
      const outcome = written.outcomes[position++] ?? 'failed';
      outcomes[index] = outcome;
      if (outcome !== 'created' && outcome !== 'existing') continue;
      if (!forgotten.has(input.keywords)) {
        forgotten.add(input.keywords);
        this.invalidateFindCache(input.keywords);
      }
      if (outcome === 'created') this.#deps.shared.mirror.scheduleInsert(oneAnswerContext(input));
      else this.#deps.shared.mirror.scheduleUpsert(input);
    }
    return { ...written, outcomes };
  }

  async upsertAnswer(input: LearnInput): Promise<void> {
    if (this.#rejected(input.message)) return;
    await this.#deps.local.upsertAnswer(input);
    this.invalidateFindCache(input.keywords);
    this.#deps.shared.mirror.scheduleUpsert(input);
  }

  async insert(context: Context): Promise<void> {
    if (context.answers.some((answer) => answer.messages.some((message) => this.#rejected(message)))) return;
    await this.#deps.local.insert(context);
    this.invalidateFindCache(context.keywords);
    this.#deps.shared.mirror.scheduleInsert(context);
  }

  // Local-only operations. Unlike the origin they clear the key's cached lookups, so a ban or a
  // rewrite is visible at once rather than after the cache TTL.

  async save(context: Context): Promise<void> {
    await this.#deps.local.save(context);
    this.invalidateFindCache(context.keywords);
  }

  async replaceAnswers(keywords: string, answers: Answer[], clearTime: number): Promise<void> {
    await this.#deps.local.replaceAnswers(keywords, answers, clearTime);
    this.invalidateFindCache(keywords);
  }

  async appendBan(keywords: string, ban: Ban): Promise<void> {
    await this.#deps.local.appendBan(keywords, ban);
    this.invalidateFindCache(keywords);
    this.#deps.banned?.(keywords, ban.keywords);
  }

  async deleteExpired(expiration: number, threshold: number): Promise<number> {
    const deleted = await this.#deps.local.deleteExpired(expiration, threshold);
    if (deleted > 0) this.invalidateFindCache();
    return deleted;
  }

  findForCleanup(triggerThreshold: number, expiration: number): Promise<Context[]> {
    return this.#deps.local.findForCleanup(triggerThreshold, expiration);
  }

  iterateForCleanup(triggerThreshold: number, expiration: number): AsyncIterable<Context[]> {
    return this.#deps.local.iterateForCleanup(triggerThreshold, expiration);
  }

  findBanReplyTarget(groupId: number, replyMessage: string): Promise<BanReplyTarget | null> {
    return this.#deps.local.findBanReplyTarget(groupId, replyMessage);
  }

  listAnswersForGroupSince(groupId: number, cutoffTime: number): Promise<Answer[]> {
    return this.#deps.local.listAnswersForGroupSince(groupId, cutoffTime);
  }

  /** The merged lookup over `merge_order` (docs/rules.md#corpus-reads). */
  async #merge(key: string, localLookup: LocalLookup, bound: MergeBound): Promise<Context | null> {
    const activation = this.#deps.shared.activation();
    const sources = this.#deps.sources();
    let merged: Context | null = null;
    for (const name of activation.mergeOrder) {
      if (name === 'local') {
        merged = mergeContexts(merged, await localLookup(key), activation.mergeStrategy);
        // Only a reply-ready local answer ends the lookup: a weak hit still asks the others.
        if (activation.mergeStrategy === 'local_first' && hasReplyReadyAnswer(merged, activation.answerThreshold)) {
          return merged;
        }
        continue;
      }
      if (activation.remoteFindMode !== 'sync') continue;
      const source = sources[name];
      if (!source) continue;
      merged = mergeContexts(merged, await this.#remoteFind(name, source, key, bound), activation.mergeStrategy);
    }
    return merged;
  }

  /**
   * One remote read under the hot-path budget; skipped or failed reads are misses, and tell the
   * bound so (docs/rules.md#transient-not-miss). With a deadline, the read is abandoned at it (the
   * permit is held until the request ends, so the concurrency limit stays true).
   */
  async #remoteFind(
    name: RemoteSourceName,
    source: RemoteCorpusSource,
    key: string,
    bound?: MergeBound,
  ): Promise<Context | null> {
    const release = await this.#deps.shared.budget.tryReadPermit();
    if (!release) {
      bound?.incomplete();
      return null;
    }
    const read = source.findByKeywords(key).finally(release);
    try {
      if (bound?.deadline === undefined) return await read;
      const leftMs = bound.deadline - this.#deps.clock.monotonicMs();
      const found = leftMs > 0 ? await withTimeout(read, leftMs) : TIMED_OUT;
      if (found !== TIMED_OUT) return found;
      read.catch(() => undefined);
      this.counters.remoteTimeouts++;
      bound.incomplete();
      this.#slowLog.warn(
        `remote-${name}-slow`,
        { source: name, ms: Math.round(leftMs) },
        'remote corpus source too slow for a reply',
      );
      return null;
    } catch (error) {
      if (this.#deps.shared.activation().onRemoteFailure !== 'local_only') throw error;
      this.counters.remoteErrors++;
      bound?.incomplete();
      this.#slowLog.warn(`remote-${name}`, { source: name, error: errorText(error) }, 'remote corpus source failed');
      return null;
    }
  }

  /** Whether the contamination guard refuses `message` (counted like any other rejection). */
  guardRejects(message: string): boolean {
    return this.#rejected(message);
  }

  #rejected(message: string): boolean {
    return this.#deps.shared.guardRejects(message);
  }

  async #timed<T>(scope: 'find' | 'exists', key: string, work: () => Promise<T>): Promise<T> {
    const started = this.#deps.clock.monotonicMs();
    try {
      return await work();
    } finally {
      const elapsed = this.#deps.clock.monotonicMs() - started;
      if (elapsed >= SLOW_PATH_MS[scope]) {
        this.#slowLog.warn(`slow-${scope}`, { ms: Math.round(elapsed), keyLength: key.length }, `slow corpus ${scope}`);
      }
    }
  }
}

/** The context a first learn event creates, as mirrored (docs/rules.md#corpus-writes). */
export function oneAnswerContext(input: LearnInput): Context {
  return {
    keywords: input.keywords,
    time: input.answerTime,
    triggerCount: 1,
    clearTime: 0,
    answers: [
      {
        keywords: input.answerKeywords,
        groupId: input.groupId,
        count: 1,
        time: input.answerTime,
        messages: [input.message],
      },
    ],
    bans: [],
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
