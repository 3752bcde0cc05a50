/**
 * Console moderation of the corpus, on either engine: ban an answer in one group or everywhere,
 * lift its bans (unban-programs.ts), delete an answer, delete a context, each written to the
 * activity log (activity-programs.ts: who, when, what) with a snapshot of what it removed, and
 * undone from that snapshot. Every action and its undo is one transaction, entry included.
 *
 * Undo puts back exactly what was removed: the answer rows with their counts and times, their
 * messages in their original order, the context's trigger count and times, its bans. When the bot
 * has learned the same answer again since, the two are merged (counts added, the restored
 * messages placed before the new ones), so nothing learned in between is lost. The context's
 * `answer_count_sum` is recounted from its answers.
 */
import { stripNul } from '../common/text.ts';
import { exec, first, rows } from '../sql/program.ts';
import { readRows } from '../sql/engine.ts';
import { bound } from '../sql/query.ts';
import { actorLine } from './activity-programs.ts';
import type { ActivityActor } from '../domain/activity.ts';
import { toActivityEntry, writeActivity } from './activity-programs.ts';
import { restoreUnban, unbanAnswer, type UnbanResult } from './unban-programs.ts';
import {
  answerSnapshot,
  consoleActor,
  banSnapshot,
  contextSnapshot,
  ensureContext,
  loadAnswer,
  loadContext,
  log,
  recount,
  restoreAnswer,
  toEntry,
  type AnswerSnapshot,
  type Db,
  type Snapshot,
} from './moderation-programs.ts';

export { ModerationError, type ModerationAction, type ModerationEntry } from './moderation-types.ts';
import { ModerationError, type ModerationEntry } from './moderation-types.ts';
import type { StoreEngine } from './schema.ts';

/** What changed, so the caller can drop the caches for that key. */
export interface ModerationResult {
  entry: ModerationEntry;
  keywords: string;
}

export class ModerationStore {
  readonly #engine: StoreEngine;
  readonly #db: Db;

