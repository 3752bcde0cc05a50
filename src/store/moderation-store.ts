/**
 * Console moderation of the corpus, on either engine: ban an answer in one group or everywhere,
 * delete an answer, delete a context, each written to `moderation_log` (who, when, what) with a
 * snapshot of what it removed, and undone from that snapshot. Every action and its undo is one
 * transaction.
 *
 * Undo puts back exactly what was removed: the answer rows with their counts and times, their
 * messages in their original order, the context's trigger count and times, its bans. When the bot
 * has learned the same answer again since, the two are merged (counts added, the restored
 * messages placed before the new ones), so nothing learned in between is lost. The context's
 * `answer_count_sum` is recounted from its answers.
 */
import { sql, type Kysely } from 'kysely';
import { stripNul } from '../shared/text.ts';
import type { SqlEngine } from './engine.ts';
import { keywordsHash } from './keywords-hash.ts';
import { exec, first, rows, type Program } from './program.ts';
import { bound, compiled } from './query.ts';
import type { Database, ModerationLogTable } from './schema.ts';

export type ModerationAction = 'ban_group' | 'ban_all' | 'delete_answer' | 'delete_context';

export interface ModerationEntry {
  id: number;
  time: number;
  actor: string;
  action: ModerationAction;
  contextId: number;
  contextKeywords: string;
  answerKeywords: string;
  groupId: number;
  undoneAt: number;
  undoneBy: string;
}

interface AnswerSnapshot {
  keywords: string;
  groupId: number;
  count: number;
  time: number;
  /** Oldest first, as stored. */
  messages: string[];
}
interface BanSnapshot {
  id: number;
  keywords: string;
  groupId: number;
  reason: string;
  time: number;
}
interface ContextSnapshot {
  keywords: string;
  time: number;
  triggerCount: number;
  clearTime: number;
}
type Snapshot =
  | { kind: 'ban'; ban: BanSnapshot }
  | { kind: 'answer'; context: ContextSnapshot; answer: AnswerSnapshot }
  | { kind: 'context'; context: ContextSnapshot; answers: AnswerSnapshot[]; bans: BanSnapshot[] };

/** Why an action or undo could not run (the console answers 404 or 409 with it). */
export class ModerationError extends Error {
  constructor(
    readonly reason: 'not_found' | 'conflict',
    message: string,
  ) {
    super(message);
  }
}

/** What changed, so the caller can drop the caches for that key. */
export interface ModerationResult {
  entry: ModerationEntry;
  keywords: string;
}

type Db = Kysely<Database>;
type Num = number | string;

export class ModerationStore {
  readonly #engine: SqlEngine;
  readonly #db: Db;

  constructor(engine: SqlEngine) {
    this.#engine = engine;
    this.#db = engine.db;
  }

