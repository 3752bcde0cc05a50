/**
 * The group's own voice on either engine (migration 0014_s_catchphrases, docs/agent-catchphrases.md):
 * phrases mined from a group's corpus, kept as candidates until the console approves or rejects
 * them. Mining offers phrases through one upsert on the unique key (account, group, text hash), so
 * two processes mining at once write one row, and a row's status is never changed by mining: a
 * rejected phrase stays rejected and is never proposed again. An approve or reject writes its
 * activity entry in the same transaction; its undo puts the phrase back among the candidates and
 * marks that entry undone.
 */
import { sql, type Generated, type Insertable, type Kysely, type Selectable } from 'kysely';
import { stripNul } from '../common/text.ts';
import type { ActivityActor } from '../domain/activity.ts';
import { keywordsHash } from '../domain/keywords-hash.ts';
import { readRows } from '../sql/engine.ts';
import { exec, first, rows, type Program } from '../sql/program.ts';
import { bound } from '../sql/query.ts';
import { toNumber, type DbNumber } from '../sql/numbers.ts';
import { actorLine, writeActivity, type ActivityEntry } from './activity-programs.ts';
import type { Database, StoreEngine } from './schema.ts';

export const CATCHPHRASE_STATUSES = ['candidate', 'active', 'rejected'] as const;
export type CatchphraseStatus = (typeof CATCHPHRASE_STATUSES)[number];
export type CatchphraseSource = 'local' | 'shared';
export type CatchphraseAction = 'approve' | 'reject';

export interface AgentCatchphraseTable {
  id: Generated<number>;
  self_id: number;
  group_id: number;
  text: string;
  text_hash: string;
  status: CatchphraseStatus;
  count: number;
  contexts: number;
  source: CatchphraseSource;
  created_at: number;
  mined_at: number;
  resolved_at: Generated<number>;
  resolved_by: Generated<string>;
  activity_id: Generated<number>;
}

export interface Catchphrase {
  readonly id: number;
  /** The bot account it is for; 0: any account in the group (mined phrases are the group's). */
  readonly selfId: number;
  readonly groupId: number;
  readonly text: string;
  readonly status: CatchphraseStatus;
  /** How often the group said it when last mined (sum of its answer counts). */
  readonly count: number;
  /** After how many different phrases it was said. */
  readonly contexts: number;
  readonly source: CatchphraseSource;
  readonly createdAt: number;
  readonly minedAt: number;
  /** Unix seconds of the latest approve or reject; 0 while a candidate. */
  readonly resolvedAt: number;
  readonly resolvedBy: string;
  /** The activity entry of the latest approve or reject; 0 while a candidate. */
  readonly activityId: number;
}

/** A phrase the miner proposes for a group. */
export interface MinedPhrase {
  readonly text: string;
  readonly count: number;
  readonly contexts: number;
  readonly source: CatchphraseSource;
}

export interface CatchphraseFilter {
  selfId?: number;
  groupId?: number;
  status?: CatchphraseStatus;
  offset: number;
  limit: number;
}

export type StatusCounts = Record<CatchphraseStatus | 'all', number>;

export interface CatchphrasePage {
  items: Catchphrase[];
  /** Rows matching the whole filter (status included). */
  total: number;
  /** Rows per status matching the filter without its status. */
  counts: StatusCounts;
}

export interface OfferResult {
  /** New candidates written. */
  added: number;
  /** Phrases known already (any status) whose figures were refreshed. */
  refreshed: number;
}

export interface ResolveResult {
  entry: Catchphrase;
  /** The activity entry written; null when the phrase had that status already (nothing changed). */
  activity: ActivityEntry | null;
}

/** Why a resolve or undo did nothing (the console words it). */
export class CatchphraseError extends Error {
  constructor(
    readonly reason: 'not_found' | 'not_resolved',
    message: string,
  ) {
    super(message);
  }
}

type Row = Selectable<AgentCatchphraseTable>;
type Db = Kysely<Database & { agent_catchphrase: AgentCatchphraseTable }>;

const KIND_OF: Record<CatchphraseAction, 'catchphrase_approve' | 'catchphrase_reject'> = {
  approve: 'catchphrase_approve',
  reject: 'catchphrase_reject',
};

export class CatchphraseStore {
  readonly #engine: StoreEngine;
  readonly #db: Db;

  constructor(engine: StoreEngine) {
    this.#engine = engine;
    this.#db = engine.db.withTables<{ agent_catchphrase: AgentCatchphraseTable }>();
  }

