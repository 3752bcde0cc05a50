/**
 * Fakes for the corpus ports, shared by the corpus unit tests: an in-memory CorpusRepository that
 * records every call, a remote source that can be healthy, slow or throwing, a mirror target, a
 * prefetch scheduler and a settable pool pressure. Plus builders for a composite over them.
 */
import { configFromValues, type ConfigSnapshot } from '../../src/config/index.ts';
import {
  replyBudgetMs,
  resolveActivation,
  type CorpusActivation,
  type StoredEnrollment,
} from '../../src/corpus/activation.ts';
import {
  CompositeRepository,
  type CompositeShared,
  type RemoteSources,
} from '../../src/corpus/composite-repository.ts';
import { FindCaches } from '../../src/corpus/find-caches.ts';
import { MirrorQueue } from '../../src/corpus/mirror-queue.ts';
import { RemoteBudget } from '../../src/corpus/remote-budget.ts';
import type {
  Answer,
  Ban,
  BanReplyTarget,
  Context,
  LearnBatchResult,
  LearnInput,
  LearnOutcome,
} from '../../src/domain/corpus.ts';
import { mergeImported } from '../../src/domain/corpus-import.ts';
import { rejectsMessage, type GuardRule } from '../../src/domain/guard.ts';
import type { CorpusRepository, ReplyLookup } from '../../src/ports/corpus-repository.ts';
import type { PoolPressure } from '../../src/ports/pool-pressure.ts';
import type { MirrorTarget, PrefetchScheduler, RemoteCorpusSource } from '../../src/ports/remote-corpus.ts';
import { FakeClock } from '../../src/common/clock.ts';
import { silentLog, type Log } from '../../src/common/log.ts';

export const NOW_SEC = 1_700_000_000;

export function deepCopy<T>(value: T): T {
  return structuredClone(value);
}

