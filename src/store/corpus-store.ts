import { TransientLookupError } from '../shared/errors.ts';
import type { Answer, Ban, BanReplyTarget, Context, LearnInput } from '../domain/corpus.ts';
import type { ImportDelta } from '../domain/corpus-import.ts';
import type { CorpusRepository } from '../ports/corpus-repository.ts';
import { POOL_PRESSURE, REPLY_SHORT_KEY_CAPS, STORE_CHUNK } from '../shared/limits.ts';
import { stripNul } from '../shared/text.ts';
import { AdaptiveChunk, yieldToEventLoop } from './adaptive-chunk.ts';
import {
  answersFromJoinedRows,
  answersWithMessages,
  banFromRow,
  bansFromSnapshotRows,
  contextFromRows,
  freezeContext,
} from './context-rows.ts';
import type {
  AnswerRow,
  AnswerWithMessageRow,
  BanRow,
  ContextRow,
  HotAnswerRow,
  HotContextRow,
  MessageRow,
  PhraseMatch,
  SnapshotContextRow,
} from './corpus-queries.ts';
import { importContexts, loadWholeContext } from './corpus-import.ts';
import { corpusQueries, type CorpusQueries } from './corpus-queries.ts';
import * as programs from './corpus-programs.ts';
import type { SqlEngine } from './engine.ts';
import { keywordsHash } from './keywords-hash.ts';
import {
  keywordsPagePrefix,
  keywordsPageQueries,
  type ContextKey,
  type KeywordsCursor,
  type KeywordsPageQueries,
} from './keywords-page.ts';
import {
  HOT_KEYWORDS_OVERFETCH,
  hotKeywordRows,
  TopContexts,
  type HotKeywordRow,
  type HotKeywordsQuery,
} from './hot-keywords.ts';
import { first, rows, type Program } from './program.ts';
import { ReplySnapshotCache, type ReplySnapshotStats } from './reply-snapshot-cache.ts';

export type { HotKeywordAnswer, HotKeywordRow, HotKeywordsQuery } from './hot-keywords.ts';
export type { ContextKey, KeywordsCursor } from './keywords-page.ts';

/** The performance settings the store reads (config section `performance`). */
export interface ReplySettings {
  replyMessagesCap: number;
  replyAnswersCap: number;
  replySnapshotSec: number;
  replySnapshotMax: number;
  replyQueryTimeoutSec: number;
}

export interface CorpusStoreStats extends ReplySnapshotStats {
  skippedPressure: number;
  snapshotSize: number;
}

/** Target duration of one synchronous step of bulk work (well under the 20 ms stall budget). */
const BULK_STEP_TARGET_MS = 4;

/** Contamination cleanup (rule cleanup): what to delete, and how much at most per call. */
export interface PollutedMessagesOptions {
  /** A message containing one of these is polluted; empty strings are ignored. */
  phrases: readonly string[];
  /** ...unless it also contains one of these. */
  exempt: readonly string[];
  /** At most this many answer messages, and at most this many group log rows, per call. */
  maxDelete: number;
}

export interface PollutedMessagesDeleted {
  answerMessages: number;
  /** Answers deleted because this call removed their last message. */
  emptyAnswers: number;
  logMessages: number;
}

/** Rows deleted per cleanup statement, at most (the origin deletes in chunks of 500). */
const POLLUTED_DELETE_CHUNK = 500;

/**
 * The local corpus store on SQLite or PostgreSQL (rules store-ops, cache-snapshot).
 * Every stored string is NUL-free; every lookup by keywords goes through the md5 hash.
 */
export class CorpusStore implements CorpusRepository {
  readonly #engine: SqlEngine;
  readonly #q: CorpusQueries;
  readonly #page: KeywordsPageQueries;
  #settings: ReplySettings;
  #snapshots: ReplySnapshotCache;
  #skippedPressure = 0;
  /** replace_answers on SQLite runs in several transactions: serialise it per key. */
  readonly #replacing = new Map<string, Promise<void>>();

  constructor(engine: SqlEngine, settings: ReplySettings) {
    this.#engine = engine;
    this.#q = corpusQueries(engine.db);
    this.#page = keywordsPageQueries(engine.db, engine.kind);
    this.#settings = settings;
    this.#snapshots = this.#newSnapshotCache(settings);
  }

