/**
 * Reading the corpus for the console: search by trigger keywords or answer text (prefix or
 * substring, paged) and whole-context views with answers, sample messages and bans.
 *
 * Which contexts a search finds is decided in corpus-search.ts (index reads, or a scan in short
 * windows); this file turns ids into views.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import { stripNul } from '../common/text.ts';
import { searchContextIds, type IdPage, type SearchQuery } from './corpus-search.ts';
import { browseContextIds, contextIdByKeywords, SentRanking, type BrowseQuery } from './corpus-listing.ts';
import { rows, type Program } from '../sql/program.ts';
import { readFirst } from '../sql/engine.ts';
import { bound, compiled } from '../sql/query.ts';
import { ReplyUsageStore, usageKey, type UsageView } from './reply-usage.ts';
import type { ContextAnswerRow, MessageRow } from './corpus-rows.ts';
import type { ContextBanTable, ContextTable, Database, StoreEngine } from './schema.ts';
import { toNumber, type DbNumber } from '../sql/numbers.ts';

export type { SearchField, SearchMatch, SearchQuery } from './corpus-search.ts';
export type { BrowseOrder, BrowseQuery } from './corpus-listing.ts';

export interface AnswerView {
  id: number;
  keywords: string;
  groupId: number;
  count: number;
  time: number;
  /** Newest first, at most the view's sample size. */
  messages: string[];
  messageCount: number;
  /** Where the bot sent this answer as a reply: per group, newest first. */
  usage: UsageView[];
}

export interface BanView {
  id: number;
  keywords: string;
  groupId: number;
  reason: string;
  time: number;
}

export interface ContextView {
  id: number;
  keywords: string;
  time: number;
  triggerCount: number;
  clearTime: number;
  answerCountSum: number;
  answers: AnswerView[];
  bans: BanView[];
}

export interface SearchPage {
  items: ContextView[];
  hasMore: boolean;
  /** A scanning search stopped at its time budget: more matches may exist further on. */
  partial: boolean;
  /** The context stored under the typed sentence's keywords (listed first), or null. */
  keywordsMatch: number | null;
}

/** How much of each context a view shows. */
export interface ViewSize {
  answers: number;
  messages: number;
}

export const SEARCH_VIEW: ViewSize = { answers: 20, messages: 3 };
export const DETAIL_VIEW: ViewSize = { answers: 500, messages: 50 };

type Db = Kysely<Database>;

export class CorpusBrowser {
  readonly #engine: StoreEngine;
  readonly #db: Db;
  readonly #usage: ReplyUsageStore;
  readonly #ranking: SentRanking;

  constructor(engine: StoreEngine, now?: () => number) {
    this.#engine = engine;
    this.#db = engine.db;
    this.#usage = new ReplyUsageStore(engine);
    this.#ranking = new SentRanking(engine, now);
  }

