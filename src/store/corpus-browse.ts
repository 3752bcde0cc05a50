/**
 * Reading the corpus for the console: search by trigger keywords or answer text (prefix or
 * substring, paged) and whole-context views with answers, sample messages and bans.
 *
 * A prefix search is an index range read: `ix_context_keywords_prefix` for keywords,
 * `ix_context_answer_message_prefix` (migration 0005) for answer text, both on a 64-character
 * prefix in code point order. A substring search scans (instr / strpos) in id order and stops at
 * the page's end, so a frequent substring is fast and a rare one costs a scan (bench:corpus-search).
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { stripNul } from '../shared/text.ts';
import type { SqlEngine } from './engine.ts';
import { KEYWORDS_PAGE_PREFIX, KEYWORDS_PAGE_PREFIX_CHARS } from './keywords-page.ts';
import { MESSAGE_PREFIX, MESSAGE_PREFIX_CHARS, type EngineKind } from './migrations.ts';
import { first, rows, type BoundQuery, type Program } from './program.ts';
import { bound } from './query.ts';
import type { Database } from './schema.ts';

export type SearchField = 'all' | 'keywords' | 'answer';
export type SearchMatch = 'prefix' | 'substring';

export interface SearchQuery {
  text: string;
  field: SearchField;
  match: SearchMatch;
  offset: number;
  limit: number;
}

export interface AnswerView {
  id: number;
  keywords: string;
  groupId: number;
  count: number;
  time: number;
  /** Newest first, at most the view's sample size. */
  messages: string[];
  messageCount: number;
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
}

/** How much of each context a view shows. */
export interface ViewSize {
  answers: number;
  messages: number;
}

export const SEARCH_VIEW: ViewSize = { answers: 20, messages: 3 };
export const DETAIL_VIEW: ViewSize = { answers: 500, messages: 50 };

/** The highest code point: `prefix || MAX` bounds a prefix range in code point order. */
const MAX_CHAR = '\u{10FFFF}';

type Db = Kysely<Database>;

export class CorpusBrowser {
  readonly #engine: SqlEngine;
  readonly #db: Db;
  readonly #kind: EngineKind;

  constructor(engine: SqlEngine) {
    this.#engine = engine;
    this.#db = engine.db;
    this.#kind = engine.kind;
  }

