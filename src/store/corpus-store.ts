import { TransientLookupError } from '../common/errors.ts';
import type { Answer, Ban, BanReplyTarget, Context, LearnBatchResult, LearnInput } from '../domain/corpus.ts';
import type { ImportDelta } from '../domain/corpus-import.ts';
import type { CorpusRepository } from '../ports/corpus-repository.ts';
import { POOL_PRESSURE, STORE_CHUNK } from '../common/limits.ts';
import { stripNul } from '../common/text.ts';
import { yieldToEventLoop } from '../common/adaptive-chunk.ts';
import { answersFromJoinedRows, bansFromSnapshotRows, contextFromRows, freezeContext } from './context-rows.ts';
import { importContexts, loadWholeContext } from './corpus-import.ts';
import { corpusQueries, type CorpusQueries } from './corpus-queries.ts';
import * as programs from './corpus-programs.ts';
import { runLearnBatch } from './corpus-learn-batch.ts';
import { keywordsHash } from '../domain/keywords-hash.ts';
import {
  keywordsPagePrefix,
  keywordsPageQueries,
  type ContextKey,
  type KeywordsCursor,
  type KeywordsPageQueries,
} from './keywords-page.ts';
import type { HotKeywordRow, HotKeywordsQuery } from './hot-keywords.ts';
import { first, rows, type Program } from '../sql/program.ts';
import { readFirst, readRows } from '../sql/engine.ts';
import { toNumberOr } from '../sql/numbers.ts';
import { ReplySnapshotCache, type ReplySnapshotStats } from './reply-snapshot-cache.ts';
import {
  deleteExpired,
  deletePollutedMessages,
  type PollutedMessagesDeleted,
  type PollutedMessagesOptions,
} from './corpus-bulk.ts';
import {
  cleanAnswer,
  cleanContext,
  cleanLearnInput,
  positiveInt,
  replyCaps,
  type ReplySettings,
} from './corpus-clean.ts';
import { iterateCleanupCandidates } from './corpus-cleanup-read.ts';
import { hotKeywords } from './corpus-hot-read.ts';
import { maxId, type StoreAccess } from './store-access.ts';
import type { StoreEngine } from './schema.ts';

export type { HotKeywordAnswer, HotKeywordRow, HotKeywordsQuery } from './hot-keywords.ts';
export type { ContextKey, KeywordsCursor } from './keywords-page.ts';
export type { PollutedMessagesDeleted, PollutedMessagesOptions } from './corpus-bulk.ts';
export { replyCaps, type ReplySettings } from './corpus-clean.ts';

export interface CorpusStoreStats extends ReplySnapshotStats {
  skippedPressure: number;
  snapshotSize: number;
}

/**
 * The local corpus store on SQLite or PostgreSQL (docs/rules.md#store-ops, #cache-snapshot).
 * Every stored string is NUL-free; every lookup by keywords goes through the md5 hash.
 */
export class CorpusStore implements CorpusRepository {
  readonly #engine: StoreEngine;
  readonly #q: CorpusQueries;
  readonly #access: StoreAccess;
  readonly #page: KeywordsPageQueries;
  #settings: ReplySettings;
  #snapshots: ReplySnapshotCache;
  #skippedPressure = 0;
  /** replace_answers on SQLite runs in several transactions: serialise it per key. */
  readonly #replacing = new Map<string, Promise<void>>();

  constructor(engine: StoreEngine, settings: ReplySettings) {
    this.#engine = engine;
    this.#q = corpusQueries(engine.db);
    this.#access = { engine, q: this.#q };
    this.#page = keywordsPageQueries(engine.db, engine.kind);
    this.#settings = settings;
    this.#snapshots = this.#newSnapshotCache(settings);
  }

  /** Apply new performance settings; the snapshot cache starts empty (docs/rules.md#cache-snapshot). */
  configure(settings: ReplySettings): void {
    this.#settings = settings;
    this.#snapshots = this.#newSnapshotCache(settings);
  }