  /**
   * Offers mined phrases for a group: known ones (any status) get their figures refreshed, at most
   * `maxNew` unknown ones become candidates. One unit of work; the insert is an upsert on the
   * unique key, so a process mining the same group at the same time cannot duplicate a phrase.
   */
  offer(groupId: number, phrases: readonly MinedPhrase[], maxNew: number, now: number): Promise<OfferResult> {
    const db = this.#db;
    const clean = dedupe(phrases);
    if (clean.length === 0) return Promise.resolve({ added: 0, refreshed: 0 });
    const known = bound(
      db
        .selectFrom('agent_catchphrase')
        .select('text_hash')
        .where('self_id', '=', 0)
        .where('group_id', '=', groupId)
        .where(
          'text_hash',
          'in',
          clean.map((phrase) => phrase.hash),
        ),
    );
    return this.#engine.run(
      function* (): Program<OfferResult> {
        const existing = new Set((yield* rows(known)).map((row) => row.text_hash));
        const result: OfferResult = { added: 0, refreshed: 0 };
        // The best `maxNew` unknown ones (the miner's order), then written in key order, so two
        // processes offering the same phrases lock their rows in the same order (no deadlock).
        let room = maxNew;
        const chosen = clean.filter((phrase) => existing.has(phrase.hash) || room-- > 0);
        chosen.sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
        for (const phrase of chosen) {
          const isNew = !existing.has(phrase.hash);
          const values: Insertable<AgentCatchphraseTable> = {
            self_id: 0,
            group_id: groupId,
            text: phrase.text,
            text_hash: phrase.hash,
            status: 'candidate',
            count: phrase.count,
            contexts: phrase.contexts,
            source: phrase.source,
            created_at: now,
            mined_at: now,
          };
          yield* exec(
            bound(
              db
                .insertInto('agent_catchphrase')
                .values(values)
                .onConflict((oc) =>
                  oc
                    .columns(['self_id', 'group_id', 'text_hash'])
                    .doUpdateSet({ count: phrase.count, contexts: phrase.contexts, mined_at: now }),
                ),
            ),
          );
          if (isNew) result.added++;
          else result.refreshed++;
        }
        return result;
      },
      { write: true },
    );
  }

  /** A page of phrases, most said first, with the total after the filter and the counts per status. */
  async list(filter: CatchphraseFilter): Promise<CatchphrasePage> {
    let scoped = this.#db.selectFrom('agent_catchphrase');
    if (filter.selfId !== undefined) scoped = scoped.where('self_id', '=', filter.selfId);
    if (filter.groupId !== undefined) scoped = scoped.where('group_id', '=', filter.groupId);
    const page = bound(
      (filter.status !== undefined ? scoped.where('status', '=', filter.status) : scoped)
        .selectAll()
        .orderBy('count', 'desc')
        .orderBy('id')
        .limit(filter.limit)
        .offset(filter.offset),
    );
    const perStatus = bound(scoped.select(['status', sql<DbNumber>`COUNT(*)`.as('n')]).groupBy('status'));
    const [items, grouped] = await this.#engine.run(function* (): Program<[Row[], { status: string; n: DbNumber }[]]> {
      return [yield* rows(page), yield* rows(perStatus)];
    });
    const counts: StatusCounts = { candidate: 0, active: 0, rejected: 0, all: 0 };
    for (const row of grouped) {
      const n = toNumber(row.n);
      if (row.status in counts) counts[row.status as CatchphraseStatus] = n;
      counts.all += n;
    }
    return {
      items: items.map(fromRow),
      total: filter.status !== undefined ? counts[filter.status] : counts.all,
      counts,
    };
  }

  async get(id: number): Promise<Catchphrase | null> {
    const found = await readRows(
      this.#engine,
      bound(this.#db.selectFrom('agent_catchphrase').selectAll().where('id', '=', id)),
    );
    return found[0] ? fromRow(found[0]) : null;
  }

  /** Candidates of a group waiting for a decision (mining stops proposing beyond a bound). */
  async pendingCount(groupId: number): Promise<number> {
    const found = await readRows(
      this.#engine,
      bound(
        this.#db
          .selectFrom('agent_catchphrase')
          .select(sql<DbNumber>`COUNT(*)`.as('n'))
          .where('group_id', '=', groupId)
          .where('status', '=', 'candidate'),
      ),
    );
    return found[0] ? toNumber(found[0].n) : 0;
  }

  /** The approved phrases of a group for an account, most said first: nothing else, ever. */
  async approved(groupId: number, selfId: number, limit: number): Promise<string[]> {
    const found = await readRows(
      this.#engine,
      bound(
        this.#db
          .selectFrom('agent_catchphrase')
          .select('text')
          .where('group_id', '=', groupId)
          .where('status', '=', 'active')
          .where('self_id', 'in', [0, selfId])
          .orderBy('count', 'desc')
          .orderBy('id')
          .limit(limit),
      ),
    );
    return found.map((row) => row.text);
  }

  /**
   * Approves or rejects a phrase (any status may change to the other), writing the activity
   * entry in the same transaction. The same status again changes nothing and records nothing.
   */
  resolve(id: number, action: CatchphraseAction, actor: ActivityActor, now: number): Promise<ResolveResult> {
    const db = this.#db;
    const base = this.#engine.db;
    const kind = this.#engine.kind;
    const status: CatchphraseStatus = action === 'approve' ? 'active' : 'rejected';
    return this.#engine.run(
      function* (): Program<ResolveResult> {
        const row = yield* lockRow(db, kind, id);
        if (row.status === status) return { entry: fromRow(row), activity: null };
        const activity = yield* writeActivity(base, {
          time: now,
          kind: KIND_OF[action],
          actor,
          scope: 'group',
          groupId: Number(row.group_id),
          params: { entry_id: id, text: row.text, from: row.status, self_id: Number(row.self_id) },
        });
        const by = stripNul(actorLine(actor));
        yield* exec(
          bound(
            db
              .updateTable('agent_catchphrase')
              .set({ status, resolved_at: now, resolved_by: by, activity_id: activity.id })
              .where('id', '=', id),
          ),
        );
        return {
          entry: fromRow({ ...row, status, resolved_at: now, resolved_by: by, activity_id: activity.id }),
          activity,
        };
      },
      { write: true },
    );
  }

  /**
   * Undoes the latest approve or reject: the phrase is a candidate again (so it is not used), the
   * resolve's activity entry is marked undone and the undo is an entry of its own.
   */
  undo(id: number, actor: ActivityActor, now: number): Promise<ResolveResult> {
    const db = this.#db;
    const base = this.#engine.db;
    const kind = this.#engine.kind;
    return this.#engine.run(
      function* (): Program<ResolveResult> {
        const row = yield* lockRow(db, kind, id);
        if (row.status === 'candidate')
          throw new CatchphraseError('not_resolved', `entry_id: phrase ${id} is a candidate, nothing to undo`);
        const by = stripNul(actorLine(actor));
        const resolvedEntry = Number(row.activity_id);
        if (resolvedEntry > 0) {
          yield* exec(
            bound(
              db
                .updateTable('activity_log')
                .set({ undone_at: now, undone_by: by })
                .where('id', '=', resolvedEntry)
                .where('undone_at', '=', 0),
            ),
          );
        }
        const activity = yield* writeActivity(base, {
          time: now,
          kind: 'undo',
          actor,
          scope: 'group',
          groupId: Number(row.group_id),
          params: {
            entry_id: resolvedEntry,
            entry_kind: row.status === 'active' ? KIND_OF.approve : KIND_OF.reject,
            catchphrase_id: id,
            text: row.text,
          },
        });
        yield* exec(
          bound(
            db
              .updateTable('agent_catchphrase')
              .set({ status: 'candidate', resolved_at: 0, resolved_by: '', activity_id: 0 })
              .where('id', '=', id),
          ),
        );
        return {
          entry: fromRow({ ...row, status: 'candidate', resolved_at: 0, resolved_by: '', activity_id: 0 }),
          activity,
        };
      },
      { write: true },
    );
  }
}

