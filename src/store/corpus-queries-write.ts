import type { BanRow, NewAnswerRow } from './corpus-rows.ts';
import { answerCountSumOf, type QueryContext } from './query-context.ts';
import { bound, template, type Param } from '../sql/query.ts';

/** The parameters of a context row written whole. */
interface ContextParams {
  keywords: string;
  hash: string;
  time: number;
  triggerCount: number;
  clearTime: number;
  answerCountSum: number;
}

/** The context row's columns from its parameters (insert and upsert write the same row). */
function contextValues(p: Param<ContextParams>) {
  return {
    keywords: p('keywords'),
    keywords_hash: p('hash'),
    time: p('time'),
    trigger_count: p('triggerCount'),
    clear_time: p('clearTime'),
    answer_count_sum: p('answerCountSum'),
  };
}

/** Writes of one context: learn, insert, upsert, replace, ban; multi-row inserts for save and import. */
export function writeQueries(ctx: QueryContext) {
  const { db } = ctx;
  return {
    insertContextIfMissing: template((p: Param<ContextParams>) =>
      db
        .insertInto('context')
        .values(contextValues(p))
        .onConflict((oc) => oc.column('keywords_hash').doNothing())
        .returning('id'),
    ),

    /** Creates or overwrites the context row (save); the answers given replace all others. */
    upsertContext: template((p: Param<ContextParams>) =>
      db
        .insertInto('context')
        .values(contextValues(p))
        .onConflict((oc) =>
          oc.column('keywords_hash').doUpdateSet({
            keywords: p('keywords'),
            time: p('time'),
            trigger_count: p('triggerCount'),
            clear_time: p('clearTime'),
            answer_count_sum: p('answerCountSum'),
          }),
        )
        .returning('id'),
    ),

    /** One more learn event on an existing context: one of its answers counts one more. */
    touchContext: template((p: Param<{ hash: string; time: number }>) =>
      db
        .updateTable('context')
        .set((eb) => ({
          trigger_count: eb('trigger_count', '+', 1),
          answer_count_sum: eb('answer_count_sum', '+', 1),
          time: p('time'),
        }))
        .where('keywords_hash', '=', p('hash'))
        .returning('id'),
    ),

    insertAnswerIfMissing: template(
      (
        p: Param<{
          contextId: number;
          keywords: string;
          hash: string;
          groupId: number;
          time: number;
        }>,
      ) =>
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

    touchAnswer: template((p: Param<{ contextId: number; hash: string; groupId: number; time: number }>) =>
      db
        .updateTable('context_answer')
        .set((eb) => ({ count: eb('count', '+', 1), time: p('time') }))
        .where('context_id', '=', p('contextId'))
        .where('group_id', '=', p('groupId'))
        .where('keywords_hash', '=', p('hash'))
        .returning('id'),
    ),

    /** replace_answers: set a kept answer to the given values, or create it. */
    putAnswer: template(
      (
        p: Param<{
          contextId: number;
          keywords: string;
          hash: string;
          groupId: number;
          count: number;
          time: number;
        }>,
      ) =>
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

    insertMessage: template((p: Param<{ answerId: number; message: string }>) =>
      db.insertInto('context_answer_message').values({ answer_id: p('answerId'), message: p('message') }),
    ),

    deleteMessagesOfAnswer: template((p: Param<{ answerId: number }>) =>
      db.deleteFrom('context_answer_message').where('answer_id', '=', p('answerId')),
    ),

    deleteAnswersOfContext: template((p: Param<{ contextId: number }>) =>
      db.deleteFrom('context_answer').where('context_id', '=', p('contextId')),
    ),

    deleteBansOfContext: template((p: Param<{ contextId: number }>) =>
      db.deleteFrom('context_ban').where('context_id', '=', p('contextId')),
    ),

    answerIdsOfContext: template((p: Param<{ contextId: number }>) =>
      db.selectFrom('context_answer').select('id').where('context_id', '=', p('contextId')).orderBy('id'),
    ),

    /** replace_answers, first: locks the context row; the sum is the replacing answers' (known up front). */
    setClearTime: template((p: Param<{ contextId: number; clearTime: number; answerCountSum: number }>) =>
      db
        .updateTable('context')
        .set({ clear_time: p('clearTime'), answer_count_sum: p('answerCountSum') })
        .where('id', '=', p('contextId')),
    ),

    /** replace_answers in steps (SQLite, large contexts), last: the sum recounted from the answers. */
    setClearTimeRecount: template((p: Param<{ contextId: number; clearTime: number }>) =>
      db
        .updateTable('context')
        .set((eb) => ({ clear_time: p('clearTime'), answer_count_sum: answerCountSumOf(eb.ref('context.id')) }))
        .where('id', '=', p('contextId')),
    ),

    insertBan: template(
      (p: Param<{ contextId: number; keywords: string; groupId: number; reason: string; time: number }>) =>
        db.insertInto('context_ban').values({
          context_id: p('contextId'),
          keywords: p('keywords'),
          group_id: p('groupId'),
          reason: p('reason'),
          time: p('time'),
        }),
    ),

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
  };
}