  /**
   * Contexts whose keywords or answer messages match `query.text`. `sentenceKeywords` is the text
   * turned into keywords as the bot turns a message into keywords (the caller owns the
   * extractor): the context stored under them, when there is one, comes first on the first page,
   * so typing what a member said finds the phrase the bot learned from it.
   */
  async search(query: SearchQuery, sentenceKeywords = ''): Promise<SearchPage> {
    const text = stripNul(query.text);
    if (text === '') return { items: [], hasMore: false, partial: false, keywordsMatch: null };
    const exact = query.field === 'answer' ? null : await contextIdByKeywords(this.#engine, sentenceKeywords);
    const found = await searchContextIds(this.#engine, text, query);
    let ids = found.ids;
    if (exact !== null) {
      ids = ids.filter((id) => id !== exact);
      if (query.offset === 0) ids = [exact, ...ids];
    }
    return this.#page({ ...found, ids }, exact);
  }

  /** Contexts without a search text: newest, most sent or most banned, in one group or everywhere. */
  async browse(query: BrowseQuery): Promise<SearchPage> {
    return this.#page(await browseContextIds(this.#engine, query, this.#ranking), null);
  }

  async #page(found: IdPage, keywordsMatch: number | null): Promise<SearchPage> {
    const items = await this.views(found.ids, SEARCH_VIEW);
    return { items, hasMore: found.hasMore, partial: found.partial, keywordsMatch };
  }

  async answerGroup(answerId: number): Promise<number | null> {
    const query = bound(this.#db.selectFrom('context_answer').select('group_id').where('id', '=', answerId));
    const row = await readFirst(this.#engine, query);
    return row ? Number(row.group_id) : null;
  }

  /** Views of the given contexts, in the given order (missing ones left out). */
  async views(ids: readonly number[], size: ViewSize): Promise<ContextView[]> {
    if (ids.length === 0) return [];
    const db = this.#db;
    const contexts = bound(
      db
        .selectFrom('context')
        .selectAll()
        .where('id', 'in', [...ids]),
    );
    const answers = compiled(
      sql<ContextAnswerRow>`SELECT id, context_id, keywords, group_id, count, time FROM (
            SELECT a.*, ROW_NUMBER() OVER (PARTITION BY context_id ORDER BY count DESC, time DESC, id) AS n
            FROM context_answer a WHERE context_id IN (${sql.join([...ids])})) ranked
          WHERE n <= ${size.answers} ORDER BY context_id, n`,
      db,
    );
    const bans = bound(
      db
        .selectFrom('context_ban')
        .selectAll()
        .where('context_id', 'in', [...ids])
        .orderBy('id'),
    );
    const found = await this.#engine.run(function* (): Program<Found> {
      const contextRows = yield* rows(contexts);
      const answerRows = yield* rows(answers);
      const banRows = yield* rows(bans);
      const answerIds = answerRows.map((row) => Number(row.id));
      if (answerIds.length === 0)
        return { contexts: contextRows, answers: [], bans: banRows, messages: [], counts: [] };
      const list = sql.join(answerIds);
      const messages = yield* rows(
        compiled(
          sql<MessageRow>`SELECT answer_id, message FROM (
                SELECT answer_id, message, id, ROW_NUMBER() OVER (PARTITION BY answer_id ORDER BY id DESC) AS n
                FROM context_answer_message WHERE answer_id IN (${list})) ranked
              WHERE n <= ${size.messages} ORDER BY answer_id, id DESC`,
          db,
        ),
      );
      const counts = yield* rows(
        compiled(
          sql<MessageCount>`SELECT answer_id, COUNT(*) AS n FROM context_answer_message WHERE answer_id IN (${list})
              GROUP BY answer_id`,
          db,
        ),
      );
      return { contexts: contextRows, answers: answerRows, bans: banRows, messages, counts };
    });
    const views = assemble(ids, found);
    const pairs = views.flatMap((view) =>
      view.answers.map((answer) => ({ contextKeywords: view.keywords, answerKeywords: answer.keywords })),
    );
    const usage = await this.#usage.usageOf(pairs);
    for (const view of views) {
      for (const answer of view.answers) answer.usage = usage.get(usageKey(view.keywords, answer.keywords)) ?? [];
    }
    return views;
  }
}

/** Answer messages counted per answer (raw SQL above). */
interface MessageCount {
  answer_id: number;
  n: DbNumber;
}

/** What one page's unit of work reads, before it is assembled into views. */
interface Found {
  contexts: Selectable<ContextTable>[];
  answers: ContextAnswerRow[];
  bans: Selectable<ContextBanTable>[];
  messages: MessageRow[];
  counts: MessageCount[];
}

function assemble(ids: readonly number[], found: Found): ContextView[] {
  const messages = new Map<number, string[]>();
  for (const row of found.messages) {
    const list = messages.get(Number(row.answer_id)) ?? [];
    list.push(row.message);
    messages.set(Number(row.answer_id), list);
  }
  const counts = new Map(found.counts.map((row) => [Number(row.answer_id), toNumber(row.n)]));
  const views = new Map<number, ContextView>();
  for (const row of found.contexts) {
    views.set(Number(row.id), {
      id: Number(row.id),
      keywords: row.keywords,
      time: Number(row.time),
      triggerCount: Number(row.trigger_count),
      clearTime: Number(row.clear_time),
      answerCountSum: Number(row.answer_count_sum),
      answers: [],
      bans: [],
    });
  }
  for (const row of found.answers) {
    const id = Number(row.id);
    views.get(Number(row.context_id))?.answers.push({
      id,
      keywords: row.keywords,
      groupId: Number(row.group_id),
      count: Number(row.count),
      time: Number(row.time),
      messages: messages.get(id) ?? [],
      messageCount: counts.get(id) ?? 0,
      usage: [],
    });
  }
  for (const row of found.bans) {
    views.get(Number(row.context_id))?.bans.push({
      id: Number(row.id),
      keywords: row.keywords,
      groupId: Number(row.group_id),
      reason: row.reason,
      time: Number(row.time),
    });
  }
  return ids.flatMap((id) => views.get(id) ?? []);
}
