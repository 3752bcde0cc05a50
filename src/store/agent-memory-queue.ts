/**
 * The observation queue of the agent memory (docs/agent-memory.md), on either engine. Several
 * processes on one database share it: a process claims pending rows with one UPDATE that sets
 * its name and a lease only where the row is still pending and unleased, so two processes never
 * hold one row at once (PostgreSQL re-checks the condition on the locked row and skips rows
 * another claim holds; SQLite runs writes one at a time). A claim whose process died expires
 * with its lease and is taken again.
 */
import { sql } from 'kysely';
import { toNumber } from '../sql/numbers.ts';
import { readFirst, readRows, writeOne } from '../sql/engine.ts';
import { rows } from '../sql/program.ts';
import { bound, compiled } from '../sql/query.ts';
import {
  memoryDb,
  type AgentObservationTable,
  type MemoryDb,
  type Observation,
  type ObservationStatus,
  type StoredExcerpt,
} from './agent-memory-tables.ts';
import type { StoreEngine } from './schema.ts';
import type { Selectable } from 'kysely';

export interface NewObservation {
  selfId: number;
  groupId: number;
  excerpt: StoredExcerpt;
  userIds: readonly number[];
  /** Unix seconds. */
  now: number;
}

export interface ObservationFilter {
  selfId?: number;
  groupId?: number;
  status?: ObservationStatus;
  limit: number;
}

export function toObservation(row: Selectable<AgentObservationTable>): Observation {
  return {
    id: Number(row.id),
    selfId: Number(row.self_id),
    groupId: Number(row.group_id),
    excerpt: JSON.parse(row.excerpt) as StoredExcerpt,
    userIds: (JSON.parse(row.user_ids) as unknown[]).map(Number),
    status: row.status,
    attempts: Number(row.attempts),
    error: row.error,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

export class AgentObservationQueue {
  readonly #engine: StoreEngine;
  readonly #db: MemoryDb;

  constructor(engine: StoreEngine) {
    this.#engine = engine;
    this.#db = memoryDb(engine);
  }

  async add(observation: NewObservation): Promise<number> {
    const row = await this.#engine.run(
      () =>
        rows(
          bound(
            this.#db
              .insertInto('agent_observation')
              .values({
                self_id: observation.selfId,
                group_id: observation.groupId,
                excerpt: JSON.stringify(observation.excerpt),
                user_ids: JSON.stringify(observation.userIds),
                status: 'pending',
                attempts: 0,
                claimed_by: '',
                lease_until: 0,
                error: '',
                created_at: observation.now,
                updated_at: observation.now,
              })
              .returning('id'),
          ),
        ),
      { write: true },
    );
    return Number(row[0]?.id ?? 0);
  }

  /** Pending observations (the queue's size, bounded by the memory). */
  async pendingCount(): Promise<number> {
    const row = await readFirst(
      this.#engine,
      bound(
        this.#db
          .selectFrom('agent_observation')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('status', '=', 'pending'),
      ),
    );
    return row ? toNumber(row.n) : 0;
  }

  async list(filter: ObservationFilter): Promise<Observation[]> {
    let query = this.#db.selectFrom('agent_observation').selectAll();
    if (filter.selfId !== undefined) query = query.where('self_id', '=', filter.selfId);
    if (filter.groupId !== undefined) query = query.where('group_id', '=', filter.groupId);
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    return (await readRows(this.#engine, bound(query.orderBy('id', 'desc').limit(filter.limit)))).map(toObservation);
  }

  /**
   * Claims up to `limit` pending observations for `by` until `nowMs + leaseMs`, oldest first;
   * answers the rows it now holds. One statement, so it is atomic on both engines.
   */
  async claim(by: string, limit: number, nowMs: number, leaseMs: number): Promise<Observation[]> {
    const lock = this.#engine.kind === 'postgres' ? sql`FOR UPDATE SKIP LOCKED` : sql``;
    const claimed = await this.#engine.run(
      () =>
        rows(
          compiled(
            sql<Selectable<AgentObservationTable>>`UPDATE agent_observation
              SET claimed_by = ${by}, lease_until = ${nowMs + leaseMs}, attempts = attempts + 1
              WHERE status = 'pending' AND lease_until < ${nowMs} AND id IN (
                SELECT id FROM agent_observation WHERE status = 'pending' AND lease_until < ${nowMs}
                ORDER BY id LIMIT ${limit} ${lock})
              RETURNING *`,
            this.#db,
          ),
        ),
      { write: true },
    );
    return claimed.map(toObservation).sort((a, b) => a.id - b.id);
  }

  /** Done: only by the process that holds the claim (a claim taken over elsewhere stays theirs). */
  async finish(id: number, by: string, now: number): Promise<boolean> {
    const update = this.#db
      .updateTable('agent_observation')
      .set({ status: 'done', lease_until: 0, error: '', updated_at: now })
      .where('id', '=', id)
      .where('claimed_by', '=', by)
      .where('status', '=', 'pending');
    return (await writeOne(this.#engine, bound(update))) === 1;
  }

  /**
   * A failed attempt: pending again after `retryAtMs` while attempts are left, else failed for
   * good. Answers the status it now has, or null when the claim was no longer this process's.
   */
  async fail(
    id: number,
    by: string,
    error: string,
    maxAttempts: number,
    retryAtMs: number,
    now: number,
  ): Promise<ObservationStatus | null> {
    const update = this.#db
      .updateTable('agent_observation')
      .set({
        status: sql<ObservationStatus>`CASE WHEN attempts >= ${maxAttempts} THEN 'failed' ELSE 'pending' END`,
        lease_until: retryAtMs,
        error: error.slice(0, 500),
        updated_at: now,
      })
      .where('id', '=', id)
      .where('claimed_by', '=', by)
      .where('status', '=', 'pending')
      .returning('status');
    const row = await this.#engine.run(() => rows(bound(update)), { write: true });
    return row[0]?.status ?? null;
  }

  /** Deletes finished observations (done or failed) older than `before` (unix seconds); answers how many. */
  async prune(before: number): Promise<number> {
    const remove = this.#db
      .deleteFrom('agent_observation')
      .where('status', 'in', ['done', 'failed'])
      .where('updated_at', '<', before);
    return writeOne(this.#engine, bound(remove));
  }
}
