import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { PhraseMatch } from './corpus-rows.ts';
import type { EngineKind } from '../sql/engine-kind.ts';
import { answerCountSumOf, type QueryContext } from './query-context.ts';
import { bound, template, type Param } from '../sql/query.ts';

/** Bulk work over id windows: expiry, the cleanup scan, the contamination cleanup, locks and recounts. */
export function bulkQueries(ctx: QueryContext) {
  const { db, kind } = ctx;
  return {
    maxContextId: template(() => db.selectFrom('context').select((eb) => eb.fn.max('id').as('max_id'))),

    countContexts: template(() => db.selectFrom('context').select((eb) => eb.fn.countAll().as('n'))),

    deleteExpiredInRange: template(
      (p: Param<{ fromId: number; toId: number; expiration: number; threshold: number }>) =>
        db
          .deleteFrom('context')
          .where('id', '>', p('fromId'))
          .where('id', '<=', p('toId'))
          .where('time', '<', p('expiration'))
          .where('trigger_count', '<', p('threshold')),
    ),

    cleanupCandidatesInRange: template(
      (
        p: Param<{
          fromId: number;
          toId: number;
          triggerThreshold: number;
          expiration: number;
          limit: number;
        }>,
      ) =>
        db
          .selectFrom('context')
          .select(['id', 'keywords', 'time', 'trigger_count', 'clear_time'])
          .where('id', '>', p('fromId'))
          .where('id', '<=', p('toId'))
          .where((eb) =>
            eb.or([eb('trigger_count', '>', p('triggerThreshold')), eb('clear_time', '<', p('expiration'))]),
          )
          .orderBy('id')
          .limit(p('limit')),
    ),

    maxAnswerMessageId: template(() =>
      db.selectFrom('context_answer_message').select((eb) => eb.fn.max('id').as('max_id')),
    ),

    maxLogMessageId: template(() => db.selectFrom('message').select((eb) => eb.fn.max('id').as('max_id'))),

    // Statements whose text depends on the number of rows or ids.

    /** Answer messages of an id window containing a phrase and no exempt phrase, in id order. */
    pollutedAnswerMessagesInRange(fromId: number, toId: number, match: PhraseMatch, limit: number) {
      return bound(
        db
          .selectFrom('context_answer_message as m')
          .innerJoin('context_answer as a', 'a.id', 'm.answer_id')
          .select(['m.id', 'm.answer_id', 'a.context_id'])
          .where('m.id', '>', fromId)
          .where('m.id', '<=', toId)
          .where(matchesPhrases(kind, sql.ref('m.message'), match))
          .orderBy('m.id')
          .limit(limit),
      );
    },

    /** Group log rows of an id window whose raw message contains a phrase and no exempt phrase. */
    pollutedLogMessagesInRange(fromId: number, toId: number, match: PhraseMatch, limit: number) {
      return bound(
        db
          .selectFrom('message')
          .select('id')
          .where('id', '>', fromId)
          .where('id', '<=', toId)
          .where(matchesPhrases(kind, sql.ref('raw_message'), match))
          .orderBy('id')
          .limit(limit),
      );
    },

    /**
     * Lock context rows before touching their answers (the store's lock order: context row first),
     * in id order. SQLite's write transaction already excludes every other writer.
     */
    lockContexts(ids: readonly number[]) {
      return bound(
        db
          .selectFrom('context')
          .select('id')
          .where('id', 'in', ids)
          .orderBy('id')
          .$if(kind === 'postgres', (qb) => qb.forUpdate()),
      );
    },

    deleteAnswerMessagesById(ids: readonly number[]) {
      return bound(db.deleteFrom('context_answer_message').where('id', 'in', ids));
    },

    /** Of these answers, delete those left without any message. */
    deleteEmptyAnswersById(ids: readonly number[]) {
      return bound(
        db
          .deleteFrom('context_answer')
          .where('id', 'in', ids)
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('context_answer_message as m')
                  .select('m.id')
                  .whereRef('m.answer_id', '=', 'context_answer.id'),
              ),
            ),
          ),
      );
    },

    /** Recount the answer count sum of these contexts from their answers. */
    recountContexts(ids: readonly number[]) {
      return bound(
        db
          .updateTable('context')
          .set((eb) => ({ answer_count_sum: answerCountSumOf(eb.ref('context.id')) }))
          .where('id', 'in', ids),
      );
    },

    deleteLogMessagesById(ids: readonly number[]) {
      return bound(db.deleteFrom('message').where('id', 'in', ids));
    },
  };
}

/**
 * Contains one of `phrases` and none of `exempt`, as the guard's `includes` does: case-sensitive
 * substring search (instr / strpos), so no LIKE wildcard or ASCII case folding applies. Phrases
 * are bound parameters; the caller passes non-empty ones and at least one phrase.
 */
function matchesPhrases(kind: EngineKind, column: Expression<string>, match: PhraseMatch): RawBuilder<SqlBool> {
  const contains = (phrase: string) =>
    kind === 'postgres' ? sql`strpos(${column}, ${phrase}) > 0` : sql`instr(${column}, ${phrase}) > 0`;
  const any = sql.join(match.phrases.map(contains), sql` OR `);
  if (match.exempt.length === 0) return sql<SqlBool>`(${any})`;
  return sql<SqlBool>`(${any}) AND NOT (${sql.join(match.exempt.map(contains), sql` OR `)})`;
}