  /**
   * Bans answer `answerId` after its context in `groupId`; `ban_all` passes the repeater's
   * everywhere group (src/repeater/limits.ts GLOBAL_BAN_GROUP).
   */
  ban(
    answerId: number,
    groupId: number,
    action: 'ban_group' | 'ban_all',
    reason: string,
    actor: string,
    now: number,
  ): Promise<ModerationResult> {
    const db = this.#db;
    return this.#engine.run(
      function* () {
        const answer = yield* loadAnswer(db, answerId);
        const context = yield* loadContext(db, Number(answer.context_id));
        const ban = { keywords: answer.keywords, groupId, reason: stripNul(reason), time: now };
        const inserted = yield* first<{ id: Num }>(
          bound(
            db
              .insertInto('context_ban')
              .values({
                context_id: Number(context.id),
                keywords: ban.keywords,
                group_id: groupId,
                reason: ban.reason,
                time: now,
              })
              .returning('id'),
          ),
        );
        const snapshot: Snapshot = { kind: 'ban', ban: { id: Number(inserted?.id), ...ban } };
        const entry = yield* log(db, {
          action,
          actor,
          now,
          context,
          answerKeywords: answer.keywords,
          groupId,
          snapshot,
        });
        return { entry, keywords: context.keywords };
      },
      { write: true },
    );
  }

  deleteAnswer(answerId: number, actor: string, now: number): Promise<ModerationResult> {
    const db = this.#db;
    return this.#engine.run(
      function* () {
        const answer = yield* loadAnswer(db, answerId);
        const context = yield* loadContext(db, Number(answer.context_id));
        const snapshot: Snapshot = {
          kind: 'answer',
          context: contextSnapshot(context),
          answer: yield* answerSnapshot(db, answer),
        };
        yield* exec(bound(db.deleteFrom('context_answer_message').where('answer_id', '=', answerId)));
        yield* exec(bound(db.deleteFrom('context_answer').where('id', '=', answerId)));
        yield* recount(db, Number(context.id));
        const entry = yield* log(db, {
          action: 'delete_answer',
          actor,
          now,
          context,
          answerKeywords: answer.keywords,
          groupId: Number(answer.group_id),
          snapshot,
        });
        return { entry, keywords: context.keywords };
      },
      { write: true },
    );
  }

  deleteContext(contextId: number, actor: string, now: number): Promise<ModerationResult> {
    const db = this.#db;
    return this.#engine.run(
      function* () {
        const context = yield* loadContext(db, contextId);
        const answerRows = yield* rows<AnswerRow>(
          bound(db.selectFrom('context_answer').selectAll().where('context_id', '=', contextId).orderBy('id')),
        );
        const answers: AnswerSnapshot[] = [];
        for (const answer of answerRows) answers.push(yield* answerSnapshot(db, answer));
        const banRows = yield* rows<BanRow>(
          bound(db.selectFrom('context_ban').selectAll().where('context_id', '=', contextId).orderBy('id')),
        );
        const snapshot: Snapshot = {
          kind: 'context',
          context: contextSnapshot(context),
          answers,
          bans: banRows.map(banSnapshot),
        };
        const answerIds = answerRows.map((row) => Number(row.id));
        if (answerIds.length > 0) {
          yield* exec(bound(db.deleteFrom('context_answer_message').where('answer_id', 'in', answerIds)));
        }
        yield* exec(bound(db.deleteFrom('context_answer').where('context_id', '=', contextId)));
        yield* exec(bound(db.deleteFrom('context_ban').where('context_id', '=', contextId)));
        yield* exec(bound(db.deleteFrom('context').where('id', '=', contextId)));
        const entry = yield* log(db, {
          action: 'delete_context',
          actor,
          now,
          context,
          answerKeywords: '',
          groupId: 0,
          snapshot,
        });
        return { entry, keywords: context.keywords };
      },
      { write: true },
    );
  }

  /** Undoes entry `id` when it is not undone yet and not older than `windowSec`. */
  undo(id: number, actor: string, now: number, windowSec: number): Promise<ModerationResult> {
    const db = this.#db;
    const kind = this.#engine.kind;
    return this.#engine.run(
      function* () {
        const select = db.selectFrom('moderation_log').selectAll().where('id', '=', id);
        const row = yield* first<LogRow>(bound(kind === 'postgres' ? select.forUpdate() : select));
        if (!row) throw new ModerationError('not_found', `id: no moderation entry ${id}`);
        if (Number(row.undone_at) > 0) throw new ModerationError('conflict', `id: entry ${id} is already undone`);
        if (Number(row.time) < now - windowSec) {
          throw new ModerationError('conflict', `id: entry ${id} is older than the undo window (${windowSec} s)`);
        }
        const snapshot = JSON.parse(row.snapshot) as Snapshot;
        if (snapshot.kind === 'ban') {
          yield* exec(bound(db.deleteFrom('context_ban').where('id', '=', snapshot.ban.id)));
        } else {
          const contextId = yield* ensureContext(db, snapshot.context, snapshot.kind === 'context');
          const answers = snapshot.kind === 'answer' ? [snapshot.answer] : snapshot.answers;
          for (const answer of answers) yield* restoreAnswer(db, contextId, answer);
          if (snapshot.kind === 'context') {
            for (const ban of snapshot.bans) {
              yield* exec(
                bound(
                  db.insertInto('context_ban').values({
                    context_id: contextId,
                    keywords: ban.keywords,
                    group_id: ban.groupId,
                    reason: ban.reason,
                    time: ban.time,
                  }),
                ),
              );
            }
          }
          yield* recount(db, contextId);
        }
        const by = stripNul(actor);
        yield* exec(
          bound(db.updateTable('moderation_log').set({ undone_at: now, undone_by: by }).where('id', '=', id)),
        );
        return { entry: { ...toEntry(row), undoneAt: now, undoneBy: by }, keywords: row.context_keywords };
      },
      { write: true },
    );
  }

  async list(offset: number, limit: number): Promise<{ items: ModerationEntry[]; hasMore: boolean }> {
    const query = bound(
      this.#db
        .selectFrom('moderation_log')
        .selectAll()
        .orderBy('id', 'desc')
        .limit(limit + 1)
        .offset(offset),
    );
    const found = await this.#engine.run(() => rows<LogRow>(query));
    return { items: found.slice(0, limit).map(toEntry), hasMore: found.length > limit };
  }
}

