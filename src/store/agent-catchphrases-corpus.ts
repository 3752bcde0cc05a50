/**
 * What the catchphrase miner reads of a group's corpus (docs/agent-catchphrases.md), in bounded
 * statements: the group's answers are aggregated by answer keywords over its newest `scanRows`
 * answers only (an index range on `ix_context_answer_group_time`), so a group with millions of
 * answers costs the same as one with `scanRows`. The community's answers (group 0) are read only
 * when asked, and only after the phrases this group talks about. Also the answer keywords banned
 * in the group or everywhere (context bans and blacklists), which the miner leaves out.
 */
import { sql } from 'kysely';
import { EVERYWHERE_GROUP } from '../domain/activity.ts';
import { readRows } from '../sql/engine.ts';
import { rows, type Program } from '../sql/program.ts';
import { compiled } from '../sql/query.ts';
import { toNumber, type DbNumber } from '../sql/numbers.ts';
import type { StoreEngine } from './schema.ts';

/** The community's anonymised answers carry group 0 (src/domain/corpus.ts). */
const SHARED_GROUP = 0;

export interface FrequentAnswerQuery {
  /** The group's newest answers looked at. */
  scanRows: number;
  /** Answer keywords said fewer times than this are left out. */
  minCount: number;
  /** At most this many answer keywords, most said first. */
  top: number;
  /** Sample messages read per answer keywords (the miner picks one that passes its rules). */
  messages: number;
}

export interface FrequentAnswer {
  keywords: string;
  /** Times said (sum of the answer counts). */
  count: number;
  /** After how many different phrases. */
  contexts: number;
  /** Newest first. */
  messages: string[];
}

interface Aggregate {
  keywords: string;
  total: DbNumber;
  contexts: DbNumber;
  answer_id: DbNumber;
}

export class CatchphraseCorpus {
  readonly #engine: StoreEngine;

  constructor(engine: StoreEngine) {
    this.#engine = engine;
  }

  /** The group's most said answers (source local) or the community's after its phrases (shared). */
  async frequentAnswers(
    groupId: number,
    source: 'local' | 'shared',
    query: FrequentAnswerQuery,
  ): Promise<FrequentAnswer[]> {
    const db = this.#engine.db;
    const recent = sql`SELECT id, context_id, keywords, keywords_hash, count FROM context_answer
        WHERE group_id = ${groupId} ORDER BY time DESC LIMIT ${query.scanRows}`;
    const aggregate =
      source === 'local'
        ? sql<Aggregate>`SELECT MIN(keywords) AS keywords, SUM(count) AS total, COUNT(*) AS contexts, MAX(id) AS answer_id
            FROM (${recent}) recent GROUP BY keywords_hash HAVING SUM(count) >= ${query.minCount}
            ORDER BY total DESC, answer_id DESC LIMIT ${query.top}`
        : sql<Aggregate>`SELECT MIN(a.keywords) AS keywords, SUM(a.count) AS total, COUNT(*) AS contexts,
              MAX(a.id) AS answer_id
            FROM (SELECT DISTINCT context_id FROM (${recent}) recent) talked
            JOIN context_answer a ON a.context_id = talked.context_id AND a.group_id = ${SHARED_GROUP}
            GROUP BY a.keywords_hash HAVING SUM(a.count) >= ${query.minCount}
            ORDER BY total DESC, answer_id DESC LIMIT ${query.top}`;
    const perAnswer = query.messages;
    const found = await this.#engine.run(function* (): Program<{ groups: Aggregate[]; messages: MessageRow[] }> {
      const groups = yield* rows(compiled(aggregate, db));
      if (groups.length === 0) return { groups, messages: [] };
      const ids = sql.join(groups.map((row) => toNumber(row.answer_id)));
      const messages = yield* rows(
        compiled(
          sql<MessageRow>`SELECT answer_id, message FROM (
                SELECT answer_id, message, id, ROW_NUMBER() OVER (PARTITION BY answer_id ORDER BY id DESC) AS n
                FROM context_answer_message WHERE answer_id IN (${ids})) ranked
              WHERE n <= ${perAnswer} ORDER BY answer_id, id DESC`,
          db,
        ),
      );
      return { groups, messages };
    });
    const byAnswer = new Map<number, string[]>();
    for (const row of found.messages) {
      const id = toNumber(row.answer_id);
      byAnswer.set(id, [...(byAnswer.get(id) ?? []), row.message]);
    }
    return found.groups.map((row) => ({
      keywords: row.keywords,
      count: toNumber(row.total),
      contexts: toNumber(row.contexts),
      messages: byAnswer.get(toNumber(row.answer_id)) ?? [],
    }));
  }

  /**
   * Answer keywords banned in the group or everywhere: after any phrase (context bans, at most
   * `limit` of them, newest first) and on the blacklists (struck once or banned outright).
   */
  async bannedKeywords(groupId: number, limit = 5_000): Promise<Set<string>> {
    const db = this.#engine.db;
    const groups = [groupId, EVERYWHERE_GROUP];
    const [bans, lists] = await Promise.all([
      readRows(
        this.#engine,
        compiled(
          sql<{ keywords: string }>`SELECT keywords FROM context_ban WHERE group_id IN (${sql.join(groups)})
              ORDER BY id DESC LIMIT ${limit}`,
          db,
        ),
      ),
      readRows(
        this.#engine,
        compiled(
          sql<{
            group_id: DbNumber;
            answers: string;
            answers_reserve: string;
          }>`SELECT group_id, answers, answers_reserve
              FROM blacklist WHERE group_id IN (${sql.join(groups)})`,
          db,
        ),
      ),
    ]);
    const banned = new Set(bans.map((row) => row.keywords));
    for (const list of lists) {
      for (const keywords of parseList(list.answers)) banned.add(keywords);
      // Everywhere, a first strike is one group's; in this group it already says "not this".
      if (toNumber(list.group_id) === groupId)
        for (const keywords of parseList(list.answers_reserve)) banned.add(keywords);
    }
    return banned;
  }

  /** Groups with chat in the last `days` days (the daily counts), most active first, at most `limit`. */
  async activeGroups(sinceDay: string, limit: number): Promise<number[]> {
    const found = await readRows(
      this.#engine,
      compiled(
        sql<{ group_id: DbNumber }>`SELECT group_id FROM console_daily_stats WHERE day >= ${sinceDay} AND group_id > 0
            GROUP BY group_id ORDER BY SUM(received) DESC, group_id LIMIT ${limit}`,
        this.#engine.db,
      ),
    );
    return found.map((row) => toNumber(row.group_id));
  }
}

interface MessageRow {
  answer_id: DbNumber;
  message: string;
}

function parseList(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((each): each is string => typeof each === 'string') : [];
  } catch {
    return [];
  }
}
