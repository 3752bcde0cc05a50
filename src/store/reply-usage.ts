/**
 * Where an answer was used: for each context, answer and group, when the bot last sent it as a
 * reply and how often (the console's "where used"). Written in batches by the reply-usage buffer
 * (src/app/reply-usage-buffer.ts), never on the reply path; read with the corpus search.
 */
import { sql } from 'kysely';
import { keywordsHash } from '../domain/keywords-hash.ts';
import { STORE_CHUNK } from '../common/limits.ts';
import { exec, type BoundQuery } from '../sql/program.ts';
import { readRows } from '../sql/engine.ts';
import { bound, template, type Param } from '../sql/query.ts';
import { chunks } from './corpus-programs.ts';
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

interface UsageRow {
  contextHash: string;
  answerHash: string;
  groupId: number;
  lastSent: number;
  count: number;
}

export class ReplyUsageStore {
  /**
   * Built and compiled once: a flush writes up to thousands of rows, and building each through
   * Kysely held the event loop for 100+ ms per flush at 2,000 messages/s (bench:repeater, CPU
   * profile; docs/rules.md#store-chunks).
   */
  readonly #upsert: (row: UsageRow) => BoundQuery;

  constructor(private readonly engine: StoreEngine) {
    this.#upsert = template((param: Param<UsageRow>) =>
      engine.db
        .insertInto('reply_usage')
        .values({
          context_hash: param('contextHash'),
          answer_hash: param('answerHash'),
          group_id: param('groupId'),
          last_sent: param('lastSent'),
          sent_count: param('count'),
        })
        .onConflict((oc) =>
          oc.columns(['context_hash', 'answer_hash', 'group_id']).doUpdateSet({
            last_sent: sql`CASE WHEN excluded.last_sent > reply_usage.last_sent THEN excluded.last_sent ELSE reply_usage.last_sent END`,
            sent_count: sql`reply_usage.sent_count + excluded.sent_count`,
          }),
        ),
    );
  }

  /**
   * Adds sends: the count grows, the last time is the latest. One unit of work per
   * STORE_CHUNK.usageRows sends, so a large flush leaves the event loop free between chunks
   * (docs/rules.md#store-chunks); a chunk that fails does not undo the chunks before it. Rows go
   * in key order, so two processes flushing the same pairs lock them in one order and cannot
   * deadlock (measured before: two processes on one PostgreSQL lost a flush now and then).
   */
  async record(sends: readonly ReplySent[]): Promise<void> {
    const rows = sends
      .map((send) => ({
        contextHash: keywordsHash(send.contextKeywords),
        answerHash: keywordsHash(send.answerKeywords),
        groupId: send.groupId,
        lastSent: send.time,
        count: send.count,
      }))
      .sort(
        (a, b) => compare(a.contextHash, b.contextHash) || compare(a.answerHash, b.answerHash) || a.groupId - b.groupId,
      );
    for (const chunk of chunks(rows, STORE_CHUNK.usageRows)) {
      const statements = chunk.map((row) => this.#upsert(row));
      await this.engine.run(
        function* () {
          for (const statement of statements) yield* exec(statement);
        },
        { write: true },
      );
    }
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
    const usageRows = await readRows(this.engine, query);
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

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