/** A promise with its resolve exposed. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Lets pending promise callbacks and immediates run. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Polls `condition` until it holds, failing after `timeoutMs` of real time. */
export async function waitFor(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export class FakePressure implements PoolPressure {
  calls = 0;
  /** As after a recent pool timeout. */
  sick = false;
  constructor(public value = 0) {}
  pressure(): number {
    this.calls++;
    return this.value;
  }
  unhealthy(): boolean {
    return this.sick;
  }
}

export interface RecordedCall {
  method: string;
  args: unknown[];
}

type Override = (...args: never[]) => Promise<unknown>;

/**
 * An in-memory corpus with the store's semantics (docs/rules.md#store-ops), recording every call. `override`
 * replaces one method (e.g. to throw a PoolTimeoutError or to delay).
 */
export class FakeLocal implements CorpusRepository {
  readonly calls: RecordedCall[] = [];
  readonly contexts = new Map<string, Context>();
  readonly override: Partial<Record<keyof CorpusRepository, Override>> = {};

  count(method: keyof CorpusRepository): number {
    return this.calls.filter((call) => call.method === method).length;
  }

  /** Calls that change data. */
  writes(): RecordedCall[] {
    const writing = ['save', 'insert', 'deleteExpired', 'upsertAnswer', 'learnAnswer', 'replaceAnswers', 'appendBan'];
    return this.calls.filter((call) => writing.includes(call.method));
  }

  seed(context: Context): void {
    this.contexts.set(context.keywords, deepCopy(context));
  }

  #record(method: keyof CorpusRepository, args: unknown[]): Override | undefined {
    this.calls.push({ method, args: deepCopy(args) });
    return this.override[method];
  }

  async findByKeywords(keywords: string): Promise<Context | null> {
    const custom = this.#record('findByKeywords', [keywords]);
    if (custom) return (await (custom as (k: string) => Promise<Context | null>)(keywords)) ?? null;
    const found = this.contexts.get(keywords);
    return found ? deepCopy(found) : null;
  }

  async findByKeywordsForReply(keywords: string): Promise<Context | null> {
    const custom = this.#record('findByKeywordsForReply', [keywords]);
    if (custom) return (await (custom as (k: string) => Promise<Context | null>)(keywords)) ?? null;
    const found = this.contexts.get(keywords);
    return found ? deepCopy(found) : null;
  }

  /** The local store's lookups are whole: what the repeater asks (the composite's form). */
  async lookupForReply(keywords: string): Promise<ReplyLookup> {
    return { context: await this.findByKeywordsForReply(keywords), complete: true };
  }

  async contextExistsByKeywords(keywords: string): Promise<boolean> {
    const custom = this.#record('contextExistsByKeywords', [keywords]);
    if (custom) return (await (custom as (k: string) => Promise<boolean>)(keywords)) === true;
    return this.contexts.has(keywords);
  }

  async save(context: Context): Promise<void> {
    this.#record('save', [context]);
    this.contexts.set(context.keywords, deepCopy(context));
  }

  async insert(context: Context): Promise<void> {
    this.#record('insert', [context]);
    if (!this.contexts.has(context.keywords)) this.contexts.set(context.keywords, deepCopy(context));
  }

  /** The store's import merge (src/domain/corpus-import.ts), in memory. */
  async importContexts(contexts: readonly Context[]): Promise<void> {
    for (const incoming of contexts) {
      this.calls.push({ method: 'insert', args: deepCopy([incoming]) });
      const merge = mergeImported(this.contexts.get(incoming.keywords) ?? null, incoming);
      if (merge.context) this.contexts.set(incoming.keywords, deepCopy(merge.context));
    }
  }

  async deleteExpired(expiration: number, threshold: number): Promise<number> {
    this.#record('deleteExpired', [expiration, threshold]);
    let deleted = 0;
    for (const [key, context] of this.contexts) {
      if (context.time < expiration && context.triggerCount < threshold) {
        this.contexts.delete(key);
        deleted++;
      }
    }
    return deleted;
  }

  async findForCleanup(triggerThreshold: number, expiration: number): Promise<Context[]> {
    this.#record('findForCleanup', [triggerThreshold, expiration]);
    return [...this.contexts.values()]
      .filter((c) => c.triggerCount > triggerThreshold || c.clearTime < expiration)
      .map((c) => deepCopy(c));
  }

  async *iterateForCleanup(triggerThreshold: number, expiration: number): AsyncIterable<Context[]> {
    this.#record('iterateForCleanup', [triggerThreshold, expiration]);
    yield [...this.contexts.values()]
      .filter((c) => c.triggerCount > triggerThreshold || c.clearTime < expiration)
      .map((c) => deepCopy(c));
  }

  async upsertAnswer(input: LearnInput): Promise<void> {
    this.#record('upsertAnswer', [input]);
    this.#upsert(input);
  }

  async learnAnswer(input: LearnInput): Promise<boolean> {
    this.#record('learnAnswer', [input]);
    if (!this.contexts.has(input.keywords)) {
      this.contexts.set(input.keywords, {
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
      });
      return true;
    }
    this.#upsert(input);
    return false;
  }

  /** Pair by pair through learnAnswer (recorded too), unless overridden; a pair that throws is `failed`. */
  async learnAnswers(inputs: readonly LearnInput[]): Promise<LearnBatchResult> {
    const custom = this.#record('learnAnswers', [inputs]);
    if (custom) return (custom as (i: readonly LearnInput[]) => Promise<LearnBatchResult>)(inputs);
    const outcomes: LearnOutcome[] = [];
    for (const input of inputs) {
      try {
        outcomes.push((await this.learnAnswer(input)) ? 'created' : 'existing');
      } catch {
        outcomes.push('failed');
      }
    }
    return { outcomes, retriedPairByPair: false };
  }

  async replaceAnswers(keywords: string, answers: Answer[], clearTime: number): Promise<void> {
    this.#record('replaceAnswers', [keywords, answers, clearTime]);
    const context = this.contexts.get(keywords);
    if (!context) return;
    context.answers = deepCopy(answers);
    context.clearTime = clearTime;
  }

  async appendBan(keywords: string, ban: Ban): Promise<void> {
    this.#record('appendBan', [keywords, ban]);
    this.contexts.get(keywords)?.bans.push({ ...ban });
  }

  async findBanReplyTarget(groupId: number, replyMessage: string): Promise<BanReplyTarget | null> {
    this.#record('findBanReplyTarget', [groupId, replyMessage]);
    for (const context of this.contexts.values()) {
      for (const answer of context.answers) {
        if (answer.groupId === groupId && answer.messages.includes(replyMessage)) {
          return { contextKeywords: context.keywords, answerKeywords: answer.keywords };
        }
      }
    }
    return null;
  }

  async listAnswersForGroupSince(groupId: number, cutoffTime: number): Promise<Answer[]> {
    this.#record('listAnswersForGroupSince', [groupId, cutoffTime]);
    return [...this.contexts.values()].flatMap((c) =>
      c.answers.filter((a) => a.groupId === groupId && a.time >= cutoffTime).map((a) => deepCopy(a)),
    );
  }

  #upsert(input: LearnInput): void {
    const context = this.contexts.get(input.keywords);
    if (!context) return;
    context.triggerCount++;
    context.time = input.answerTime;
    const found = context.answers.find((a) => a.groupId === input.groupId && a.keywords === input.answerKeywords);
    if (found) {
      found.count++;
      found.time = input.answerTime;
      if (input.appendOnExisting) found.messages.push(input.message);
    } else {
      context.answers.push({
        keywords: input.answerKeywords,
        groupId: input.groupId,
        count: 1,
        time: input.answerTime,
        messages: [input.message],
      });
    }
  }
}

export type RemoteBehaviour = 'healthy' | 'slow' | 'throwing';

/** A remote corpus: healthy (answers from `contexts`), slow (waits for `release()`) or throwing. */
export class FakeRemote implements RemoteCorpusSource {
  readonly calls: string[] = [];
  readonly contexts = new Map<string, Context>();
  #gate = deferred();

  constructor(
    public behaviour: RemoteBehaviour = 'healthy',
    private readonly order?: string[],
    private readonly label = 'remote',
  ) {}

  seed(context: Context): this {
    this.contexts.set(context.keywords, deepCopy(context));
    return this;
  }

