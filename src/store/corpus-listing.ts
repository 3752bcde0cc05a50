/**
 * Which contexts the console's corpus browser lists without a search text, and the context a typed
 * sentence's keywords name. Every statement is bounded by its page (offset + limit + 1 rows, or a
 * bounded walk), so a browse costs about the same on a corpus of a thousand contexts or a million:
 * - `newest`: everywhere, the newest contexts by id (the primary key, read backwards); in one group,
 *   that group's newest answers (`ix_context_answer_group_time`) read in short steps until the page
 *   holds enough distinct contexts;
 * - `most_sent`: contexts by how often the bot sent one of their answers (reply_usage, written by
 *   the reply-usage buffer: one row per context, answer and group ever answered). Ranking means
 *   reading all of it (about 80 ms of SQLite's event loop at 200,000 rows), so the ranking of the
 *   first MAX_RANKED contexts is kept for RANKING_TTL_MS per group (SentRanking) and pages are cut
 *   from it;
 * - `most_banned`: contexts by their number of bans (context_ban; small).
 * Measured by bench:corpus-search (`browse …` cases).
 */
import { sql } from 'kysely';
import { stripNul } from '../common/text.ts';
import { keywordsHash } from '../domain/keywords-hash.ts';
import { readFirst, readRows } from '../sql/engine.ts';
import { bound, compiled } from '../sql/query.ts';
import type { IdPage } from './corpus-search.ts';
import type { StoreEngine } from './schema.ts';

export type BrowseOrder = 'newest' | 'most_sent' | 'most_banned';

export interface BrowseQuery {
  order: BrowseOrder;
  /** One group's answers, sends or bans; null: everywhere. */
  groupId: number | null;
  /** The group a ban everywhere is stored under (src/repeater/limits.ts GLOBAL_BAN_GROUP). */
  everywhereGroup: number;
  offset: number;
  limit: number;
}

/** Contexts of the most-sent ranking kept; pages past it are read afresh. */
const MAX_RANKED = 2_000;
/** How long a most-sent ranking is reused: what the bot sent in the last half minute may be missing. */
export const RANKING_TTL_MS = 30_000;

/** Answer rows one step of the per-group `newest` walk reads. */
const GROUP_STEP_ROWS = 500;
/** Steps the per-group walk takes at most: past them the page holds what was found. */
const GROUP_MAX_STEPS = 40;

/** The id of the context stored under exactly these keywords, or null. */
export async function contextIdByKeywords(engine: StoreEngine, keywords: string): Promise<number | null> {
  const key = stripNul(keywords).trim();
  if (key === '') return null;
  const query = bound(engine.db.selectFrom('context').select('id').where('keywords_hash', '=', keywordsHash(key)));
  const row = await readFirst(engine, query);
  return row ? Number(row.id) : null;
}

/** The most-sent rankings of one store, per group (null: everywhere), reused for RANKING_TTL_MS. */
export class SentRanking {
  readonly #engine: StoreEngine;
  readonly #now: () => number;
  readonly #kept = new Map<number | null, { at: number; ids: Promise<number[]> }>();

  constructor(engine: StoreEngine, now: () => number = () => performance.now()) {
    this.#engine = engine;
    this.#now = now;
  }

  async ids(groupId: number | null, wanted: number): Promise<number[]> {
    if (wanted > MAX_RANKED) return mostSent(this.#engine, groupId, wanted);
    const kept = this.#kept.get(groupId);
    if (kept && this.#now() - kept.at < RANKING_TTL_MS) return kept.ids;
    // Few groups are browsed: the map stays small, and an old entry is replaced, never grown.
    const ids = mostSent(this.#engine, groupId, MAX_RANKED);
    this.#kept.set(groupId, { at: this.#now(), ids });
    ids.catch(() => this.#kept.delete(groupId));
    return ids;
  }
}

export async function browseContextIds(
  engine: StoreEngine,
  query: BrowseQuery,
  ranking: SentRanking = new SentRanking(engine),
): Promise<IdPage> {
  const wanted = query.offset + query.limit + 1;
  let ids: number[];
  if (query.order === 'newest') {
    ids = query.groupId === null ? await newest(engine, wanted) : await newestInGroup(engine, query.groupId, wanted);
  } else if (query.order === 'most_sent') {
    ids = (await ranking.ids(query.groupId, wanted)).slice(0, wanted);
  } else {
    ids = await mostBanned(engine, query.groupId, query.everywhereGroup, wanted);
  }
  const page = ids.slice(query.offset, query.offset + query.limit);
  return { ids: page, hasMore: ids.length > query.offset + query.limit, partial: false };
}

async function newest(engine: StoreEngine, wanted: number): Promise<number[]> {
  const query = bound(engine.db.selectFrom('context').select('id').orderBy('id', 'desc').limit(wanted));
  return (await readRows(engine, query)).map((row) => Number(row.id));
}

/**
 * A group's answers newest first, walked in steps: one context has many answers, so the distinct
 * contexts are collected until the page is full (or the walk's bound is reached).
 */
async function newestInGroup(engine: StoreEngine, groupId: number, wanted: number): Promise<number[]> {
  const found = new Set<number>();
  for (let step = 0; step < GROUP_MAX_STEPS && found.size < wanted; step++) {
    const query = bound(
      engine.db
        .selectFrom('context_answer')
        .select('context_id')
        .where('group_id', '=', groupId)
        .orderBy('time', 'desc')
        .orderBy('id', 'desc')
        .limit(GROUP_STEP_ROWS)
        .offset(step * GROUP_STEP_ROWS),
    );
    const rows = await readRows(engine, query);
    for (const row of rows) {
      found.add(Number(row.context_id));
      if (found.size >= wanted) break;
    }
    if (rows.length < GROUP_STEP_ROWS) break;
  }
  return [...found];
}

async function mostSent(engine: StoreEngine, groupId: number | null, wanted: number): Promise<number[]> {
  const where = groupId === null ? sql`` : sql`WHERE u.group_id = ${groupId}`;
  const statement = compiled(
    sql<{ id: number }>`SELECT c.id AS id FROM (
        SELECT u.context_hash AS hash, SUM(u.sent_count) AS sent, MAX(u.last_sent) AS last_sent
        FROM reply_usage u ${where} GROUP BY u.context_hash) ranked
      JOIN context c ON c.keywords_hash = ranked.hash
      ORDER BY ranked.sent DESC, ranked.last_sent DESC, c.id DESC LIMIT ${wanted}`,
    engine.db,
  );
  return (await readRows(engine, statement)).map((row) => Number(row.id));
}

async function mostBanned(
  engine: StoreEngine,
  groupId: number | null,
  everywhereGroup: number,
  wanted: number,
): Promise<number[]> {
  // In one group: its own bans and the bans everywhere, which hold there too.
  const where = groupId === null ? sql`` : sql`WHERE b.group_id IN (${groupId}, ${everywhereGroup})`;
  const statement = compiled(
    sql<{ id: number }>`SELECT b.context_id AS id FROM context_ban b ${where}
      GROUP BY b.context_id ORDER BY COUNT(*) DESC, MAX(b.time) DESC, b.context_id DESC LIMIT ${wanted}`,
    engine.db,
  );
  return (await readRows(engine, statement)).map((row) => Number(row.id));
}
