import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { EngineKind } from '../sql/engine-kind.ts';
import type { QueryContext } from './query-context.ts';
import { template, type Param } from '../sql/query.ts';
import type { HotAnswerRow, HotContextRow } from './corpus-rows.ts';
import type { Database } from './schema.ts';

/** The hot-keyword ranking: contexts by answer count sum (global or per group) and their top answers. */
export function hotQueries(ctx: QueryContext) {
  const { db, kind, byteOrder, keywordsPrefix, idList } = ctx;
  const hotAnswers = hotAnswersTemplate(db, kind, false);
  const hotAnswersOfGroup = hotAnswersTemplate(db, kind, true);
  return {
    hotContexts: template((p: Param<{ limit: number }>) => ({
      compile: () =>
        sql<HotContextRow>`SELECT id, keywords, answer_count_sum AS score FROM context
          WHERE answer_count_sum > 0
          ORDER BY answer_count_sum DESC, ${keywordsPrefix}, keywords${byteOrder}
          LIMIT ${p('limit')}`.compile(db),
    })),

    /**
     * Hot keywords of one group over a context id window: score = SUM(count) of the group's
     * answers, aggregated from ix_context_answer_group_ctx_count alone. Only contexts scoring at
     * least `minScore` (the lowest score still in the running) and at least the `limit`-th best
     * score of the window have their keywords looked up (by primary key), so the cost is the
     * index range plus about `limit` lookups: no join over every context of the group (a join let
     * PostgreSQL pick a parallel hash join over the whole context table, 350+ ms at 1 M). The
     * answers' foreign key guarantees that each context exists in the statement's snapshot.
     */
    hotContextsOfGroupInRange: template(
      (
        p: Param<{
          groupId: number;
          fromId: number;
          toId: number;
          minScore: number;
          limit: number;
          lastPlace: number;
        }>,
      ) => ({
        compile: () =>
          sql<HotContextRow>`WITH s AS MATERIALIZED (
            SELECT context_id, SUM(count) AS score FROM context_answer
            WHERE group_id = ${p('groupId')} AND context_id > ${p('fromId')} AND context_id <= ${p('toId')}
            GROUP BY context_id
            HAVING SUM(count) >= ${p('minScore')}
          )
          SELECT s.context_id AS id,
            (SELECT c.keywords FROM context c WHERE c.id = s.context_id)${byteOrder} AS keywords,
            s.score
          FROM s
          WHERE s.score >= COALESCE(
            (SELECT s2.score FROM s s2 ORDER BY s2.score DESC LIMIT 1 OFFSET ${p('lastPlace')}), 0)
          ORDER BY s.score DESC, keywords
          LIMIT ${p('limit')}`.compile(db),
      }),
    ),

    /** The top `perContext` answers of each context (count desc, keywords), each with its first message. */
    hotAnswers(contextIds: readonly number[], perContext: number) {
      return hotAnswers({ ids: idList(contextIds), perContext, groupId: null });
    },

    /** The same, counting only the answers of one group. */
    hotAnswersOfGroup(contextIds: readonly number[], groupId: number, perContext: number) {
      return hotAnswersOfGroup({ ids: idList(contextIds), perContext, groupId });
    },
  };
}

/**
 * The top answers of each listed context (one id-list parameter: a PostgreSQL array, or JSON for
 * SQLite's json_each), count desc then keywords, each with its first (lowest id) message. Per
 * context the answers come from ix_context_answer_ctx_count_time (or, for one group,
 * ix_context_answer_group_ctx_count) in count order; the first message from
 * ix_context_answer_message_answer_id_id. PostgreSQL runs the per-context pick as a LATERAL
 * subquery, SQLite as a correlated `id IN (… LIMIT n)` list.
 */
function hotAnswersTemplate(db: Kysely<Database>, kind: EngineKind, ofGroup: boolean) {
  return template((p: Param<{ ids: unknown; perContext: number; groupId: number | null }>) => ({
    compile: () => {
      const group = ofGroup ? sql`AND b.group_id = ${p('groupId')}` : sql``;
      const firstMessage = (answerId: RawBuilder<unknown>) =>
        sql`COALESCE((SELECT m.message FROM context_answer_message m WHERE m.answer_id = ${answerId}
          ORDER BY m.id LIMIT 1), '')`;
      if (kind === 'postgres') {
        return sql<HotAnswerRow>`SELECT c.id AS context_id, t.keywords, t.count, ${firstMessage(sql.ref('t.id'))} AS message
          FROM unnest(CAST(${p('ids')} AS bigint[])) AS c(id)
          CROSS JOIN LATERAL (
            SELECT b.id, b.keywords, b.count FROM context_answer b
            WHERE b.context_id = c.id ${group}
            ORDER BY b.count DESC, b.keywords COLLATE "C"
            LIMIT ${p('perContext')}
          ) t
          ORDER BY c.id, t.count DESC, t.keywords COLLATE "C"`.compile(db);
      }
      return sql<HotAnswerRow>`SELECT c.value AS context_id, a.keywords, a.count, ${firstMessage(sql.ref('a.id'))} AS message
        FROM json_each(${p('ids')}) AS c
        JOIN context_answer a ON a.id IN (
          SELECT b.id FROM context_answer b
          WHERE b.context_id = c.value ${group}
          ORDER BY b.count DESC, b.keywords
          LIMIT ${p('perContext')}
        )
        ORDER BY c.value, a.count DESC, a.keywords`.compile(db);
    },
  }));
}