  /** Apply new performance settings; the snapshot cache starts empty (rule cache-snapshot). */
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
    const row = await this.#engine.run(() => first<{ n: number | string }>(query));
    return Number(row?.n ?? 0);
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
    // Not invalidated: a hot key keeps serving its snapshot until the TTL (rule cache-snapshot).
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

  async appendBan(keywords: string, ban: Ban): Promise<void> {
    const key = stripNul(keywords);
    const clean: Ban = { ...ban, keywords: stripNul(ban.keywords), reason: stripNul(ban.reason) };
    const q = this.#q;
    const appended = await this.#engine.run(() => programs.appendBan(q, key, clean), { write: true });
    if (appended) this.#snapshots.invalidate(key);
  }

  async findBanReplyTarget(groupId: number, replyMessage: string): Promise<BanReplyTarget | null> {
    const query = this.#q.banReplyTarget({ groupId, message: stripNul(replyMessage) });
    const row = await this.#engine.run(() => first<{ context_keywords: string; answer_keywords: string }>(query));
    return row ? { contextKeywords: row.context_keywords, answerKeywords: row.answer_keywords } : null;
  }

  async listAnswersForGroupSince(groupId: number, cutoffTime: number): Promise<Answer[]> {
    const query = this.#q.answersOfGroupSince({ groupId, cutoff: cutoffTime });
    return answersFromJoinedRows(await this.#engine.run(() => rows<AnswerWithMessageRow>(query)));
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
   * Deletes in steps over id ranges, each its own short transaction, so that a million-row
   * corpus never holds the event loop (SQLite) or long locks (PostgreSQL).
   */
  async deleteExpired(expiration: number, threshold: number): Promise<number> {
    const maxId = await this.#maxContextId();
    // A delete cascades to answers and messages and dirties pages across every index: start
    // small and let the step grow, rather than start at the scan size and overrun the budget.
    const step = new AdaptiveChunk(STORE_CHUNK.deleteIds, 16, 200_000, BULK_STEP_TARGET_MS);
    let deleted = 0;
    for (let fromId = 0; fromId < maxId;) {
      const toId = Math.min(maxId, fromId + step.size);
      const query = this.#q.deleteExpiredInRange({ fromId, toId, expiration, threshold });
      const started = performance.now();
      deleted += await this.#engine.run(() => programs.execOnly(query), { write: true });
      step.record(performance.now() - started);
      fromId = toId;
      await yieldToEventLoop();
    }
    if (deleted > 0) this.#snapshots.invalidate();
    return deleted;
  }

  async findForCleanup(triggerThreshold: number, expiration: number): Promise<Context[]> {
    const found: Context[] = [];
    for await (const page of this.iterateForCleanup(triggerThreshold, expiration)) found.push(...page);
    return found;
  }

  async *iterateForCleanup(triggerThreshold: number, expiration: number): AsyncIterable<Context[]> {
    const maxId = await this.#maxContextId();
    const scan = new AdaptiveChunk(STORE_CHUNK.scanIds, 64, 200_000, BULK_STEP_TARGET_MS);
    const load = {
      page: new AdaptiveChunk(STORE_CHUNK.cleanupPage, 1, 1000, BULK_STEP_TARGET_MS),
      messages: new AdaptiveChunk(STORE_CHUNK.cleanupMessageAnswers, 16, 5000, BULK_STEP_TARGET_MS),
    };
    for (let fromId = 0; fromId < maxId;) {
      const limit = load.page.size;
      // Fixed before the step is timed: recording it resizes the next range, not this one.
      const toId = Math.min(maxId, fromId + scan.size);
      const query = this.#q.cleanupCandidatesInRange({ fromId, toId, triggerThreshold, expiration, limit });
      const started = performance.now();
      const candidates = await this.#engine.run(() => rows<ContextRow>(query));
      scan.record(performance.now() - started);
      // A full page may stop short of the range's end: continue right after its last row.
      const last = candidates.at(-1);
      fromId = candidates.length === limit && last ? last.id : toId;
      if (candidates.length === 0) {
        await yieldToEventLoop();
        continue;
      }
      await yieldToEventLoop();
      yield await this.#loadContexts(candidates, load);
      await yieldToEventLoop();
    }
  }

  /**
   * Local hot keywords (rule local-hot): up to `limit × HOT_KEYWORDS_OVERFETCH` contexts
   * by answer count sum desc, keywords asc (code point order on both engines), each with its top
   * `answersPerKeyword` answers (count desc, answer keywords asc) and their first messages. With
   * scope 'group' and a groupId, scores and answers count only that group's answers.
   *
   * PostgreSQL: two statements. SQLite: the global ranking is one index walk; the per-group
   * aggregate walks context id windows and the answers come in groups of contexts, each step
   * short (adaptive), so that no synchronous call holds the event loop long at any corpus size.
   */
  async hotKeywords(query: HotKeywordsQuery): Promise<HotKeywordRow[]> {
    const size = positiveInt(query.limit, 'limit') * HOT_KEYWORDS_OVERFETCH;
    const perContext = positiveInt(query.answersPerKeyword, 'answersPerKeyword');
    const groupId = query.scope === 'group' && typeof query.groupId === 'number' ? query.groupId : undefined;
    const contexts =
      groupId === undefined
        ? await this.#engine.run(() => rows<HotContextRow>(this.#q.hotContexts({ limit: size })))
        : await this.#hotContextsOfGroup(groupId, size);
    if (contexts.length === 0) return [];
    const answers: HotAnswerRow[] = [];
    const step = new AdaptiveChunk(64, 8, 4096, BULK_STEP_TARGET_MS);
    for (let start = 0; start < contexts.length;) {
      const count = this.#engine.longTransactions ? contexts.length : step.size;
      const ids = contexts.slice(start, start + count).map((row) => row.id);
      const statement =
        groupId === undefined
          ? this.#q.hotAnswers(ids, perContext)
          : this.#q.hotAnswersOfGroup(ids, groupId, perContext);
      if (start > 0) await yieldToEventLoop();
      const started = performance.now();
      answers.push(...(await this.#engine.run(() => rows<HotAnswerRow>(statement))));
      step.record(performance.now() - started);
      start += ids.length;
    }
    return hotKeywordRows(contexts, answers);
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
        const row = await this.#engine.run(() => first<{ id: number }>(q.contextIdByHash({ hash })));
        id = row ? Number(row.id) : 0;
      }
    }
    const page = this.#page;
    const found = await this.#engine.run(function* (): Program<ContextKey[]> {
      const same = yield* rows<ContextKey>(page.samePrefixAfter({ prefix, id, limit: size }));
      if (same.length >= size) return same;
      const later = yield* rows<ContextKey>(page.prefixesAfter({ prefix, limit: size - same.length }));
      return [...same, ...later];
    });
    return found.map((row) => ({ id: Number(row.id), keywords: row.keywords }));
  }