  release(): void {
    this.#gate.resolve();
    this.#gate = deferred();
  }

  async findByKeywords(keywords: string): Promise<Context | null> {
    this.calls.push(keywords);
    this.order?.push(this.label);
    if (this.behaviour === 'throwing') throw new Error('remote down');
    if (this.behaviour === 'slow') await this.#gate.promise;
    const found = this.contexts.get(keywords);
    return found ? deepCopy(found) : null;
  }
}

export class FakeMirrorTarget implements MirrorTarget {
  readonly inserts: Context[] = [];
  readonly upserts: LearnInput[] = [];
  /** Errors thrown by the next calls, one per call. */
  readonly failures: Error[] = [];

  async insert(context: Context): Promise<void> {
    const failure = this.failures.shift();
    if (failure) throw failure;
    this.inserts.push(deepCopy(context));
  }

  async upsertAnswer(input: LearnInput): Promise<void> {
    const failure = this.failures.shift();
    if (failure) throw failure;
    this.upserts.push(deepCopy(input));
  }
}

export class FakePrefetch implements PrefetchScheduler {
  readonly scheduled: string[] = [];
  schedule(keywords: string): void {
    this.scheduled.push(keywords);
  }
}

/** Config values of an active community (manual credentials) in the given remote find mode. */
export function communityValues(
  mode: 'auto' | 'false' | 'prefetch' | 'sync',
  more: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    CHORUS_CORPUS_COMMUNITY_ENABLED: 'true',
    CHORUS_CORPUS_COMMUNITY_API_BASE: 'https://hub.example/v1/corpus',
    CHORUS_CORPUS_COMMUNITY_TOKEN: 'manual-token',
    CHORUS_CORPUS_REMOTE_FIND_ENABLED: mode,
    ...more,
  };
}

export function activationFor(
  values: Record<string, unknown> = {},
  enrollment: StoredEnrollment | null = null,
): CorpusActivation {
  const config = configFromValues(values);
  return resolveActivation({
    corpus: config.corpus,
    enrollment,
    nowSec: NOW_SEC,
    answerThreshold: config.repeater.answerThreshold,
    replyBudgetMs: replyBudgetMs(config),
  });
}

export const GUARD: GuardRule = { enabled: true, phrases: ['希望每个庆典'], exempt: ['流媒体解析bot'] };

export interface Harness {
  composite: CompositeRepository;
  local: FakeLocal;
  community: FakeRemote;
  sources: RemoteSources;
  pressure: FakePressure;
  budget: RemoteBudget;
  caches: FindCaches;
  mirror: MirrorQueue;
  prefetch: FakePrefetch;
  clock: FakeClock;
  guard: GuardRule;
  /** Replace the activation the composite sees. */
  activation: CorpusActivation;
}

export interface HarnessOptions {
  values?: Record<string, unknown>;
  sources?: (community: FakeRemote) => RemoteSources;
  remote?: FakeRemote;
  maxConcurrent?: number;
  contribution?: boolean;
  guard?: GuardRule;
  config?: ConfigSnapshot;
  /** Where the composite logs (default: nowhere). */
  log?: Log;
}

/** A composite over fakes; by default the community is active with manual credentials, mode sync. */
export function harness(options: HarnessOptions = {}): Harness {
  const clock = new FakeClock();
  const local = new FakeLocal();
  const community = options.remote ?? new FakeRemote();
  const sources = options.sources ? options.sources(community) : { community };
  const pressure = new FakePressure();
  const budget = new RemoteBudget({ pressure, maxConcurrent: options.maxConcurrent ?? 3 });
  const caches = new FindCaches({ ttlMs: 45_000, max: 50_000 }, () => clock.monotonicMs());
  const mirror = new MirrorQueue({ pressure, contributionEnabled: () => options.contribution ?? true });
  const prefetch = new FakePrefetch();
  const state: Harness = {
    local,
    community,
    sources,
    pressure,
    budget,
    caches,
    mirror,
    prefetch,
    clock,
    guard: options.guard ?? GUARD,
    activation: activationFor(options.values ?? communityValues('sync')),
    composite: undefined as unknown as CompositeRepository,
  };
  const keyListeners = new Set<(keywords: string | undefined) => void>();
  const guardCounters = { rejected: 0 };
  // The shared state as the test drives it: activation and guard are swapped by the tests.
  const shared: CompositeShared = {
    activation: () => state.activation,
    budget,
    caches,
    mirror,
    guardCounters,
    guardRejects: (message) => {
      if (!rejectsMessage(state.guard, message)) return false;
      guardCounters.rejected++;
      return true;
    },
    forgetKey: (keywords) => {
      caches.invalidate(keywords?.trim());
      for (const listener of keyListeners) listener(keywords?.trim());
    },
    onKeyChanged: (listener) => {
      keyListeners.add(listener);
      return () => keyListeners.delete(listener);
    },
  };
  state.composite = new CompositeRepository({
    local,
    sources: () => state.sources,
    shared,
    prefetch,
    clock,
    log: options.log ?? silentLog,
  });
  return state;
}
