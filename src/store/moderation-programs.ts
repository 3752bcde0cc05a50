/**
 * The units of work behind console moderation (moderation-store.ts): snapshots of what an action
 * removes, putting it back (merged with anything learned since), recounting the context, and the
 * entry in the activity log (activity-programs.ts).
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import { keywordsHash } from '../domain/keywords-hash.ts';
import { exec, first, rows, type Program } from '../sql/program.ts';
import { bound, compiled } from '../sql/query.ts';
import { EVERYWHERE_GROUP, type ActivityActor } from '../domain/activity.ts';
import { actorLine, writeActivity, type ActivityEntry } from './activity-programs.ts';
import type { ContextAnswerTable, ContextBanTable, ContextTable, Database } from './schema.ts';
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
/** A blacklist entry an unban removed (docs/rules.md#bans): which list of which group. */
export interface ListSnapshot {
  groupId: number;
  keywords: string;
  list: 'active' | 'reserve';
}
export type Snapshot =
  | { kind: 'ban'; ban: BanSnapshot }
  | { kind: 'unban'; contextId: number; bans: BanSnapshot[]; lists: ListSnapshot[] }
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
  actor: ActivityActor;
  now: number;
  context: ContextRow;
  answerKeywords: string;
  answerId?: number;
  groupId: number;
  snapshot: Snapshot;
}

export function* log(db: Db, input: LogInput): Program<ModerationEntry> {
  const entry = yield* writeActivity(db, {
    time: input.now,
    kind: input.action,
    actor: input.actor,
    scope: input.groupId === 0 || input.groupId === EVERYWHERE_GROUP ? 'everywhere' : 'group',
    groupId: input.groupId,
    contextId: Number(input.context.id),
    ...(input.answerId !== undefined ? { answerId: input.answerId } : {}),
    contextKeywords: input.context.keywords,
    answerKeywords: input.answerKeywords,
    snapshot: input.snapshot,
  });
  return toEntry(entry);
}

/** The older console shape of an entry (GET /api/corpus/moderation). */
export function toEntry(entry: ActivityEntry): ModerationEntry {
  return {
    id: entry.id,
    time: entry.time,
    actor: actorLine(
      entry.actor.kind === 'console'
        ? { kind: 'console', level: entry.actor.level, address: entry.actor.address }
        : entry.actor.kind === 'chat'
          ? { kind: 'chat', userId: entry.actor.userId, name: entry.actor.name }
          : { kind: entry.actor.kind, name: entry.actor.name },
    ),
    action: entry.kind as ModerationAction,
    contextId: entry.contextId,
    contextKeywords: entry.contextKeywords,
    answerKeywords: entry.answerKeywords,
    groupId: entry.groupId,
    undoneAt: entry.undoneAt,
    undoneBy: entry.undoneBy,
  };
}

/** A console actor from the older one-line form `<level> <via> from <address>`. */
export function consoleActor(actor: ActivityActor | string): ActivityActor {
  if (typeof actor !== 'string') return actor;
  const [head = '', address = ''] = actor.split(' from ');
  return { kind: 'console', level: head.split(' ')[0] ?? '', address };
}
