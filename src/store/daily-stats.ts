/**
 * What the chat side did per day, bot account and group, for the console's daily statistics:
 * messages received, replies by kind, messages queued for learning, bans. Counts are added to in
 * batches (src/app/daily-stats-buffer.ts), never on the reply path, and survive restarts.
 */
import { sql } from 'kysely';
import { exec } from '../sql/program.ts';
import { readRows } from '../sql/engine.ts';
import { bound } from '../sql/query.ts';
import type { StoreEngine } from './schema.ts';

export const DAILY_COUNTS = [
  'received',
  'replies_group',
  'replies_cross_group',
  'replies_community',
  'replies_repeat',
  'replies_proactive',
  'learn_queued',
  'bans',
] as const;
export type DailyCount = (typeof DAILY_COUNTS)[number];

export interface DailyRow extends Record<DailyCount, number> {
  /** YYYY-MM-DD */
  day: string;
  selfId: number;
  groupId: number;
}

export interface DailyQuery {
  /** Inclusive, YYYY-MM-DD. */
  start: string;
  end: string;
  selfId?: number;
  groupId?: number;
  limit: number;
}

export class DailyStatsStore {
  constructor(private readonly engine: StoreEngine) {}

  /** Adds the counts of each row to what is stored. One unit of work. */
  add(batch: readonly DailyRow[]): Promise<void> {
    if (batch.length === 0) return Promise.resolve();
    const db = this.engine.db;
    const statements = batch.map((row) =>
      bound(
        db
          .insertInto('console_daily_stats')
          .values({
            day: row.day,
            self_id: row.selfId,
            group_id: row.groupId,
            received: row.received,
            replies_group: row.replies_group,
            replies_cross_group: row.replies_cross_group,
            replies_community: row.replies_community,
            replies_repeat: row.replies_repeat,
            replies_proactive: row.replies_proactive,
            learn_queued: row.learn_queued,
            bans: row.bans,
          })
          .onConflict((oc) =>
            oc.columns(['day', 'self_id', 'group_id']).doUpdateSet({
              received: sql`console_daily_stats.received + excluded.received`,
              replies_group: sql`console_daily_stats.replies_group + excluded.replies_group`,
              replies_cross_group: sql`console_daily_stats.replies_cross_group + excluded.replies_cross_group`,
              replies_community: sql`console_daily_stats.replies_community + excluded.replies_community`,
              replies_repeat: sql`console_daily_stats.replies_repeat + excluded.replies_repeat`,
              replies_proactive: sql`console_daily_stats.replies_proactive + excluded.replies_proactive`,
              learn_queued: sql`console_daily_stats.learn_queued + excluded.learn_queued`,
              bans: sql`console_daily_stats.bans + excluded.bans`,
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

  /** Rows of the days from start to end (inclusive), oldest day first, then by account and group. */
  async list(query: DailyQuery): Promise<DailyRow[]> {
    let select = this.engine.db
      .selectFrom('console_daily_stats')
      .selectAll()
      .where('day', '>=', query.start)
      .where('day', '<=', query.end);
    if (query.selfId !== undefined) select = select.where('self_id', '=', query.selfId);
    if (query.groupId !== undefined) select = select.where('group_id', '=', query.groupId);
    const statement = bound(select.orderBy('day').orderBy('self_id').orderBy('group_id').limit(query.limit));
    const found = await readRows(this.engine, statement);
    return found.map((row) => ({
      day: String(row.day),
      selfId: Number(row.self_id),
      groupId: Number(row.group_id),
      received: Number(row.received),
      replies_group: Number(row.replies_group),
      replies_cross_group: Number(row.replies_cross_group),
      replies_community: Number(row.replies_community),
      replies_repeat: Number(row.replies_repeat),
      replies_proactive: Number(row.replies_proactive),
      learn_queued: Number(row.learn_queued),
      bans: Number(row.bans),
    }));
  }
}
