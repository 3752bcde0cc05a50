/**
 * The activity log (docs/rules.md#activity-log): every change to what the bot says and where, on
 * either engine. Console moderation writes its entries inside its own transactions
 * (moderation-store.ts); every other part records through `record` (the domain's
 * ActivityRecorder), which never throws. The log is bounded: entries older than `maxAgeSec` and
 * beyond the newest `maxRows` are deleted in steps of `TRIM_STEP` rows every `TRIM_EVERY`
 * records, so no single write holds the table for long.
 */
import { sql } from 'kysely';
import type { Log } from '../common/log.ts';
import { errorMessage } from '../common/errors.ts';
import { EVERYWHERE_GROUP, type ActivityInput, type ActivityKind, type ActivityRecorder } from '../domain/activity.ts';
import { keywordsHash } from '../domain/keywords-hash.ts';
import { readFirst, readRows, writeOne } from '../sql/engine.ts';
import { bound, compiled } from '../sql/query.ts';
import { toActivityEntry, writeActivity, type ActivityEntry } from './activity-programs.ts';
import type { StoreEngine } from './schema.ts';

export type { ActivityEntry } from './activity-programs.ts';

/** Default bounds: a year of entries, at most 100,000 rows (a busy fleet makes a few hundred a day). */
export const ACTIVITY_RETENTION = { maxAgeSec: 365 * 86_400, maxRows: 100_000 } as const;
/** Rows deleted per trim step, and how many records pass between steps. */
export const TRIM_STEP = 500;
export const TRIM_EVERY = 50;

export interface ActivityFilter {
  kinds?: readonly ActivityKind[];
  /** Entries about this group (scope group) or, with `withEverywhere`, everywhere too. */
  groupId?: number;
  /** A QQ number (chat member), or text found in the console address or the actor's name. */
  actor?: string;
  /** Unix seconds, inclusive. */
  since?: number;
  until?: number;
  offset: number;
  limit: number;
}

export interface ActivityLogOptions {
  nowSec: () => number;
  log: Log;
  maxAgeSec?: number;
  maxRows?: number;
}

export class ActivityLog implements ActivityRecorder {
  readonly #engine: StoreEngine;
  readonly #options: ActivityLogOptions;
  #sinceTrim = 0;

  constructor(engine: StoreEngine, options: ActivityLogOptions) {
    this.#engine = engine;
    this.#options = options;
  }

  async record(input: ActivityInput): Promise<number | null> {
    try {
      const entry = await this.write(input);
      if (++this.#sinceTrim >= TRIM_EVERY) {
        this.#sinceTrim = 0;
        await this.trimStep();
      }
      return entry.id;
    } catch (error) {
      this.#options.log.warn({ error: errorMessage(error), kind: input.kind }, 'recording an activity entry failed');
      return null;
    }
  }

