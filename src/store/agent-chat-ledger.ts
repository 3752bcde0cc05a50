/**
 * The ledger of language-model calls (migration 0014_s_chat, docs/agent.md): one row per call,
 * appended off the reply path; read a page at a time for the console (newest first) and summed
 * since the start of a day for the budgets and the overview. Either engine.
 */
import { sql, type Kysely } from 'kysely';
import { readFirst, readRows, writeOne } from '../sql/engine.ts';
import { bound } from '../sql/query.ts';
import { toNumber, type DbNumber } from '../sql/numbers.ts';
import type { Database, StoreEngine } from './schema.ts';

export interface AgentChatCallTable {
  id?: number;
  at: number;
  self_id: number;
  group_id: number;
  user_id: number;
  role: string;
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
  latency_ms: number;
  outcome: string;
}

export interface LedgerEntry {
  /** Unix ms of the call's end. */
  readonly at: number;
  readonly selfId: number;
  readonly groupId: number;
  /** The member who caused it; 0: none (background work). */
  readonly userId: number;
  readonly role: 'chat' | 'background';
  readonly model: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly latencyMs: number;
  /** 'ok', a ModelFailureCode, 'over_budget' or 'busy'. */
  readonly outcome: string;
}

export type StoredLedgerEntry = LedgerEntry & { readonly id: number };

/** Calls and tokens since a moment, by group and by member (the budgets' start of day). */
export interface LedgerTotals {
  readonly calls: number;
  readonly tokens: number;
  readonly byGroup: ReadonlyMap<number, { calls: number; tokens: number }>;
  readonly byMember: ReadonlyMap<number, { calls: number; tokens: number }>;
}

type Tables = { agent_chat_call: AgentChatCallTable };
type Db = Kysely<Database & Tables>;

/** Outcomes that were no call to the provider: they cost nothing and count for no budget. */
export const NOT_CALLED = ['over_budget', 'busy'] as const;

export class AgentChatLedgerStore {
  readonly #engine: StoreEngine;
  readonly #db: Db;

  constructor(engine: StoreEngine) {
    this.#engine = engine;
    this.#db = engine.db.withTables<Tables>();
  }

  async add(entry: LedgerEntry): Promise<void> {
    await writeOne(this.#engine, bound(this.#db.insertInto('agent_chat_call').values(toRow(entry))));
  }

  /** Newest first; `beforeId` pages on from the previous page's last id. */
  async page(query: { limit: number; beforeId?: number; groupId?: number }): Promise<StoredLedgerEntry[]> {
    let select = this.#db.selectFrom('agent_chat_call').selectAll();
    if (query.groupId !== undefined) select = select.where('group_id', '=', query.groupId);
    if (query.beforeId !== undefined) select = select.where('id', '<', query.beforeId);
    const rows = await readRows(this.#engine, bound(select.orderBy('id', 'desc').limit(query.limit)));
    return rows.map(fromRow);
  }

  /** What was called since `sinceMs` (calls made, not those refused before calling). */
  async totalsSince(sinceMs: number): Promise<LedgerTotals> {
    const grouped = bound(
      this.#db
        .selectFrom('agent_chat_call')
        .select(['group_id', 'user_id'])
        .select((eb) => [
          eb.fn.countAll<DbNumber>().as('calls'),
          sql<DbNumber>`coalesce(sum(prompt_tokens + completion_tokens), 0)`.as('tokens'),
        ])
        .where('at', '>=', sinceMs)
        .where('outcome', 'not in', [...NOT_CALLED])
        .groupBy(['group_id', 'user_id']),
    );
    const byGroup = new Map<number, { calls: number; tokens: number }>();
    const byMember = new Map<number, { calls: number; tokens: number }>();
    let calls = 0;
    let tokens = 0;
    for (const row of await readRows(this.#engine, grouped)) {
      const n = toNumber(row.calls);
      const t = toNumber(row.tokens);
      calls += n;
      tokens += t;
      add(byGroup, Number(row.group_id), n, t);
      if (Number(row.user_id) !== 0) add(byMember, Number(row.user_id), n, t);
    }
    return { calls, tokens, byGroup, byMember };
  }

  /** Rows refused or failed since `sinceMs`, by outcome (the overview's "down / over budget"). */
  async outcomesSince(sinceMs: number): Promise<Record<string, number>> {
    const query = bound(
      this.#db
        .selectFrom('agent_chat_call')
        .select('outcome')
        .select((eb) => eb.fn.countAll<DbNumber>().as('n'))
        .where('at', '>=', sinceMs)
        .groupBy('outcome'),
    );
    const counts: Record<string, number> = {};
    for (const row of await readRows(this.#engine, query)) counts[row.outcome] = toNumber(row.n);
    return counts;
  }

  async count(): Promise<number> {
    const row = await readFirst(
      this.#engine,
      bound(this.#db.selectFrom('agent_chat_call').select((eb) => eb.fn.countAll<DbNumber>().as('n'))),
    );
    return row ? toNumber(row.n) : 0;
  }
}

function add(map: Map<number, { calls: number; tokens: number }>, key: number, calls: number, tokens: number) {
  const found = map.get(key) ?? { calls: 0, tokens: 0 };
  map.set(key, { calls: found.calls + calls, tokens: found.tokens + tokens });
}

function toRow(entry: LedgerEntry): AgentChatCallTable {
  return {
    at: entry.at,
    self_id: entry.selfId,
    group_id: entry.groupId,
    user_id: entry.userId,
    role: entry.role,
    model: entry.model,
    prompt_tokens: entry.promptTokens,
    completion_tokens: entry.completionTokens,
    latency_ms: Math.round(entry.latencyMs),
    outcome: entry.outcome,
  };
}

function fromRow(row: AgentChatCallTable): StoredLedgerEntry {
  return {
    id: Number(row.id),
    at: Number(row.at),
    selfId: Number(row.self_id),
    groupId: Number(row.group_id),
    userId: Number(row.user_id),
    role: row.role === 'background' ? 'background' : 'chat',
    model: row.model,
    promptTokens: Number(row.prompt_tokens),
    completionTokens: Number(row.completion_tokens),
    latencyMs: Number(row.latency_ms),
    outcome: row.outcome,
  };
}