  /**
   * Contamination cleanup (rule cleanup): deletes answer messages containing a phrase and no
   * exempt phrase, then the answers this left without any message (recounting their contexts'
   * sums), then group log rows likewise; at most `maxDelete` of each kind. Works over id windows
   * in short transactions. An empty phrase list deletes nothing.
   */
  async deletePollutedMessages(options: PollutedMessagesOptions): Promise<PollutedMessagesDeleted> {
    const deleted: PollutedMessagesDeleted = { answerMessages: 0, emptyAnswers: 0, logMessages: 0 };
    const cleanList = (list: readonly string[]) => [...new Set(list.map(stripNul).filter((text) => text !== ''))];
    const match: PhraseMatch = { phrases: cleanList(options.phrases), exempt: cleanList(options.exempt) };
    const cap = Number.isFinite(options.maxDelete) ? Math.floor(options.maxDelete) : 0;
    if (match.phrases.length === 0 || cap <= 0) return deleted;
    const q = this.#q;

    const answerMessagesMaxId = await this.#maxId(q.maxAnswerMessageId({}));
    await this.#scanWindows(answerMessagesMaxId, cap, async (window) => {
      const result = await this.#engine.run(() => programs.deletePollutedAnswerMessages(q, window, match), {
        write: true,
      });
      deleted.answerMessages += result.answerMessages;
      deleted.emptyAnswers += result.emptyAnswers;
      return { ...result, deleted: result.answerMessages };
    });

    const logMaxId = await this.#maxId(q.maxLogMessageId({}));
    await this.#scanWindows(logMaxId, cap, async (window) => {
      const result = await this.#engine.run(() => programs.deletePollutedLogMessages(q, window, match), {
        write: true,
      });
      deleted.logMessages += result.deleted;
      return result;
    });

    if (deleted.answerMessages > 0 || deleted.logMessages > 0) this.#snapshots.invalidate();
    return deleted;
  }

  /**
   * Runs `step` over id windows (0, maxId], sized to stay short, until `cap` rows were deleted. A
   * step asks for at most the rest of the cap (and POLLUTED_DELETE_CHUNK); when it found as many
   * as it asked for, the next window starts right after its last row.
   */
  async #scanWindows(
    maxId: number,
    cap: number,
    step: (window: {
      fromId: number;
      toId: number;
      limit: number;
    }) => Promise<{ found: number; lastId: number; deleted: number }>,
  ): Promise<void> {
    const size = new AdaptiveChunk(STORE_CHUNK.scanIds, 64, 1_000_000, BULK_STEP_TARGET_MS);
    let remaining = cap;
    for (let fromId = 0; fromId < maxId && remaining > 0;) {
      const toId = Math.min(maxId, fromId + size.size);
      const limit = Math.min(remaining, POLLUTED_DELETE_CHUNK);
      const started = performance.now();
      const result = await step({ fromId, toId, limit });
      size.record(performance.now() - started);
      remaining -= result.deleted;
      fromId = result.found === limit ? result.lastId : toId;
      await yieldToEventLoop();
    }
  }

  /**
   * The best `size` contexts of one group. PostgreSQL: one aggregate over the group's answers.
   * SQLite: the same statement over context id windows, keeping the best so far; a window only
   * joins contexts scoring at least the current last place, so later windows cost little.
   */
  async #hotContextsOfGroup(groupId: number, size: number): Promise<readonly HotContextRow[]> {
    const q = this.#q;
    if (this.#engine.longTransactions) {
      const query = q.hotContextsOfGroupInRange({
        groupId,
        fromId: 0,
        toId: Number.MAX_SAFE_INTEGER,
        minScore: 1,
        limit: size,
        lastPlace: size - 1,
      });
      return this.#engine.run(() => rows<HotContextRow>(query));
    }
    const maxId = await this.#maxContextId();
    const best = new TopContexts(size);
    const step = new AdaptiveChunk(16_384, 256, 4_000_000, BULK_STEP_TARGET_MS);
    for (let fromId = 0; fromId < maxId;) {
      const toId = Math.min(maxId, fromId + step.size);
      const query = q.hotContextsOfGroupInRange({
        groupId,
        fromId,
        toId,
        minScore: best.minScore,
        limit: size,
        lastPlace: size - 1,
      });
      const started = performance.now();
      best.add(await this.#engine.run(() => rows<HotContextRow>(query)));
      step.record(performance.now() - started);
      fromId = toId;
      if (fromId < maxId) await yieldToEventLoop();
    }
    return best.rows;
  }

  async #replaceAnswers(key: string, answers: Answer[], clearTime: number): Promise<void> {
    const q = this.#q;
    const hash = keywordsHash(key);
    const contextRow = await this.#engine.run(() => first<{ id: number }>(q.contextIdByHash({ hash })));
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

  /**
   * Loads whole contexts in short steps: their answers and bans in one call (the page size adapts
   * to its time), then the messages in batches of answer ids (adapting too), yielding between
   * calls. Cleanup candidates are the biggest contexts; one call for all their messages held the
   * SQLite event loop for tens of ms at a million contexts (bench:store).
   */
  async #loadContexts(
    contextRows: ContextRow[],
    steps: { page: AdaptiveChunk; messages: AdaptiveChunk },
  ): Promise<Context[]> {
    const q = this.#q;
    const ids = contextRows.map((row) => row.id);
    let started = performance.now();
    const [answerRows, banRows] = await this.#engine.run(function* (): Program<
      [(AnswerRow & { context_id: number })[], BanRow[]]
    > {
      const answers = yield* rows<AnswerRow & { context_id: number }>(q.answersOfContexts(ids));
      const bans = yield* rows<BanRow>(q.bansOfContexts(ids));
      return [answers, bans];
    });
    steps.page.record(performance.now() - started);
    const messageRows: MessageRow[] = [];
    for (let index = 0; index < answerRows.length;) {
      const batch = answerRows.slice(index, index + steps.messages.size).map((row) => row.id);
      index += batch.length;
      await yieldToEventLoop();
      started = performance.now();
      const query = q.messagesOfAnswers(batch);
      messageRows.push(...(await this.#engine.run(() => rows<MessageRow>(query))));
      steps.messages.record(performance.now() - started);
    }
    const answersById = answersWithMessages(answerRows, messageRows);
    const answersByContext = new Map<number, Answer[]>();
    for (const row of answerRows) {
      const answer = answersById.get(row.id);
      if (!answer) continue;
      const list = answersByContext.get(row.context_id) ?? [];
      list.push(answer);
      answersByContext.set(row.context_id, list);
    }
    const bansByContext = new Map<number, Ban[]>();
    for (const row of banRows) {
      const list = bansByContext.get(row.context_id) ?? [];
      list.push(banFromRow(row));
      bansByContext.set(row.context_id, list);
    }
    return contextRows.map((row) =>
      contextFromRows(row, answersByContext.get(row.id) ?? [], bansByContext.get(row.id) ?? []),
    );
  }

  async #loadSnapshot(key: string): Promise<Context | null> {
    const { messages, answers } = replyCaps(key.trim(), this.#settings);
    const q = this.#q;
    const hash = keywordsHash(key);
    const context = await this.#engine.run(function* (): Program<Context | null> {
      const contextRows = yield* rows<SnapshotContextRow>(q.snapshotContext({ hash }));
      const row = contextRows[0];
      if (!row) return null;
      const answerRows = yield* rows<AnswerWithMessageRow>(
        q.snapshotAnswers({ contextId: row.id, answersCap: answers, messagesOffset: messages - 1 }),
      );
      return contextFromRows(row, answersFromJoinedRows(answerRows), bansFromSnapshotRows(contextRows));
    });
    return context && freezeContext(context);
  }

  async #maxContextId(): Promise<number> {
    return this.#maxId(this.#q.maxContextId({}));
  }

  async #maxId(query: ReturnType<CorpusQueries['maxContextId']>): Promise<number> {
    const row = await this.#engine.run(() => first<{ max_id: number | null }>(query));
    return Number(row?.max_id ?? 0);
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

