/**
 * The units of work behind console moderation (moderation-store.ts): snapshots of what an action
 * removes, putting it back (merged with anything learned since), recounting the context, and the
 * `moderation_log` row.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import { stripNul } from '../common/text.ts';
import { keywordsHash } from '../domain/keywords-hash.ts';
import { exec, first, rows, type Program } from '../sql/program.ts';
import { bound, compiled } from '../sql/query.ts';
import type { ContextAnswerTable, ContextBanTable, ContextTable, Database, ModerationLogTable } from './schema.ts';
import { ModerationError, type ModerationAction, type ModerationEntry } from './moderation-types.ts';

export type Db = Kysely<Database>;

export interface AnswerSnapshot {
  keywords: string;
  groupId: number;
  count: number;
  time: number;
  /** Oldest first, as stored. */
  messages: string[];
}
export interface BanSnapshot {
  id: number;
  keywords: string;
  groupId: number;
  reason: string;
  time: number;
}
export interface ContextSnapshot {
  keywords: string;
  time: number;
  triggerCount: number;
  clearTime: number;
}
export type Snapshot =
  | { kind: 'ban'; ban: BanSnapshot }
  | { kind: 'answer'; context: ContextSnapshot; answer: AnswerSnapshot }
  | { kind: 'context'; context: ContextSnapshot; answers: AnswerSnapshot[]; bans: BanSnapshot[] };

export type AnswerRow = Selectable<ContextAnswerTable>;
export type ContextRow = Pick<Selectable<ContextTable>, 'id' | 'keywords' | 'time' | 'trigger_count' | 'clear_time'>;
export type BanRow = Selectable<ContextBanTable>;

export function* loadAnswer(db: Db, id: number): Program<AnswerRow> {
  const row = yield* first(bound(db.selectFrom('context_answer').selectAll().where('id', '=', id)));
  if (!row) throw new ModerationError('not_found', `answer_id: no answer ${id}`);
  return row;
}

export function* loadContext(db: Db, id: number): Program<ContextRow> {
  const row = yield* first(bound(db.selectFrom('context').selectAll().where('id', '=', id)));
  if (!row) throw new ModerationError('not_found', `context_id: no context ${id}`);
  return row;
}

export function* answerSnapshot(db: Db, answer: AnswerRow): Program<AnswerSnapshot> {
  const messages = yield* rows(
    bound(
      db
        .selectFrom('context_answer_message')
        .select('message')
        .where('answer_id', '=', Number(answer.id))
        .orderBy('id'),
    ),
  );
  return {
    keywords: answer.keywords,
    groupId: Number(answer.group_id),
    count: Number(answer.count),
    time: Number(answer.time),
    messages: messages.map((row) => row.message),
  };
}

export const contextSnapshot = (row: ContextRow): ContextSnapshot => ({
  keywords: row.keywords,
  time: Number(row.time),
  triggerCount: Number(row.trigger_count),
  clearTime: Number(row.clear_time),
});

export const banSnapshot = (row: BanRow): BanSnapshot => ({
  id: Number(row.id),
  keywords: row.keywords,
  groupId: Number(row.group_id),
  reason: row.reason,
  time: Number(row.time),
});

/**
 * The context's id, creating it from the snapshot when it is gone. A whole-context undo onto a
 * context learned again since adds the snapshot's trigger count to it.
 */
export function* ensureContext(db: Db, snapshot: ContextSnapshot, addTriggers: boolean): Program<number> {
  const hash = keywordsHash(snapshot.keywords);
  const existing = yield* first(bound(db.selectFrom('context').select('id').where('keywords_hash', '=', hash)));
  if (existing) {
    if (addTriggers) {
      yield* exec(
        bound(
          db
            .updateTable('context')
            .set((eb) => ({ trigger_count: eb('trigger_count', '+', snapshot.triggerCount) }))
            .where('id', '=', Number(existing.id)),
        ),
      );
    }
    return Number(existing.id);
  }
  const created = yield* first(
    bound(
      db
        .insertInto('context')
        .values({
          keywords: snapshot.keywords,
          keywords_hash: hash,
          time: snapshot.time,
          trigger_count: snapshot.triggerCount,
          clear_time: snapshot.clearTime,
        })
        .returning('id'),
    ),
  );
  return Number(created?.id);
}

export function* restoreAnswer(db: Db, contextId: number, answer: AnswerSnapshot): Program<void> {
  const hash = keywordsHash(answer.keywords);
  const existing = yield* first(
    bound(
      db
        .selectFrom('context_answer')
        .select('id')
        .where('context_id', '=', contextId)
        .where('group_id', '=', answer.groupId)
        .where('keywords_hash', '=', hash),
    ),
  );
  let answerId: number;
  let later: string[] = [];
  if (existing) {
    answerId = Number(existing.id);
    // Learned again since: the restored messages go first, the new ones after them.
    later = (yield* rows(
      bound(db.selectFrom('context_answer_message').select('message').where('answer_id', '=', answerId).orderBy('id')),
    )).map((row) => row.message);
    yield* exec(bound(db.deleteFrom('context_answer_message').where('answer_id', '=', answerId)));
    yield* exec(
      bound(
        db
          .updateTable('context_answer')
          .set((eb) => ({
            count: eb('count', '+', answer.count),
            time: sql<number>`CASE WHEN time > ${answer.time} THEN time ELSE ${answer.time} END`,
          }))
          .where('id', '=', answerId),
      ),
    );
  } else {
    const created = yield* first(
      bound(
        db
          .insertInto('context_answer')
          .values({
            context_id: contextId,
            keywords: answer.keywords,
            keywords_hash: hash,
            group_id: answer.groupId,
            count: answer.count,
            time: answer.time,
          })
          .returning('id'),
      ),
    );
    answerId = Number(created?.id);
  }
  const messages = [...answer.messages, ...later];
  for (let start = 0; start < messages.length; start += 200) {
    const chunk = messages.slice(start, start + 200).map((message) => ({ answer_id: answerId, message }));
    yield* exec(bound(db.insertInto('context_answer_message').values(chunk)));
  }
}

export function* recount(db: Db, contextId: number): Program<void> {
  yield* exec(
    compiled(
      sql`UPDATE context SET answer_count_sum =
            (SELECT COALESCE(SUM(count), 0) FROM context_answer WHERE context_id = ${contextId})
          WHERE id = ${contextId}`,
      db,
    ),
  );
}

export interface LogInput {
  action: ModerationAction;
  actor: string;
  now: number;
  context: ContextRow;
  answerKeywords: string;
  groupId: number;
  snapshot: Snapshot;
}

export function* log(db: Db, input: LogInput): Program<ModerationEntry> {
  const row = {
    time: input.now,
    actor: stripNul(input.actor),
    action: input.action,
    context_id: Number(input.context.id),
    context_keywords: input.context.keywords,
    answer_keywords: input.answerKeywords,
    group_id: input.groupId,
    snapshot: JSON.stringify(input.snapshot),
    undone_at: 0,
    undone_by: '',
  };
  const inserted = yield* first(bound(db.insertInto('moderation_log').values(row).returning('id')));
  return toEntry({ ...row, id: Number(inserted?.id) });
}

export type LogRow = Selectable<ModerationLogTable>;

export function toEntry(row: LogRow): ModerationEntry {
  return {
    id: Number(row.id),
    time: Number(row.time),
    actor: row.actor,
    action: row.action,
    contextId: Number(row.context_id),
    contextKeywords: row.context_keywords,
    answerKeywords: row.answer_keywords,
    groupId: Number(row.group_id),
    undoneAt: Number(row.undone_at),
    undoneBy: row.undone_by,
  };
}
