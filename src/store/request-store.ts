/**
 * The friend and group request inbox (migration 0009_group_user_configs, table chat_request), on
 * either engine: every request event an account receives, kept across restarts, with what became
 * of it. One row per account and flag: an event seen again refreshes its row (a request handled
 * stays handled).
 */
import type { Generated, Insertable, Kysely, Selectable } from 'kysely';
import type { ChatRequest } from '../domain/chat.ts';
import { stripNul } from '../common/text.ts';
import { exec, first, type Program } from '../sql/program.ts';
import { readRows, writeOne } from '../sql/engine.ts';
import { bound } from '../sql/query.ts';
import type { Database, StoreEngine } from './schema.ts';

export type RequestStatus = 'pending' | 'approved' | 'rejected' | 'failed';

export interface StoredRequest extends ChatRequest {
  readonly id: number;
  readonly status: RequestStatus;
  /** Unix seconds; 0 while pending. */
  readonly handledAt: number;
  /** `console`, `auto` (bot-configs auto-accept), or '' while pending. */
  readonly handledBy: string;
}

export interface ChatRequestTable {
  id: Generated<number>;
  self_id: number;
  kind: string;
  sub_type: string;
  user_id: number;
  group_id: number;
  comment: string;
  flag: string;
  time: number;
  status: RequestStatus;
  handled_at: number;
  handled_by: string;
}

type Row = Selectable<ChatRequestTable>;
type Db = Kysely<Database & { chat_request: ChatRequestTable }>;

export class RequestStore {
  readonly #engine: StoreEngine;
  readonly #db: Db;

  constructor(engine: StoreEngine) {
    this.#engine = engine;
    this.#db = engine.db.withTables<{ chat_request: ChatRequestTable }>();
  }

  /** Keeps a request event; returns the row as stored now. */
  async add(request: ChatRequest): Promise<StoredRequest> {
    const db = this.#db;
    const values: Insertable<ChatRequestTable> = {
      self_id: request.selfId,
      kind: request.kind,
      sub_type: stripNul(request.subType),
      user_id: request.userId,
      group_id: request.groupId ?? 0,
      comment: stripNul(request.comment),
      flag: stripNul(request.flag),
      time: request.time,
      status: 'pending',
      handled_at: 0,
      handled_by: '',
    };
    const insert = bound(
      db
        .insertInto('chat_request')
        .values(values)
        .onConflict((oc) =>
          oc.columns(['self_id', 'flag']).doUpdateSet({ comment: values.comment, time: values.time }),
        ),
    );
    const select = bound(
      db.selectFrom('chat_request').selectAll().where('self_id', '=', values.self_id).where('flag', '=', values.flag),
    );
    return this.#engine.run(
      function* (): Program<StoredRequest> {
        yield* exec(insert);
        const row = yield* first(select);
        if (!row) throw new Error(`chat_request: no row for flag ${values.flag} after its upsert`);
        return fromRow(row);
      },
      { write: true },
    );
  }

  /** Pending requests, oldest first; of one account when given. */
  async pending(selfId?: number, limit = 1000): Promise<StoredRequest[]> {
    let query = this.#db.selectFrom('chat_request').selectAll().where('status', '=', 'pending');
    if (selfId !== undefined) query = query.where('self_id', '=', selfId);
    const statement = bound(query.orderBy('time').orderBy('id').limit(limit));
    return (await readRows(this.#engine, statement)).map(fromRow);
  }

  /** Handled requests, newest first. */
  async handled(limit: number, selfId?: number): Promise<StoredRequest[]> {
    let query = this.#db.selectFrom('chat_request').selectAll().where('status', '!=', 'pending');
    if (selfId !== undefined) query = query.where('self_id', '=', selfId);
    const statement = bound(query.orderBy('handled_at', 'desc').orderBy('id', 'desc').limit(limit));
    return (await readRows(this.#engine, statement)).map(fromRow);
  }

  /** Marks a pending request; false when it was not pending (handled meanwhile). */
  async settle(id: number, status: RequestStatus, by: string, nowSec: number): Promise<boolean> {
    const update = bound(
      this.#db
        .updateTable('chat_request')
        .set({ status, handled_by: by, handled_at: nowSec })
        .where('id', '=', id)
        .where('status', '=', 'pending'),
    );
    return (await writeOne(this.#engine, update)) > 0;
  }
}

function fromRow(row: Row): StoredRequest {
  const groupId = Number(row.group_id);
  return {
    id: Number(row.id),
    selfId: Number(row.self_id),
    kind: row.kind === 'group' ? 'group' : 'friend',
    subType: row.sub_type,
    userId: Number(row.user_id),
    groupId: groupId === 0 ? null : groupId,
    comment: row.comment,
    flag: row.flag,
    time: Number(row.time),
    status: row.status,
    handledAt: Number(row.handled_at),
    handledBy: row.handled_by,
  };
}