  /** Drop cached reply snapshots: one key, or all of them. */
  invalidateSnapshots(keywords?: string): void {
    this.#snapshots.invalidate(keywords === undefined ? undefined : stripNul(keywords));
  }

  stats(): CorpusStoreStats {
    return { ...this.#snapshots.stats, skippedPressure: this.#skippedPressure, snapshotSize: this.#snapshots.size };
  }

  async findByKeywords(keywords: string): Promise<Context | null> {
    const key = stripNul(keywords);
    const q = this.#q;
    return this.#engine.run(() => loadWholeContext(q, key));
  }

  /**
   * Imports contexts in one unit of work (the import rules of src/domain/corpus-import.ts); the
   * reply snapshots of the keys written are dropped. The caller sizes the batches.
   */
  async importContexts(contexts: readonly Context[]): Promise<ImportDelta[]> {
    const clean = contexts.map(cleanContext);
    const q = this.#q;
    const deltas = await this.#engine.run(() => importContexts(q, clean), { write: true });
    for (const context of clean) this.#snapshots.invalidate(context.keywords);
    return deltas;
  }

  async countContexts(): Promise<number> {
    const query = this.#q.countContexts({});
    const row = await readFirst(this.#engine, query);
    return toNumberOr(row?.n, 0);
  }

  /** Every context with all its answers, messages and bans, in id order, in short steps (export). */
  iterateAllContexts(): AsyncIterable<Context[]> {
    // Every context matches the cleanup scan with a trigger threshold below any count.
    return this.iterateForCleanup(-1, 0);
  }

  /**
   * The bounded snapshot for replies. Rejects with TransientLookupError, without querying, when
   * the pool is under pressure or a pool timeout for this key is recent, and when the query
   * outlives its timeout: none of these is a miss, and no cache may take it for one. The
   * returned context is frozen: it is shared through the cache.
   */
  async findByKeywordsForReply(keywords: string): Promise<Context | null> {
    const key = stripNul(keywords);
    if (!key.trim()) return null;
    if (this.#engine.pressure() >= POOL_PRESSURE.replySkip) {
      this.#skippedPressure++;
      throw new TransientLookupError('pressure');
    }
    return this.#snapshots.get(key, () => this.#loadSnapshot(key));
  }

  async contextExistsByKeywords(keywords: string): Promise<boolean> {
    const hash = keywordsHash(stripNul(keywords));
    const q = this.#q;
    return this.#engine.run(function* () {
      return (yield* first(q.contextIdByHash({ hash }))) !== undefined;
    });
  }

  async save(context: Context): Promise<void> {
    const clean = cleanContext(context);
    const q = this.#q;
    await this.#engine.run(() => programs.saveContext(q, clean), { write: true });
    this.#snapshots.invalidate(clean.keywords);
  }

  async insert(context: Context): Promise<void> {
    const clean = cleanContext(context);
    const q = this.#q;
    const inserted = await this.#engine.run(() => programs.insertContext(q, clean), { write: true });
    if (inserted) this.#snapshots.invalidate(clean.keywords);
  }

  async upsertAnswer(input: LearnInput): Promise<void> {
    const clean = cleanLearnInput(input);
    const q = this.#q;
    // Not invalidated: a hot key keeps serving its snapshot until the TTL (docs/rules.md#cache-snapshot).
    await this.#engine.run(() => programs.upsertAnswer(q, clean), { write: true });
  }

  async learnAnswer(input: LearnInput): Promise<boolean> {
    const clean = cleanLearnInput(input);
    const q = this.#q;
    const created = await this.#engine.run(() => programs.learnAnswer(q, clean), { write: true });
    // A learned key is answerable at once: neither a cached miss nor a snapshot taken before this
    // answer reached the threshold may hide it (the next lookup of the key reloads it).
    this.#snapshots.invalidate(clean.keywords);
    return created;
  }