interface AnswerRow {
  id: Num;
  context_id: Num;
  keywords: string;
  group_id: Num;
  count: Num;
  time: Num;
}
interface ContextRow {
  id: Num;
  keywords: string;
  time: Num;
  trigger_count: Num;
  clear_time: Num;
}
interface BanRow {
  id: Num;
  keywords: string;
  group_id: Num;
  reason: string;
  time: Num;
}

function* loadAnswer(db: Db, id: number): Program<AnswerRow> {
  const row = yield* first<AnswerRow>(bound(db.selectFrom('context_answer').selectAll().where('id', '=', id)));
  if (!row) throw new ModerationError('not_found', `answer_id: no answer ${id}`);
  return row;
}

function* loadContext(db: Db, id: number): Program<ContextRow> {
  const row = yield* first<ContextRow>(bound(db.selectFrom('context').selectAll().where('id', '=', id)));
  if (!row) throw new ModerationError('not_found', `context_id: no context ${id}`);
  return row;
}

function* answerSnapshot(db: Db, answer: AnswerRow): Program<AnswerSnapshot> {
  const messages = yield* rows<{ message: string }>(
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

const contextSnapshot = (row: ContextRow): ContextSnapshot => ({
  keywords: row.keywords,
  time: Number(row.time),
  triggerCount: Number(row.trigger_count),
  clearTime: Number(row.clear_time),
});

const banSnapshot = (row: BanRow): BanSnapshot => ({
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
function* ensureContext(db: Db, snapshot: ContextSnapshot, addTriggers: boolean): Program<number> {
  const hash = keywordsHash(snapshot.keywords);
  const existing = yield* first<{ id: Num }>(
    bound(db.selectFrom('context').select('id').where('keywords_hash', '=', hash)),
  );
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
  const created = yield* first<{ id: Num }>(
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

function* restoreAnswer(db: Db, contextId: number, answer: AnswerSnapshot): Program<void> {
  const hash = keywordsHash(answer.keywords);
  const existing = yield* first<{ id: Num }>(
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
    later = (yield* rows<{ message: string }>(
      bound(db.selectFrom('context_answer_message').select('message').where('answer_id', '=', answerId).orderBy('id')),
    )).map((row) => row.message);
    yield* exec(bound(db.deleteFrom('context_answer_message').where('answer_id', '=', answerId)));
    yield* exec(
      bound(
        db
          .updateTable('context_answer')
          .set((eb) => ({
            count: eb('count', '+', answer.count),
            time: sql`CASE WHEN time > ${answer.time} THEN time ELSE ${answer.time} END` as never,
          }))
          .where('id', '=', answerId),
      ),
    );
  } else {
    const created = yield* first<{ id: Num }>(
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

function* recount(db: Db, contextId: number): Program<void> {
  yield* exec(
    compiled(
      sql`UPDATE context SET answer_count_sum =
            (SELECT COALESCE(SUM(count), 0) FROM context_answer WHERE context_id = ${contextId})
          WHERE id = ${contextId}`,
      db,
    ),
  );
}

interface LogInput {
  action: ModerationAction;
  actor: string;
  now: number;
  context: ContextRow;
  answerKeywords: string;
  groupId: number;
  snapshot: Snapshot;
}

function* log(db: Db, input: LogInput): Program<ModerationEntry> {
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
  const inserted = yield* first<{ id: Num }>(bound(db.insertInto('moderation_log').values(row).returning('id')));
  return toEntry({ ...row, id: Number(inserted?.id) });
}

type LogRow = Omit<ModerationLogTable, 'id'> & { id: Num };

function toEntry(row: LogRow): ModerationEntry {
  return {
    id: Number(row.id),
    time: Number(row.time),
    actor: row.actor,
    action: row.action as ModerationAction,
    contextId: Number(row.context_id),
    contextKeywords: row.context_keywords,
    answerKeywords: row.answer_keywords,
    groupId: Number(row.group_id),
    undoneAt: Number(row.undone_at),
    undoneBy: row.undone_by,
  };
}
