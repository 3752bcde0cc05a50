/**
 * The agent platform's tasks (migration 0014_s_tasks, docs/agent-tasks.md) on either engine: a
 * reminder the model created, sent in its group at its time, once. "Once" across a fleet of
 * processes on one database comes from the claim: a single UPDATE ... WHERE status = 'open'
 * RETURNING, which exactly one caller wins; the winner sends. A task is marked done when claimed,
 * before its send, so a process that dies in between loses that reminder rather than sending it
 * twice (at most once; a failed send is marked failed with its reason).
 */
import type { Generated, Kysely, Selectable } from 'kysely';
import { stripNul } from '../common/text.ts';
import { exec, first, rows, type Program } from '../sql/program.ts';
import { readFirst, readRows } from '../sql/engine.ts';
import { bound } from '../sql/query.ts';
import type { Database, StoreEngine } from './schema.ts';

export const AGENT_TASK_STATUSES = ['open', 'done', 'cancelled', 'failed'] as const;
export type AgentTaskStatus = (typeof AGENT_TASK_STATUSES)[number];

export interface AgentTaskTable {
  id: Generated<number>;
  self_id: number;
  group_id: number;
  creator_user_id: number;
  kind: string;
  text: string;
  /** Unix milliseconds, as every time of this table. */
  due_at: number;
  status: AgentTaskStatus;
  created_at: number;
  done_at: number;
  cancelled_by: string;
  fail_reason: string;
}

export interface AgentTask {
  readonly id: number;
  readonly selfId: number;
  readonly groupId: number;
  readonly creatorUserId: number;
  readonly kind: 'reminder';
  readonly text: string;
  readonly dueAt: number;
  readonly status: AgentTaskStatus;
  readonly createdAt: number;
  /** When it was sent, cancelled or given up; 0 while open. */
  readonly doneAt: number;
  /** 'chat' (its creator) or 'console'; '' unless cancelled. */
  readonly cancelledBy: string;
  /** Why it failed (a code: late, guarded, banned, group_off, send_failed); '' otherwise. */
  readonly failReason: string;
}

export interface NewAgentTask {
  selfId: number;
  groupId: number;
  creatorUserId: number;
  text: string;
  dueAt: number;
  createdAt: number;
}

/** How many open tasks a group and a member of it may have at once. */
export interface TaskBounds {
  perGroup: number;
  perMember: number;
}

export type CreateOutcome = { ok: true; task: AgentTask } | { ok: false; reason: 'group_full' | 'member_full' };

export interface TaskListQuery {
  groupId?: number;
  creatorUserId?: number;
  status?: AgentTaskStatus;
  limit: number;
}

type Row = Selectable<AgentTaskTable>;
type Db = Kysely<Database & { agent_task: AgentTaskTable }>;

export class AgentTaskStore {
  readonly #engine: StoreEngine;
  readonly #db: Db;

  constructor(engine: StoreEngine) {
    this.#engine = engine;
    this.#db = engine.db.withTables<{ agent_task: AgentTaskTable }>();
  }

