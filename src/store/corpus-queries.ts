import { sql, type Kysely } from 'kysely';
import { bound, template } from './query.ts';
import type { Database } from './schema.ts';

export interface ContextRow {
  id: number;
  keywords: string;
  time: number;
  trigger_count: number;
  clear_time: number;
}

export interface SnapshotContextRow extends ContextRow {
  ban_keywords: string | null;
  ban_group_id: number | null;
  ban_reason: string | null;
  ban_time: number | null;
}

export interface AnswerRow {
  id: number;
  keywords: string;
  group_id: number;
  count: number;
  time: number;
}

export interface AnswerWithMessageRow extends AnswerRow {
  message: string | null;
}

export interface BanRow {
  context_id: number;
  keywords: string;
  group_id: number;
  reason: string;
  time: number;
}

export interface MessageRow {
  answer_id: number;
  message: string;
}

export interface NewAnswerRow {
  context_id: number;
  keywords: string;
  keywords_hash: string;
  group_id: number;
  count: number;
  time: number;
}

/**
 * Every statement of the corpus store, built with Kysely in the engine's dialect. Hot statements
 * are templates compiled once; statements whose text varies (multi-row inserts, id lists) are
 * compiled per call.
 */
export function corpusQueries(db: Kysely<Database>) {
  return {
    contextIdByHash: template<{ hash: string }>((p) =>
      db.selectFrom('context').select('id').where('keywords_hash', '=', p('hash')).limit(1),
    ),

    contextByHash: template<{ hash: string }>((p) =>
      db
        .selectFrom('context')
        .select(['id', 'keywords', 'time', 'trigger_count', 'clear_time'])
        .where('keywords_hash', '=', p('hash')),
    ),

    /** Snapshot query 1: the context row with its bans (one row per ban, in ban order). */
    snapshotContext: template<{ hash: string }>((p) =>
      db
        .selectFrom('context as c')
        .leftJoin('context_ban as b', 'b.context_id', 'c.id')
        .select([
          'c.id',
          'c.keywords',
          'c.time',
          'c.trigger_count',
          'c.clear_time',
          'b.keywords as ban_keywords',
          'b.group_id as ban_group_id',
          'b.reason as ban_reason',
          'b.time as ban_time',
        ])
        .where('c.keywords_hash', '=', p('hash'))
        .orderBy('b.id'),
    ),

    /**
     * Snapshot query 2: the top answers by count then time, each with its newest messages in
     * ascending order. The lowest message id to keep is found per answer with an index walk
     * (OFFSET cap-1 from the newest), so the cost is O(cap) per answer, however many messages a
     * popular answer has collected.
     */
    snapshotAnswers: template<{ contextId: number; answersCap: number; messagesOffset: number }>((p) => ({
      compile: () =>
        sql`WITH top_answer AS (
            SELECT id, keywords, group_id, count, time FROM context_answer
            WHERE context_id = ${p('contextId')}
            ORDER BY count DESC, time DESC, id DESC
            LIMIT ${p('answersCap')}
          ),
          bounded AS (
            SELECT t.id, t.keywords, t.group_id, t.count, t.time,
              COALESCE((SELECT m.id FROM context_answer_message m WHERE m.answer_id = t.id
                        ORDER BY m.id DESC LIMIT 1 OFFSET ${p('messagesOffset')}), 0) AS first_message_id
            FROM top_answer t
          )
          SELECT b.id, b.keywords, b.group_id, b.count, b.time, m.message
          FROM bounded b
          LEFT JOIN context_answer_message m ON m.answer_id = b.id AND m.id >= b.first_message_id
          ORDER BY b.count DESC, b.time DESC, b.id DESC, m.id ASC`.compile(db),
    })),

    answersOfContext: template<{ contextId: number }>((p) =>
      db
        .selectFrom('context_answer')
        .select(['id', 'keywords', 'group_id', 'count', 'time'])
        .where('context_id', '=', p('contextId'))
        .orderBy('id'),
    ),

    messagesOfContext: template<{ contextId: number }>((p) =>
      db
        .selectFrom('context_answer_message as m')
        .innerJoin('context_answer as a', 'a.id', 'm.answer_id')
        .select(['m.answer_id', 'm.message'])
        .where('a.context_id', '=', p('contextId'))
        .orderBy('m.id'),
    ),

    bansOfContext: template<{ contextId: number }>((p) =>
      db
        .selectFrom('context_ban')
        .select(['context_id', 'keywords', 'group_id', 'reason', 'time'])
        .where('context_id', '=', p('contextId'))
        .orderBy('id'),
    ),

    /** Creates the context when missing; returns its id only when this call created it. */
    insertContextIfMissing: template<{
      keywords: string;
      hash: string;
      time: number;
      triggerCount: number;
      clearTime: number;
    }>((p) =>
      db
        .insertInto('context')
        .values({
          keywords: p('keywords'),
          keywords_hash: p('hash'),
          time: p('time'),
          trigger_count: p('triggerCount'),
          clear_time: p('clearTime'),
        })
        .onConflict((oc) => oc.column('keywords_hash').doNothing())
        .returning('id'),
    ),

    /** Creates or overwrites the context row (save). */
    upsertContext: template<{
      keywords: string;
      hash: string;
      time: number;
      triggerCount: number;
      clearTime: number;
    }>((p) =>
      db
        .insertInto('context')
        .values({
          keywords: p('keywords'),
          keywords_hash: p('hash'),
          time: p('time'),
          trigger_count: p('triggerCount'),
          clear_time: p('clearTime'),
        })
        .onConflict((oc) =>
          oc.column('keywords_hash').doUpdateSet({
            keywords: p('keywords'),
            time: p('time'),
            trigger_count: p('triggerCount'),
            clear_time: p('clearTime'),
          }),
        )
        .returning('id'),
    ),

    /** One more learn event on an existing context. */
    touchContext: template<{ hash: string; time: number }>((p) =>
      db
        .updateTable('context')
        .set((eb) => ({ trigger_count: eb('trigger_count', '+', 1), time: p('time') }))
        .where('keywords_hash', '=', p('hash'))
        .returning('id'),
    ),

    insertAnswerIfMissing: template<{
      contextId: number;
      keywords: string;
      hash: string;
      groupId: number;
      time: number;
    }>((p) =>
      db
        .insertInto('context_answer')
        .values({
          context_id: p('contextId'),
          keywords: p('keywords'),
          keywords_hash: p('hash'),
          group_id: p('groupId'),
          count: 1,
          time: p('time'),
        })
        .onConflict((oc) => oc.columns(['context_id', 'group_id', 'keywords_hash']).doNothing())
        .returning('id'),
    ),

    touchAnswer: template<{ contextId: number; hash: string; groupId: number; time: number }>((p) =>
      db
        .updateTable('context_answer')
        .set((eb) => ({ count: eb('count', '+', 1), time: p('time') }))
        .where('context_id', '=', p('contextId'))
        .where('group_id', '=', p('groupId'))
        .where('keywords_hash', '=', p('hash'))
        .returning('id'),
    ),

    /** replace_answers: set a kept answer to the given values, or create it. */
    putAnswer: template<{
      contextId: number;
      keywords: string;
      hash: string;
      groupId: number;
      count: number;
      time: number;
    }>((p) =>
      db
        .insertInto('context_answer')
        .values({
          context_id: p('contextId'),
          keywords: p('keywords'),
          keywords_hash: p('hash'),
          group_id: p('groupId'),
          count: p('count'),
          time: p('time'),
        })
        .onConflict((oc) =>
          oc
            .columns(['context_id', 'group_id', 'keywords_hash'])
            .doUpdateSet({ keywords: p('keywords'), count: p('count'), time: p('time') }),
        )
        .returning('id'),
    ),

    insertMessage: template<{ answerId: number; message: string }>((p) =>
      db.insertInto('context_answer_message').values({ answer_id: p('answerId'), message: p('message') }),
    ),

    deleteMessagesOfAnswer: template<{ answerId: number }>((p) =>
      db.deleteFrom('context_answer_message').where('answer_id', '=', p('answerId')),
    ),

    deleteAnswersOfContext: template<{ contextId: number }>((p) =>
      db.deleteFrom('context_answer').where('context_id', '=', p('contextId')),
    ),

    deleteBansOfContext: template<{ contextId: number }>((p) =>
      db.deleteFrom('context_ban').where('context_id', '=', p('contextId')),
    ),

    answerIdsOfContext: template<{ contextId: number }>((p) =>
      db.selectFrom('context_answer').select('id').where('context_id', '=', p('contextId')).orderBy('id'),
    ),

    setClearTime: template<{ contextId: number; clearTime: number }>((p) =>
      db
        .updateTable('context')
        .set({ clear_time: p('clearTime') })
        .where('id', '=', p('contextId')),
    ),

    insertBan: template<{ contextId: number; keywords: string; groupId: number; reason: string; time: number }>((p) =>
      db.insertInto('context_ban').values({
        context_id: p('contextId'),
        keywords: p('keywords'),
        group_id: p('groupId'),
        reason: p('reason'),
        time: p('time'),
      }),
    ),

    maxContextId: template<Record<string, never>>(() =>
      db.selectFrom('context').select((eb) => eb.fn.max('id').as('max_id')),
    ),

    deleteExpiredInRange: template<{ fromId: number; toId: number; expiration: number; threshold: number }>((p) =>
      db
        .deleteFrom('context')
        .where('id', '>', p('fromId'))
        .where('id', '<=', p('toId'))
        .where('time', '<', p('expiration'))
        .where('trigger_count', '<', p('threshold')),
    ),

    cleanupCandidatesInRange: template<{
      fromId: number;
      toId: number;
      triggerThreshold: number;
      expiration: number;
      limit: number;
    }>((p) =>
      db
        .selectFrom('context')
        .select(['id', 'keywords', 'time', 'trigger_count', 'clear_time'])
        .where('id', '>', p('fromId'))
        .where('id', '<=', p('toId'))
        .where((eb) => eb.or([eb('trigger_count', '>', p('triggerThreshold')), eb('clear_time', '<', p('expiration'))]))
        .orderBy('id')
        .limit(p('limit')),
    ),

    banReplyTarget: template<{ groupId: number; message: string }>((p) =>
      db
        .selectFrom('context_answer as a')
        .innerJoin('context_answer_message as m', 'm.answer_id', 'a.id')
        .innerJoin('context as c', 'c.id', 'a.context_id')
        .select(['c.keywords as context_keywords', 'a.keywords as answer_keywords'])
        .where('a.group_id', '=', p('groupId'))
        .where('m.message', '=', p('message'))
        .orderBy('a.time', 'desc')
        .orderBy('m.id', 'desc')
        .limit(1),
    ),

    answersOfGroupSince: template<{ groupId: number; cutoff: number }>((p) =>
      db
        .selectFrom('context_answer as a')
        .leftJoin('context_answer_message as m', 'm.answer_id', 'a.id')
        .select(['a.id', 'a.keywords', 'a.group_id', 'a.count', 'a.time', 'm.message'])
        .where('a.group_id', '=', p('groupId'))
        .where('a.time', '>=', p('cutoff'))
        .orderBy('a.id')
        .orderBy('m.id'),
    ),

    // Statements whose text depends on the number of rows or ids.

    insertAnswers(rows: NewAnswerRow[]) {
      return bound(db.insertInto('context_answer').values(rows).returning(['id', 'group_id', 'keywords_hash']));
    },

    insertMessages(rows: { answer_id: number; message: string }[]) {
      return bound(db.insertInto('context_answer_message').values(rows));
    },

    insertBans(rows: Omit<BanRow, never>[]) {
      return bound(db.insertInto('context_ban').values(rows));
    },

    deleteAnswersById(ids: number[]) {
      return bound(db.deleteFrom('context_answer').where('id', 'in', ids));
    },

    answersOfContexts(contextIds: number[]) {
      return bound(
        db
          .selectFrom('context_answer')
          .select(['id', 'context_id', 'keywords', 'group_id', 'count', 'time'])
          .where('context_id', 'in', contextIds)
          .orderBy('id'),
      );
    },

    messagesOfAnswers(answerIds: number[]) {
      return bound(
        db
          .selectFrom('context_answer_message')
          .select(['answer_id', 'message'])
          .where('answer_id', 'in', answerIds)
          .orderBy('id'),
      );
    },

    bansOfContexts(contextIds: number[]) {
      return bound(
        db
          .selectFrom('context_ban')
          .select(['context_id', 'keywords', 'group_id', 'reason', 'time'])
          .where('context_id', 'in', contextIds)
          .orderBy('id'),
      );
    },
  };
}

export type CorpusQueries = ReturnType<typeof corpusQueries>;