function* lockRow(db: Db, kind: StoreEngine['kind'], id: number): Program<Row> {
  const select = db.selectFrom('agent_catchphrase').selectAll().where('id', '=', id);
  // PostgreSQL: two consoles resolving the same phrase at once take turns.
  const row = yield* first(bound(kind === 'postgres' ? select.forUpdate() : select));
  if (!row) throw new CatchphraseError('not_found', `entry_id: no catchphrase ${id}`);
  return row;
}

/** One phrase per text (the first, the miner's best), NUL-free, with its hash. */
function dedupe(phrases: readonly MinedPhrase[]): (MinedPhrase & { hash: string })[] {
  const seen = new Map<string, MinedPhrase & { hash: string }>();
  for (const phrase of phrases) {
    const text = stripNul(phrase.text).trim();
    if (text === '') continue;
    const hash = keywordsHash(text);
    if (!seen.has(hash)) seen.set(hash, { ...phrase, text, hash });
  }
  return [...seen.values()];
}

function fromRow(row: Row): Catchphrase {
  return {
    id: Number(row.id),
    selfId: Number(row.self_id),
    groupId: Number(row.group_id),
    text: row.text,
    status: row.status,
    count: Number(row.count),
    contexts: Number(row.contexts),
    source: row.source,
    createdAt: Number(row.created_at),
    minedAt: Number(row.mined_at),
    resolvedAt: Number(row.resolved_at),
    resolvedBy: row.resolved_by,
    activityId: Number(row.activity_id),
  };
}
