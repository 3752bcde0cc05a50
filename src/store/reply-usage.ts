/**
 * Where an answer was used: for each context, answer and group, when the bot last sent it as a
 * reply and how often (the console's "where used"). Written in batches by the reply-usage buffer
 * (src/app/reply-usage-buffer.ts), never on the reply path; read with the corpus search.
 */
import { sql } from 'kysely';
import { keywordsHash } from '../domain/keywords-hash.ts';
import { exec, rows } from '../sql/program.ts';
import { bound } from '../sql/query.ts';
import type { StoreEngine } from './schema.ts';

export interface ReplySent {
  contextKeywords: string;
  answerKeywords: string;
  groupId: number;
  /** Unix seconds. */
  time: number;
  count: number;
}

export interface UsageView {
  groupId: number;
  lastSent: number;
  count: number;
}

/** `context\u0000answer`: how usage is keyed for the caller. */
export const usageKey = (contextKeywords: string, answerKeywords: string): string =>
  `${contextKeywords}\u0000${answerKeywords}`;

export class ReplyUsageStore {
  constructor(private readonly engine: StoreEngine) {}

  /** Adds sends: the count grows, the last time is the latest. One unit of work. */
  record(sends: readonly ReplySent[]): Promise<void> {
    if (sends.length === 0) return Promise.resolve();
    const db = this.engine.db;
    const statements = sends.map((send) =>
      bound(
        db
          .insertInto('reply_usage')
          .values({
            context_hash: keywordsHash(send.contextKeywords),
            answer_hash: keywordsHash(send.answerKeywords),
            group_id: send.groupId,
            last_sent: send.time,
            sent_count: send.count,
          })
          .onConflict((oc) =>
            oc.columns(['context_hash', 'answer_hash', 'group_id']).doUpdateSet({
              last_sent: sql`CASE WHEN excluded.last_sent > reply_usage.last_sent THEN excluded.last_sent ELSE reply_usage.last_sent END`,
              sent_count: sql`reply_usage.sent_count + excluded.sent_count`,
            }),
          ),
      ),
    );
    return this.engine.run(
      function* () {
        for (const statement of statements) yield* exec(statement);
      },
      { write: true },
    );
  }

  /** Usage of each (context, answer) pair, newest first, keyed by `usageKey`. */
  async usageOf(
    pairs: readonly { contextKeywords: string; answerKeywords: string }[],
  ): Promise<Map<string, UsageView[]>> {
    const found = new Map<string, UsageView[]>();
    if (pairs.length === 0) return found;
    const byHash = new Map<string, string>();
    for (const pair of pairs) {
      byHash.set(
        `${keywordsHash(pair.contextKeywords)}|${keywordsHash(pair.answerKeywords)}`,
        usageKey(pair.contextKeywords, pair.answerKeywords),
      );
    }
    const contextHashes = [...new Set(pairs.map((pair) => keywordsHash(pair.contextKeywords)))];
    const query = bound(
      this.engine.db
        .selectFrom('reply_usage')
        .selectAll()
        .where('context_hash', 'in', contextHashes)
        .orderBy('last_sent', 'desc'),
    );
    const usageRows = await this.engine.run(() =>
      rows<{
        context_hash: string;
        answer_hash: string;
        group_id: number | string;
        last_sent: number | string;
        sent_count: number | string;
      }>(query),
    );
    for (const row of usageRows) {
      const key = byHash.get(`${row.context_hash}|${row.answer_hash}`);
      if (key === undefined) continue;
      const list = found.get(key) ?? [];
      list.push({ groupId: Number(row.group_id), lastSent: Number(row.last_sent), count: Number(row.sent_count) });
      found.set(key, list);
    }
    return found;
  }
}