  /** As `record`, but throws and answers the whole entry (tests, callers that must know). */
  async write(input: ActivityInput): Promise<ActivityEntry> {
    const db = this.#engine.db;
    const ids = await this.#resolve(input);
    return this.#engine.run(
      () =>
        writeActivity(db, {
          time: input.time ?? this.#options.nowSec(),
          kind: input.kind,
          actor: input.actor,
          scope: input.groupId === null || input.groupId === EVERYWHERE_GROUP ? 'everywhere' : 'group',
          groupId: input.groupId ?? 0,
          ...ids,
          ...(input.contextKeywords !== undefined ? { contextKeywords: input.contextKeywords } : {}),
          ...(input.answerKeywords !== undefined ? { answerKeywords: input.answerKeywords } : {}),
          ...(input.params ? { params: input.params } : {}),
        }),
      { write: true },
    );
  }

  async list(filter: ActivityFilter): Promise<{ items: ActivityEntry[]; hasMore: boolean }> {
    let query = this.#engine.db.selectFrom('activity_log').selectAll();
    if (filter.kinds && filter.kinds.length > 0) query = query.where('kind', 'in', filter.kinds);
    if (filter.groupId !== undefined) query = query.where('group_id', '=', filter.groupId);
    if (filter.since !== undefined) query = query.where('time', '>=', filter.since);
    if (filter.until !== undefined) query = query.where('time', '<=', filter.until);
    const actor = filter.actor?.trim();
    if (actor) {
      const userId = /^\d{1,18}$/.test(actor) ? Number(actor) : null;
      const like = `%${actor.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      query = query.where((eb) =>
        eb.or([
          ...(userId !== null ? [eb('actor_user_id', '=', userId)] : []),
          eb(sql`actor_address`, 'like', sql`${like} ESCAPE '\\'`),
          eb(sql`actor_name`, 'like', sql`${like} ESCAPE '\\'`),
        ]),
      );
    }
    const rows = await readRows(
      this.#engine,
      bound(
        query
          .orderBy('id', 'desc')
          .limit(filter.limit + 1)
          .offset(filter.offset),
      ),
    );
    return { items: rows.slice(0, filter.limit).map(toActivityEntry), hasMore: rows.length > filter.limit };
  }

  async get(id: number): Promise<ActivityEntry | null> {
    const row = await readFirst(
      this.#engine,
      bound(this.#engine.db.selectFrom('activity_log').selectAll().where('id', '=', id)),
    );
    return row ? toActivityEntry(row) : null;
  }

  /**
   * One step of the bound: up to TRIM_STEP entries older than the age limit, then up to
   * TRIM_STEP beyond the row limit. Answers how many it deleted.
   */
  async trimStep(): Promise<number> {
    const db = this.#engine.db;
    const maxAge = this.#options.maxAgeSec ?? ACTIVITY_RETENTION.maxAgeSec;
    const maxRows = this.#options.maxRows ?? ACTIVITY_RETENTION.maxRows;
    const cutoff = this.#options.nowSec() - maxAge;
    let deleted = await writeOne(
      this.#engine,
      compiled(
        sql`DELETE FROM activity_log WHERE id IN
              (SELECT id FROM activity_log WHERE time < ${cutoff} ORDER BY id LIMIT ${TRIM_STEP})`,
        db,
      ),
    );
    // The id below which rows are beyond the newest maxRows (ids only grow: AUTOINCREMENT / identity).
    const edge = await readFirst(
      this.#engine,
      bound(
        db
          .selectFrom('activity_log')
          .select('id')
          .orderBy('id', 'desc')
          .offset(maxRows - 1)
          .limit(1),
      ),
    );
    if (edge) {
      deleted += await writeOne(
        this.#engine,
        compiled(
          sql`DELETE FROM activity_log WHERE id IN
                (SELECT id FROM activity_log WHERE id < ${Number(edge.id)} ORDER BY id LIMIT ${TRIM_STEP})`,
          db,
        ),
      );
    }
    return deleted;
  }

  /** The context and answer ids an entry names, found from its keywords when not given. */
  async #resolve(input: ActivityInput): Promise<{ contextId?: number; answerId?: number }> {
    if (input.contextKeywords === undefined || input.contextKeywords === '') {
      return input.answerId !== undefined ? { answerId: input.answerId } : {};
    }
    const db = this.#engine.db;
    const context = await readFirst(
      this.#engine,
      bound(db.selectFrom('context').select('id').where('keywords_hash', '=', keywordsHash(input.contextKeywords))),
    );
    if (!context) return input.answerId !== undefined ? { answerId: input.answerId } : {};
    const contextId = Number(context.id);
    if (input.answerId !== undefined || input.answerKeywords === undefined) {
      return { contextId, ...(input.answerId !== undefined ? { answerId: input.answerId } : {}) };
    }
    // The answer learned in the entry's group first, else any group's (the ban names the keywords).
    const answer = await readFirst(
      this.#engine,
      bound(
        db
          .selectFrom('context_answer')
          .select('id')
          .where('context_id', '=', contextId)
          .where('keywords_hash', '=', keywordsHash(input.answerKeywords))
          .orderBy(sql`CASE WHEN group_id = ${input.groupId ?? 0} THEN 0 ELSE 1 END`)
          .orderBy('id')
          .limit(1),
      ),
    );
    return { contextId, ...(answer ? { answerId: Number(answer.id) } : {}) };
  }
}