  /** learn_answer for many pairs in one unit of work (corpus-learn-batch.ts); snapshots dropped after commit. */
  async learnAnswers(inputs: readonly LearnInput[]): Promise<LearnBatchResult> {
    return runLearnBatch(this.#access, inputs.map(cleanLearnInput), (keywords) => this.#snapshots.invalidate(keywords));
  }

  async appendBan(keywords: string, ban: Ban): Promise<void> {
    const key = stripNul(keywords);
    const clean: Ban = { ...ban, keywords: stripNul(ban.keywords), reason: stripNul(ban.reason) };
    const q = this.#q;
    const appended = await this.#engine.run(() => programs.appendBan(q, key, clean), { write: true });
    if (appended) this.#snapshots.invalidate(key);
  }

  async findBanReplyTarget(groupId: number, replyMessage: string): Promise<BanReplyTarget | null> {
    const query = this.#q.banReplyTarget({ groupId, message: stripNul(replyMessage) });
    const row = await readFirst(this.#engine, query);
    return row ? { contextKeywords: row.context_keywords, answerKeywords: row.answer_keywords } : null;
  }

  async listAnswersForGroupSince(groupId: number, cutoffTime: number): Promise<Answer[]> {
    const query = this.#q.answersOfGroupSince({ groupId, cutoff: cutoffTime });
    return answersFromJoinedRows(await readRows(this.#engine, query));
  }

  async replaceAnswers(keywords: string, answers: Answer[], clearTime: number): Promise<void> {
    const key = stripNul(keywords);
    const previous = this.#replacing.get(key) ?? Promise.resolve();
    const current = previous.then(() => this.#replaceAnswers(key, answers.map(cleanAnswer), clearTime));
    const settled = current.catch(() => undefined);
    this.#replacing.set(key, settled);
    try {
      await current;
    } finally {
      if (this.#replacing.get(key) === settled) this.#replacing.delete(key);
    }
  }

  /**
   * Deletes in steps over id ranges, each its own short transaction (corpus-bulk.ts), so that a
   * million-row corpus never holds the event loop (SQLite) or long locks (PostgreSQL).
   */
  async deleteExpired(expiration: number, threshold: number): Promise<number> {
    const deleted = await deleteExpired(this.#access, expiration, threshold);
    if (deleted > 0) this.#snapshots.invalidate();
    return deleted;
  }

  async findForCleanup(triggerThreshold: number, expiration: number): Promise<Context[]> {
    const found: Context[] = [];
    for await (const page of this.iterateForCleanup(triggerThreshold, expiration)) found.push(...page);
    return found;
  }

  /** Cleanup candidates a page at a time, each page loaded in short steps (corpus-cleanup-read.ts). */
  iterateForCleanup(triggerThreshold: number, expiration: number): AsyncIterable<Context[]> {
    return iterateCleanupCandidates(this.#access, triggerThreshold, expiration);
  }

  /** Local hot keywords (docs/rules.md#local-hot), read in short steps (corpus-hot-read.ts). */
  hotKeywords(query: HotKeywordsQuery): Promise<HotKeywordRow[]> {
    return hotKeywords(this.#access, query);
  }

  /**
   * Up to `limit` contexts after `after` in keywords order (by a 64-character keywords prefix, then
   * id: see keywords-page.ts), ids and keywords only; `null` (or an empty cursor) starts at the
   * beginning. A cursor without an id continues after the context with those keywords, or after
   * the start of their prefix when it no longer exists. Two index range reads, at any corpus size.
   */
  async pageContextKeys(after: KeywordsCursor | null, limit: number): Promise<ContextKey[]> {
    const size = positiveInt(limit, 'limit');
    let prefix = '';
    let id = 0;
    if (after && (after.keywords !== '' || after.id !== null)) {
      const keywords = stripNul(after.keywords);
      prefix = keywordsPagePrefix(keywords);
      if (after.id !== null) id = after.id;
      else {
        const hash = keywordsHash(keywords);
        const q = this.#q;
        const row = await readFirst(this.#engine, q.contextIdByHash({ hash }));
        id = row ? Number(row.id) : 0;
      }
    }
    const page = this.#page;
    const found = await this.#engine.run(function* (): Program<ContextKey[]> {
      const same = yield* rows(page.samePrefixAfter({ prefix, id, limit: size }));
      if (same.length >= size) return same;
      const later = yield* rows(page.prefixesAfter({ prefix, limit: size - same.length }));
      return [...same, ...later];
    });
    return found.map((row) => ({ id: Number(row.id), keywords: row.keywords }));
  }

  /** Contamination cleanup (docs/rules.md#cleanup) over id windows in short transactions (corpus-bulk.ts). */
  async deletePollutedMessages(options: PollutedMessagesOptions): Promise<PollutedMessagesDeleted> {
    const deleted = await deletePollutedMessages(this.#access, options);
    if (deleted.answerMessages > 0 || deleted.logMessages > 0) this.#snapshots.invalidate();
    return deleted;
  }

  async #replaceAnswers(key: string, answers: Answer[], clearTime: number): Promise<void> {
    const q = this.#q;
    const hash = keywordsHash(key);
    const contextRow = await readFirst(this.#engine, q.contextIdByHash({ hash }));
    if (!contextRow) return;
    const contextId = contextRow.id;
    if (this.#engine.longTransactions || answers.length <= STORE_CHUNK.replaceAnswers) {
      // One transaction: all or nothing. The context row is locked first (by setting clear_time),
      // as every other write does, or a concurrent learn on one of its answers would deadlock.
      const answerCountSum = programs.replacedAnswerCountSum(answers);
      await this.#engine.run(
        function* () {
          yield* programs.execOnly(q.setClearTime({ contextId, clearTime, answerCountSum }));
          const kept = yield* programs.putAnswers(q, contextId, answers);
          yield* programs.deleteOrphanAnswers(q, contextId, new Set(kept));
        },
        { write: true },
      );
    } else {
      // SQLite with a large context: short transactions, so the event loop keeps breathing.
      // Every step is idempotent, so a crash part-way leaves a context a rerun completes.
      const kept = new Set<number>();
      for (const batch of programs.chunks(answers, STORE_CHUNK.replaceAnswers)) {
        const ids = await this.#engine.run(() => programs.putAnswers(q, contextId, batch), { write: true });
        for (const id of ids) kept.add(id);
        await yieldToEventLoop();
      }
      // Learns may have counted in between: the sum is recounted with the last step.
      await this.#engine.run(
        function* () {
          yield* programs.deleteOrphanAnswers(q, contextId, kept);
          yield* programs.execOnly(q.setClearTimeRecount({ contextId, clearTime }));
        },
        { write: true },
      );
    }
    this.#snapshots.invalidate(key);
  }

  async #loadSnapshot(key: string): Promise<Context | null> {
    const { messages, answers } = replyCaps(key.trim(), this.#settings);
    const q = this.#q;
    const hash = keywordsHash(key);
    const context = await this.#engine.run(function* (): Program<Context | null> {
      const contextRows = yield* rows(q.snapshotContext({ hash }));
      const row = contextRows[0];
      if (!row) return null;
      const answerRows = yield* rows(
        q.snapshotAnswers({ contextId: row.id, answersCap: answers, messagesOffset: messages - 1 }),
      );
      return contextFromRows(row, answersFromJoinedRows(answerRows), bansFromSnapshotRows(contextRows));
    });
    return context && freezeContext(context);
  }

  async #maxContextId(): Promise<number> {
    return maxId(this.#access, this.#q.maxContextId({}));
  }

  #newSnapshotCache(settings: ReplySettings): ReplySnapshotCache {
    return new ReplySnapshotCache({
      ttlMs: settings.replySnapshotSec * 1000,
      max: settings.replySnapshotMax,
      queryTimeoutMs: settings.replyQueryTimeoutSec * 1000,
      transientErrors: true,
    });
  }
}