/**
 * Caps for one key: tightened by the character length of the keywords (rule cache-snapshot). Characters
 * are code points, as the origin's `len()` counts them: an emoji is one character, not two.
 */
export function replyCaps(key: string, settings: ReplySettings): { messages: number; answers: number } {
  const length = codePointLength(key, SHORT_KEY_MAX_CHARS + 1);
  for (const rule of REPLY_SHORT_KEY_CAPS) {
    if (length <= rule.maxChars) {
      return {
        messages: Math.min(settings.replyMessagesCap, rule.messages),
        answers: Math.min(settings.replyAnswersCap, rule.answers),
      };
    }
  }
  return { messages: settings.replyMessagesCap, answers: settings.replyAnswersCap };
}

const SHORT_KEY_MAX_CHARS = Math.max(...REPLY_SHORT_KEY_CAPS.map((rule) => rule.maxChars));

/** The number of code points of `text`, counting no further than `limit`. */
function codePointLength(text: string, limit: number): number {
  let count = 0;
  for (const _char of text) if (++count >= limit) break;
  return count;
}

function positiveInt(value: number, name: string): number {
  if (!Number.isFinite(value) || value < 1) throw new RangeError(`${name} must be a positive number, got ${value}`);
  return Math.floor(value);
}

function cleanAnswer(answer: Answer): Answer {
  return { ...answer, keywords: stripNul(answer.keywords), messages: answer.messages.map(stripNul) };
}

function cleanContext(context: Context): Context {
  return {
    ...context,
    keywords: stripNul(context.keywords),
    answers: context.answers.map(cleanAnswer),
    bans: context.bans.map((ban) => ({ ...ban, keywords: stripNul(ban.keywords), reason: stripNul(ban.reason) })),
  };
}

function cleanLearnInput(input: LearnInput): LearnInput {
  return {
    ...input,
    keywords: stripNul(input.keywords),
    answerKeywords: stripNul(input.answerKeywords),
    message: stripNul(input.message),
  };
}