  constructor(engine: StoreEngine) {
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
    actor: ActivityActor | string,
    now: number,
  ): Promise<ModerationResult> {
    const db = this.#db;
    return this.#engine.run(
      function* () {
        const answer = yield* loadAnswer(db, answerId);
        const context = yield* loadContext(db, Number(answer.context_id));
        const ban = { keywords: answer.keywords, groupId, reason: stripNul(reason), time: now };
        const inserted = yield* first(
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
          actor: consoleActor(actor),
          now,
          context,
          answerKeywords: answer.keywords,
          answerId,
          groupId,
          snapshot,
        });
        return { entry, keywords: context.keywords };
      },
      { write: true },
    );
  }

  deleteAnswer(answerId: number, actor: ActivityActor | string, now: number): Promise<ModerationResult> {
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
          actor: consoleActor(actor),
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

  deleteContext(contextId: number, actor: ActivityActor | string, now: number): Promise<ModerationResult> {
    const db = this.#db;
    return this.#engine.run(
      function* () {
        const context = yield* loadContext(db, contextId);
        const answerRows = yield* rows(
          bound(db.selectFrom('context_answer').selectAll().where('context_id', '=', contextId).orderBy('id')),
        );
        const answers: AnswerSnapshot[] = [];
        for (const answer of answerRows) answers.push(yield* answerSnapshot(db, answer));
        const banRows = yield* rows(
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
          actor: consoleActor(actor),
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

  /**
   * Lifts answer `answerId`'s bans in `groupId` (null: everywhere), at any time; undoable like
   * the other actions.
   */
  unban(answerId: number, groupId: number | null, actor: ActivityActor, now: number): Promise<UnbanResult> {
    const db = this.#db;
    return this.#engine.run(() => unbanAnswer(db, answerId, groupId, actor, now), { write: true });
  }

  /**
   * Undoes entry `id` when it keeps a snapshot, is not undone yet and not older than `windowSec`;
   * the undo is an entry of its own too. `listGroups`: blacklists an undone unban put back.
   */
  undo(
    id: number,
    actor: ActivityActor | string,
    now: number,
    windowSec: number,
  ): Promise<ModerationResult & { listGroups: number[] }> {
    const db = this.#db;
    const kind = this.#engine.kind;
    const by = consoleActor(actor);
    return this.#engine.run(
      function* () {
        const select = db.selectFrom('activity_log').selectAll().where('id', '=', id);
        const row = yield* first(bound(kind === 'postgres' ? select.forUpdate() : select));
        if (!row) throw new ModerationError('not_found', `id: no activity entry ${id}`);
        if (row.snapshot === '') throw new ModerationError('conflict', `id: entry ${id} (${row.kind}) has no undo`);
        if (Number(row.undone_at) > 0) throw new ModerationError('conflict', `id: entry ${id} is already undone`);
        if (Number(row.time) < now - windowSec) {
          throw new ModerationError('conflict', `id: entry ${id} is older than the undo window (${windowSec} s)`);
        }
        // The column is written only by writeActivity (activity-programs.ts), from a Snapshot.
        const snapshot = JSON.parse(row.snapshot) as Snapshot;
        let listGroups: number[] = [];
        if (snapshot.kind === 'ban') {
          yield* exec(bound(db.deleteFrom('context_ban').where('id', '=', snapshot.ban.id)));
        } else if (snapshot.kind === 'unban') {
          yield* restoreUnban(db, snapshot.bans, snapshot.lists, snapshot.contextId);
          listGroups = [...new Set(snapshot.lists.map((list) => list.groupId))];
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
        const line = stripNul(actorLine(by));
        yield* exec(
          bound(db.updateTable('activity_log').set({ undone_at: now, undone_by: line }).where('id', '=', id)),
        );
        yield* writeActivity(db, {
          time: now,
          kind: 'undo',
          actor: by,
          scope: row.scope,
          groupId: Number(row.group_id),
          contextId: Number(row.context_id),
          answerId: Number(row.answer_id),
          contextKeywords: row.context_keywords,
          answerKeywords: row.answer_keywords,
          params: { entry_id: id, entry_kind: row.kind },
        });
        const entry = toEntry({ ...toActivityEntry(row), undoneAt: now, undoneBy: line });
        return { entry, keywords: row.context_keywords, listGroups };
      },
      { write: true },
    );
  }

  /**
   * Answers of `contextKeywords` with `answerKeywords` in each group: what a community withdrawal
   * needs to tell an imported answer (group 0) from one learned in a group (docs/hub.md#moderation).
   */
  async answersNamed(contextKeywords: string, answerKeywords: string): Promise<{ id: number; groupId: number }[]> {
    const query = bound(
      this.#db
        .selectFrom('context_answer as a')
        .innerJoin('context as c', 'c.id', 'a.context_id')
        .select(['a.id as id', 'a.group_id as group_id'])
        .where('c.keywords', '=', stripNul(contextKeywords))
        .where('a.keywords', '=', stripNul(answerKeywords)),
    );
    const found = await readRows(this.#engine, query);
    return found.map((row) => ({ id: Number(row.id), groupId: Number(row.group_id) }));
  }

  /** The console moderation entries (the older GET /api/corpus/moderation), newest first. */
  async list(offset: number, limit: number): Promise<{ items: ModerationEntry[]; hasMore: boolean }> {
    const query = bound(
      this.#db
        .selectFrom('activity_log')
        .selectAll()
        .where('kind', 'in', MODERATION_KINDS)
        .orderBy('id', 'desc')
        .limit(limit + 1)
        .offset(offset),
    );
    const found = await readRows(this.#engine, query);
    return { items: found.slice(0, limit).map((row) => toEntry(toActivityEntry(row))), hasMore: found.length > limit };
  }
}

const MODERATION_KINDS = ['ban_group', 'ban_all', 'delete_answer', 'delete_context'] as const;
