import { sql, type Selectable } from 'kysely';
import type { ContextAnswerTable, ContextTable } from './schema.ts';
import type { QueryContext } from './query-context.ts';
import { compiled } from '../sql/query.ts';
import type { BoundQuery } from '../sql/program.ts';

/** One context of a learn batch: the pairs of the batch on it, summed (corpus-learn-batch.ts). */
export interface LearnBatchContext {
  keywords: string;
  hash: string;
  /** Learn events on the context in this batch. */
  events: number;
  /** The last event's answer time (each learn event sets the context's time). */
  time: number;
}

/** One answer of a learn batch, summed like its context. */
export interface LearnBatchAnswer {
  contextId: number;
  keywords: string;
  hash: string;
  groupId: number;
  events: number;
  time: number;
}

export type LearnBatchContextRow = Pick<Selectable<ContextTable>, 'id' | 'keywords_hash'> & {
  /** Whether this statement created the row (PostgreSQL: `xmax = 0` on the returned row). */
  inserted: boolean;
};

export type LearnBatchAnswerRow = Pick<Selectable<ContextAnswerTable>, 'id' | 'keywords_hash' | 'context_id' | 'group_id'> & {
  inserted: boolean;
};

/**
 * The set-based learn batch of PostgreSQL (docs/rules.md#learn-write): three statements per batch
 * whatever its size, each taking its rows as arrays (one parameter per column, so the statement
 * text is fixed and prepared once). Rows are written in the order given (`WITH ORDINALITY ...
 * ORDER BY`): the caller sorts contexts by hash, so concurrent batches lock them in one order.
 * `ON CONFLICT DO UPDATE` makes "insert if missing, else count" one atomic step per row, and
 * `xmax = 0` tells a row this statement inserted from one it updated.
 */
export function learnBatchQueries(ctx: QueryContext) {
  const { db } = ctx;
  const prepared = <O>(query: BoundQuery<O>): BoundQuery<O> => ({ ...query, prepared: true });
  return {
    upsertLearnContexts(contexts: readonly LearnBatchContext[]): BoundQuery<LearnBatchContextRow> {
      return prepared(
        compiled(
          sql<LearnBatchContextRow>`INSERT INTO context (keywords, keywords_hash, time, trigger_count, clear_time, answer_count_sum)
            SELECT u.keywords, u.hash, u.time, u.events, 0, u.events
            FROM unnest(${contexts.map((c) => c.keywords)}::text[], ${contexts.map((c) => c.hash)}::text[],
                        ${contexts.map((c) => c.time)}::bigint[], ${contexts.map((c) => c.events)}::int[])
                 WITH ORDINALITY AS u(keywords, hash, time, events, ord)
            ORDER BY u.ord
            ON CONFLICT (keywords_hash) DO UPDATE SET
              trigger_count = context.trigger_count + excluded.trigger_count,
              answer_count_sum = context.answer_count_sum + excluded.answer_count_sum,
              time = excluded.time
            RETURNING id, keywords_hash, (xmax = 0) AS inserted`,
          db,
        ),
      );
    },

    upsertLearnAnswers(answers: readonly LearnBatchAnswer[]): BoundQuery<LearnBatchAnswerRow> {
      return prepared(
        compiled(
          sql<LearnBatchAnswerRow>`INSERT INTO context_answer (context_id, keywords, keywords_hash, group_id, count, time)
            SELECT u.context_id, u.keywords, u.hash, u.group_id, u.events, u.time
            FROM unnest(${answers.map((a) => a.contextId)}::bigint[], ${answers.map((a) => a.keywords)}::text[],
                        ${answers.map((a) => a.hash)}::text[], ${answers.map((a) => a.groupId)}::bigint[],
                        ${answers.map((a) => a.events)}::int[], ${answers.map((a) => a.time)}::bigint[])
                 WITH ORDINALITY AS u(context_id, keywords, hash, group_id, events, time, ord)
            ORDER BY u.ord
            ON CONFLICT (context_id, group_id, keywords_hash) DO UPDATE SET
              count = context_answer.count + excluded.count,
              time = excluded.time
            RETURNING id, context_id, group_id, keywords_hash, (xmax = 0) AS inserted`,
          db,
        ),
      );
    },

    /** Messages in the order given, so their ids follow the learn order as one-by-one learning's do. */
    insertLearnMessages(messages: readonly { answerId: number; message: string }[]): BoundQuery {
      return prepared(
        compiled(
          sql`INSERT INTO context_answer_message (answer_id, message)
            SELECT u.answer_id, u.message
            FROM unnest(${messages.map((m) => m.answerId)}::bigint[], ${messages.map((m) => m.message)}::text[])
                 WITH ORDINALITY AS u(answer_id, message, ord)
            ORDER BY u.ord`,
          db,
        ),
      );
    },
  };
}