  /**
   * Adds an open reminder unless the group or the member already has its bound of open tasks.
   * The count and the insert are one transaction; two creations racing in two processes may
   * pass the bound by one, which a bound against flooding tolerates.
   */
  async create(input: NewAgentTask, bounds: TaskBounds): Promise<CreateOutcome> {
    const db = this.#db;
    const openIn = db
      .selectFrom('agent_task')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('status', '=', 'open')
      .where('group_id', '=', input.groupId);
    const groupCount = bound(openIn);
    const memberCount = bound(openIn.where('creator_user_id', '=', input.creatorUserId));
    const insert = bound(
      db
        .insertInto('agent_task')
        .values({
          self_id: input.selfId,
          group_id: input.groupId,
          creator_user_id: input.creatorUserId,
          kind: 'reminder',
          text: stripNul(input.text),
          due_at: input.dueAt,
          status: 'open',
          created_at: input.createdAt,
          done_at: 0,
          cancelled_by: '',
          fail_reason: '',
        })
        .returningAll(),
    );
    return this.#engine.run(
      function* (): Program<CreateOutcome> {
        if (Number((yield* first(memberCount))?.n ?? 0) >= bounds.perMember)
          return { ok: false, reason: 'member_full' };
        if (Number((yield* first(groupCount))?.n ?? 0) >= bounds.perGroup) return { ok: false, reason: 'group_full' };
        const row = yield* first(insert);
        if (!row) throw new Error('agent_task: the insert returned no row');
        return { ok: true, task: fromRow(row) };
      },
      { write: true },
    );
  }

  async get(id: number): Promise<AgentTask | null> {
    const row = await readFirst(
      this.#engine,
      bound(this.#db.selectFrom('agent_task').selectAll().where('id', '=', id)),
    );
    return row ? fromRow(row) : null;
  }

  /** Open tasks first, soonest due first; then the others, newest first. */
  async list(query: TaskListQuery): Promise<AgentTask[]> {
    let select = this.#db.selectFrom('agent_task').selectAll();
    if (query.groupId !== undefined) select = select.where('group_id', '=', query.groupId);
    if (query.creatorUserId !== undefined) select = select.where('creator_user_id', '=', query.creatorUserId);
    if (query.status !== undefined) select = select.where('status', '=', query.status);
    const open = select.where('status', '=', 'open').orderBy('due_at').orderBy('id').limit(query.limit);
    const closed = select.where('status', '!=', 'open').orderBy('id', 'desc').limit(query.limit);
    const [first, rest] = await Promise.all([
      query.status === undefined || query.status === 'open' ? readRows(this.#engine, bound(open)) : [],
      query.status !== 'open' ? readRows(this.#engine, bound(closed)) : [],
    ]);
    return [...first, ...rest].slice(0, query.limit).map(fromRow);
  }

  /** Open tasks due by `nowMs` for these accounts, soonest first. */
  async due(nowMs: number, selfIds: readonly number[], limit: number): Promise<AgentTask[]> {
    if (selfIds.length === 0) return [];
    const select = this.#db
      .selectFrom('agent_task')
      .selectAll()
      .where('status', '=', 'open')
      .where('due_at', '<=', nowMs)
      .where('self_id', 'in', [...selfIds])
      .orderBy('due_at')
      .orderBy('id')
      .limit(limit);
    return (await readRows(this.#engine, bound(select))).map(fromRow);
  }

  /** The soonest due time after `afterMs` of an open task of these accounts, or null. */
  async nextDueAt(afterMs: number, selfIds: readonly number[]): Promise<number | null> {
    if (selfIds.length === 0) return null;
    const select = this.#db
      .selectFrom('agent_task')
      .select((eb) => eb.fn.min('due_at').as('next'))
      .where('status', '=', 'open')
      .where('due_at', '>', afterMs)
      .where('self_id', 'in', [...selfIds]);
    const row = await readFirst(this.#engine, bound(select));
    return row?.next === null || row?.next === undefined ? null : Number(row.next);
  }

  /** Takes an open task to send it (marked done now); null when another caller took it or it was cancelled. */
  async claim(id: number, nowMs: number): Promise<AgentTask | null> {
    return this.#settleOpen(id, { status: 'done', done_at: nowMs });
  }

  /** Cancels an open task; with `creator`, only that member's task in that group. Null: no such open task. */
  async cancel(
    id: number,
    by: 'chat' | 'console',
    nowMs: number,
    creator?: { groupId: number; userId: number },
  ): Promise<AgentTask | null> {
    return this.#settleOpen(id, { status: 'cancelled', done_at: nowMs, cancelled_by: by }, creator);
  }

  /** Marks a claimed (or open) task failed with its reason. */
  async fail(id: number, reason: string, nowMs: number): Promise<void> {
    const update = bound(
      this.#db
        .updateTable('agent_task')
        .set({ status: 'failed', fail_reason: reason, done_at: nowMs })
        .where('id', '=', id)
        .where('status', 'in', ['open', 'done']),
    );
    await this.#engine.run(() => exec(update), { write: true });
  }

  /** Open tasks due longer ago than `boundMs` are given up (reason `late`); returns them. */
  async expireLate(nowMs: number, boundMs: number): Promise<AgentTask[]> {
    const update = bound(
      this.#db
        .updateTable('agent_task')
        .set({ status: 'failed', fail_reason: 'late', done_at: nowMs })
        .where('status', '=', 'open')
        .where('due_at', '<', nowMs - boundMs)
        .returningAll(),
    );
    return (await this.#engine.run(() => rows(update), { write: true })).map(fromRow);
  }

  async #settleOpen(
    id: number,
    set: Partial<Pick<AgentTaskTable, 'status' | 'done_at' | 'cancelled_by'>>,
    creator?: { groupId: number; userId: number },
  ): Promise<AgentTask | null> {
    let update = this.#db.updateTable('agent_task').set(set).where('id', '=', id).where('status', '=', 'open');
    if (creator) update = update.where('group_id', '=', creator.groupId).where('creator_user_id', '=', creator.userId);
    const statement = bound(update.returningAll());
    const won = await this.#engine.run(() => rows(statement), { write: true });
    return won[0] ? fromRow(won[0]) : null;
  }
}

function fromRow(row: Row): AgentTask {
  return {
    id: Number(row.id),
    selfId: Number(row.self_id),
    groupId: Number(row.group_id),
    creatorUserId: Number(row.creator_user_id),
    kind: 'reminder',
    text: row.text,
    dueAt: Number(row.due_at),
    status: row.status,
    createdAt: Number(row.created_at),
    doneAt: Number(row.done_at),
    cancelledBy: row.cancelled_by,
    failReason: row.fail_reason,
  };
}
