import { sql } from 'kysely';
import type { AnswerWithMessageRow } from './corpus-rows.ts';
import type { QueryContext } from './query-context.ts';
import { bound, template, type Param } from '../sql/query.ts';

/** Lookups: a context by its key, the reply snapshot, a context's rows, ban targets, answers of a group. */
export function readQueries(ctx: QueryContext) {
  const { db } = ctx;
  return {
    contextIdByHash: template((p: Param<{ hash: string }>) =>
      db.selectFrom('context').select('id').where('keywords_hash', '=', p('hash')).limit(1),
    ),

    contextByHash: template((p: Param<{ hash: string }>) =>
      db
        .selectFrom('context')
        .select(['id', 'keywords', 'time', 'trigger_count', 'clear_time'])
        .where('keywords_hash', '=', p('hash')),
    ),

    /** Snapshot query 1: the context row with its bans (one row per ban, in ban order). */
    snapshotContext: template((p: Param<{ hash: string }>) =>
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
    snapshotAnswers: template((p: Param<{ contextId: number; answersCap: number; messagesOffset: number }>) => ({
      compile: () =>
        sql<AnswerWithMessageRow>`WITH top_answer AS (
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

    answersOfContext: template((p: Param<{ contextId: number }>) =>
      db
        .selectFrom('context_answer')
        .select(['id', 'keywords', 'group_id', 'count', 'time'])
        .where('context_id', '=', p('contextId'))
        .orderBy('id'),
    ),

    messagesOfContext: template((p: Param<{ contextId: number }>) =>
      db
        .selectFrom('context_answer_message as m')
        .innerJoin('context_answer as a', 'a.id', 'm.answer_id')
        .select(['m.answer_id', 'm.message'])
        .where('a.context_id', '=', p('contextId'))
        .orderBy('m.id'),
    ),

    bansOfContext: template((p: Param<{ contextId: number }>) =>
      db
        .selectFrom('context_ban')
        .select(['context_id', 'keywords', 'group_id', 'reason', 'time'])
        .where('context_id', '=', p('contextId'))
        .orderBy('id'),
    ),

    /**
     * Creates the context row when missing; returns its id only when this call created it.
     * learn_answer passes an answer count sum of 1 (the answer learned with it), insert the sum of
     * the answers it brings.
     */
    banReplyTarget: template((p: Param<{ groupId: number; message: string }>) =>
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

    answersOfGroupSince: template((p: Param<{ groupId: number; cutoff: number }>) =>
      db
        .selectFrom('context_answer as a')
        .leftJoin('context_answer_message as m', 'm.answer_id', 'a.id')
        .select(['a.id', 'a.keywords', 'a.group_id', 'a.count', 'a.time', 'm.message'])
        .where('a.group_id', '=', p('groupId'))
        .where('a.time', '>=', p('cutoff'))
        .orderBy('a.id')
        .orderBy('m.id'),
    ),

    /**
     * Hot keywords, global: contexts by answer count sum, then keywords. A walk of
     * ix_context_answer_count_sum (its keywords prefix repeated verbatim so that the index serves
     * the order); only ties on the whole prefix are sorted.
     */
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