  async search(query: SearchQuery): Promise<SearchPage> {
    const text = stripNul(query.text);
    if (text === '') return { items: [], hasMore: false };
    const ids = await this.#engine.run(() =>
      rows<{ id: number | string }>(compiled(this.#idQuery(text, query), this.#db)),
    );
    const found = ids.map((row) => Number(row.id));
    const hasMore = found.length > query.limit;
    const items = await this.views(found.slice(0, query.limit), SEARCH_VIEW);
    return { items, hasMore };
  }

  async answerGroup(answerId: number): Promise<number | null> {
    const query = bound(this.#db.selectFrom('context_answer').select('group_id').where('id', '=', answerId));
    const row = await this.#engine.run(() => first<{ group_id: number | string }>(query));
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
      sql`SELECT id, context_id, keywords, group_id, count, time FROM (
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
    const found = await this.#engine.run(function* (): Program<{
      contexts: ContextRow[];
      answers: AnswerRow[];
      bans: BanRow[];
      messages: MessageRow[];
      counts: { answer_id: number | string; n: number | string }[];
    }> {
      const contextRows = yield* rows<ContextRow>(contexts);
      const answerRows = yield* rows<AnswerRow>(answers);
      const banRows = yield* rows<BanRow>(bans);
      const answerIds = answerRows.map((row) => Number(row.id));
      if (answerIds.length === 0)
        return { contexts: contextRows, answers: [], bans: banRows, messages: [], counts: [] };
      const list = sql.join(answerIds);
      const messages = yield* rows<MessageRow>(
        compiled(
          sql`SELECT answer_id, message FROM (
                SELECT answer_id, message, id, ROW_NUMBER() OVER (PARTITION BY answer_id ORDER BY id DESC) AS n
                FROM context_answer_message WHERE answer_id IN (${list})) ranked
              WHERE n <= ${size.messages} ORDER BY answer_id, id DESC`,
          db,
        ),
      );
      const counts = yield* rows<{ answer_id: number | string; n: number | string }>(
        compiled(
          sql`SELECT answer_id, COUNT(*) AS n FROM context_answer_message WHERE answer_id IN (${list})
              GROUP BY answer_id`,
          db,
        ),
      );
      return { contexts: contextRows, answers: answerRows, bans: banRows, messages, counts };
    });
    return assemble(ids, found);
  }

  #idQuery(text: string, query: SearchQuery): RawBuilder<{ id: number }> {
    const page = sql`LIMIT ${query.limit + 1} OFFSET ${query.offset}`;
    const byKeywords = query.field !== 'answer';
    const byAnswer = query.field !== 'keywords';
    if (query.match === 'prefix') {
      const kw = prefixRange(KEYWORDS_PAGE_PREFIX[this.#kind], 'keywords', text, KEYWORDS_PAGE_PREFIX_CHARS);
      const msg = prefixRange(MESSAGE_PREFIX[this.#kind], 'm.message', text, MESSAGE_PREFIX_CHARS);
      const kwIds = sql`SELECT id FROM context WHERE ${kw}`;
      const msgIds = sql`SELECT a.context_id AS id FROM context_answer_message m
        JOIN context_answer a ON a.id = m.answer_id WHERE ${msg}`;
      const union =
        byKeywords && byAnswer
          ? sql`${kwIds} UNION ${msgIds}`
          : byKeywords
            ? kwIds
            : sql`SELECT DISTINCT id FROM (${msgIds}) x`;
      return sql<{ id: number }>`SELECT id FROM (${union}) found ORDER BY id ${page}`;
    }
    const contains = (column: string) =>
      this.#kind === 'sqlite'
        ? sql`instr(${sql.ref(column)}, ${text}) > 0`
        : sql`strpos(${sql.ref(column)}, ${text}) > 0`;
    const kwIds = sql`SELECT id FROM context WHERE ${contains('keywords')}`;
    const msgIds = sql`SELECT a.context_id AS id FROM context_answer_message m
      JOIN context_answer a ON a.id = m.answer_id WHERE ${contains('m.message')}`;
    if (byKeywords && !byAnswer) return sql<{ id: number }>`${kwIds} ORDER BY id ${page}`;
    const union = byKeywords ? sql`${kwIds} UNION ${msgIds}` : sql`SELECT DISTINCT id FROM (${msgIds}) x`;
    return sql<{ id: number }>`SELECT id FROM (${union}) found ORDER BY id ${page}`;
  }
}

/** A raw statement bound for the engine. */
export function compiled(statement: RawBuilder<unknown>, db: Db): BoundQuery {
  const { sql: text, parameters } = statement.compile(db);
  return { sql: text, parameters };
}

/** `expr` in [prefix, prefix || MAX), plus an exact check when the text is longer than the index. */
function prefixRange(expression: string, column: string, text: string, chars: number) {
  const head = [...text].slice(0, chars).join('');
  const range = sql`${sql.raw(expression)} >= ${head} AND ${sql.raw(expression)} < ${head + MAX_CHAR}`;
  if (head.length === text.length) return range;
  return sql`${range} AND substr(${sql.ref(column)}, 1, ${[...text].length}) = ${text}`;
}

interface ContextRow {
  id: number | string;
  keywords: string;
  time: number | string;
  trigger_count: number | string;
  clear_time: number | string;
  answer_count_sum: number | string;
}
interface AnswerRow {
  id: number | string;
  context_id: number | string;
  keywords: string;
  group_id: number | string;
  count: number | string;
  time: number | string;
}
interface BanRow {
  id: number | string;
  context_id: number | string;
  keywords: string;
  group_id: number | string;
  reason: string;
  time: number | string;
}
interface MessageRow {
  answer_id: number | string;
  message: string;
}

function assemble(
  ids: readonly number[],
  found: {
    contexts: ContextRow[];
    answers: AnswerRow[];
    bans: BanRow[];
    messages: MessageRow[];
    counts: { answer_id: number | string; n: number | string }[];
  },
): ContextView[] {
  const messages = new Map<number, string[]>();
  for (const row of found.messages) {
    const list = messages.get(Number(row.answer_id)) ?? [];
    list.push(row.message);
    messages.set(Number(row.answer_id), list);
  }
  const counts = new Map(found.counts.map((row) => [Number(row.answer_id), Number(row.n)]));
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
