/**
 * The repeater's decisions kept for the console's Why page (migration 0012, docs/repeater.md#why):
 * written in batches off the reply path (src/app/decision-log-buffer.ts), read newest first a page
 * at a time (by group, by text), and trimmed by age and count in id windows, each its own short
 * statement with the event loop free between them.
 */
import { sql } from 'kysely';
import { AdaptiveChunk, yieldToEventLoop } from '../common/adaptive-chunk.ts';
import { exec } from '../sql/program.ts';
import { readFirst, readRows, writeOne } from '../sql/engine.ts';
import { bound } from '../sql/query.ts';
import type { RepeaterDecisionTable, StoreEngine } from './schema.ts';

export type DecisionRow = Omit<RepeaterDecisionTable, 'id'>;
export type StoredDecision = DecisionRow & { id: number };

export interface DecisionPageQuery {
  groupId?: number;
  /** Rows whose message (or the text sent) contains this. */
  text?: string;
  /** Rows older than this id (the previous page's last id). */
  beforeId?: number;
  limit: number;
}

export interface DecisionTrimPolicy {
  /** Rows older than this many days go. */
  days: number;
  /** Only the newest this many rows stay. */
  maxRows: number;
}

const STEP_TARGET_MS = 4;
/** Rows per insert statement: well under SQLite's bound-parameter limit (18 columns each). */
const INSERT_CHUNK = 500;

export class DecisionLogStore {
  constructor(private readonly engine: StoreEngine) {}

  /** Appends the rows in one unit of work. */
  add(batch: readonly DecisionRow[]): Promise<void> {
    if (batch.length === 0) return Promise.resolve();
    const chunks: DecisionRow[][] = [];
    for (let index = 0; index < batch.length; index += INSERT_CHUNK)
      chunks.push(batch.slice(index, index + INSERT_CHUNK));
    const statements = chunks.map((chunk) => bound(this.engine.db.insertInto('repeater_decision').values(chunk)));
    return this.engine.run(
      function* () {
        for (const statement of statements) yield* exec(statement);
      },
      { write: true },
    );
  }

  /** Newest first. */
  async page(query: DecisionPageQuery): Promise<StoredDecision[]> {
    let select = this.engine.db.selectFrom('repeater_decision').selectAll();
    if (query.groupId !== undefined) select = select.where('group_id', '=', query.groupId);
    if (query.beforeId !== undefined) select = select.where('id', '<', query.beforeId);
    if (query.text) {
      // A plain substring (LIKE wildcards in the text are taken literally).
      const pattern = `%${query.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      select = select.where((eb) =>
        eb.or([
          eb(sql`raw_message`, 'like', sql`${pattern} escape '\\'`),
          eb(sql`texts`, 'like', sql`${pattern} escape '\\'`),
        ]),
      );
    }
    const rows = await readRows(this.engine, bound(select.orderBy('id', 'desc').limit(query.limit)));
    return rows.map((row) => ({
      ...row,
      id: Number(row.id),
      at: Number(row.at),
      group_id: Number(row.group_id),
      self_id: Number(row.self_id),
      user_id: Number(row.user_id),
      message_id: Number(row.message_id),
      threshold: row.threshold === null ? null : Number(row.threshold),
      latency_us: Number(row.latency_us),
    }));
  }

  /** The groups with kept decisions, the most recently active first. */
  async groups(limit: number): Promise<{ groupId: number; selfId: number; kept: number; lastAt: number }[]> {
    const query = bound(
      this.engine.db
        .selectFrom('repeater_decision')
        .select((eb) => [
          'group_id',
          eb.fn.countAll().as('kept'),
          eb.fn.max('at').as('last_at'),
          // An account that receives the group (its group list names it).
          eb.fn.max('self_id').as('self_id'),
        ])
        .groupBy('group_id')
        .orderBy(sql`max(at)`, 'desc')
        .limit(limit),
    );
    const rows = await readRows(this.engine, query);
    return rows.map((row) => ({
      groupId: Number(row.group_id),
      selfId: Number(row.self_id),
      kept: Number(row.kept),
      lastAt: Number(row.last_at),
    }));
  }

  /** Deletes rows older than the policy's days or beyond its newest maxRows, in short steps; returns how many. */
  async trim(policy: DecisionTrimPolicy, nowMs: number): Promise<number> {
    const db = this.engine.db;
    const cutoff = nowMs - policy.days * 86_400_000;
    const [range, beyond] = await Promise.all([
      readFirst(
        this.engine,
        bound(db.selectFrom('repeater_decision').select((eb) => [eb.fn.min('id').as('lo'), eb.fn.max('id').as('hi')])),
      ),
      readFirst(
        this.engine,
        bound(
          db
            .selectFrom('repeater_decision')
            .select('id')
            .orderBy('id', 'desc')
            .offset(policy.maxRows - 1)
            .limit(1),
        ),
      ),
    ]);
    const cutId = beyond ? Number(beyond.id) : 0;
    const maxId = Number(range?.hi ?? 0);
    const step = new AdaptiveChunk(512, 16, 100_000, STEP_TARGET_MS);
    let deleted = 0;
    for (let from = Number(range?.lo ?? 1) - 1; from < maxId;) {
      const to = Math.min(maxId, from + step.size);
      const statement = bound(
        db
          .deleteFrom('repeater_decision')
          .where('id', '>', from)
          .where('id', '<=', to)
          .where(sql<boolean>`(at < ${cutoff} OR id < ${cutId})`),
      );
      const started = performance.now();
      deleted += Number((await writeOne(this.engine, statement)) ?? 0);
      step.record(performance.now() - started);
      // No early end: ids follow time only while the clock does, and a walk of kept rows is cheap
      // (the window grows to 100,000 ids when steps are fast).
      from = to;
      await yieldToEventLoop();
    }
    return deleted;
  }
}
