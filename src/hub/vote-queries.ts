/**
 * The hub's statements about who contributed what (docs/hub.md#agreement): each deployment's own
 * share of an answer, the answers enough cohorts agree on with their served counts, fleet hot
 * words by cohort, and the blocked flag. Part of `hubQueries` (queries.ts).
 */
import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { EngineKind } from '../sql/engine.ts';
import { bound, template, type Compilable, type Param } from '../sql/query.ts';
import type { AgreedAnswerRow, AgreedHotAnswerRow, FleetRow, VoteRow } from './hub-rows.ts';
import { COUNT_MAX } from './limits.ts';
import type { HubDatabase } from './schema.ts';

interface Dialect {
  kind: EngineKind;
  raw: <O>(builder: RawBuilder<O>) => Compilable<O>;
  inList: (column: string, list: unknown, type: 'text' | 'bigint') => RawBuilder<SqlBool>;
}

export function voteQueries(db: Kysely<HubDatabase>, { raw, inList }: Dialect) {
  /** A whole-number parameter typed as such (PostgreSQL cannot infer it inside CASE). */
  const int = (value: unknown) => sql`CAST(${value} AS bigint)`;
  /**
   * Per answer and cohort, the sum of the own counts of unblocked contributors (docs/hub.md#agreement).
   * A contributor without a deployment row (answers from before agreement) is a cohort of its own.
   */
  const cohortTotals = (where: RawBuilder<SqlBool>) =>
    sql`SELECT v.answer_id, COALESCE(NULLIF(d.cohort, ''), v.deployment_id) AS cohort, SUM(v.count) AS total
      FROM hub_answer_vote v LEFT JOIN hub_deployment d ON d.deployment_id = v.deployment_id
      WHERE ${where} AND v.count > 0 AND COALESCE(d.blocked, 0) = 0
      GROUP BY v.answer_id, COALESCE(NULLIF(d.cohort, ''), v.deployment_id)`;
  const served = (cap: unknown) =>
    sql`SUM(CASE WHEN ${int(cap)} > 0 AND total > ${int(cap)} THEN ${int(cap)} ELSE total END)`;

  return {
    /** Sets or clears the blocked flag; no row back = no such deployment. */
    setBlocked: template((p: Param<{ deploymentId: string; blocked: number }>) =>
      db
        .updateTable('hub_deployment')
        .set({ blocked: p('blocked') })
        .where('deployment_id', '=', p('deploymentId'))
        .returning('deployment_id'),
    ),

    /**
     * The answers of a context that enough cohorts agree on, with the count they are served with
     * (docs/hub.md#agreement): per cohort the sum of its unblocked deployments' own counts, capped
     * at `cap` (0 = no cap), summed over cohorts; kept when at least `min` cohorts contributed.
     * Most counted first, then newest.
     */
    agreedAnswers: template((p: Param<{ contextId: number; min: number; cap: number; max: number }>) =>
      raw(sql<AgreedAnswerRow>`SELECT a.keywords, s.served AS count, a.time, a.messages FROM (
          SELECT answer_id, ${served(p('cap'))} AS served
          FROM (${cohortTotals(sql<SqlBool>`v.context_id = ${p('contextId')}`)}) t
          GROUP BY answer_id
          HAVING COUNT(*) >= ${int(p('min'))}
        ) s JOIN hub_answer a ON a.id = s.answer_id
        ORDER BY s.served DESC, a.time DESC, a.id
        LIMIT ${int(p('max'))}`),
    ),

    /** As agreedAnswers, for the answers newer than `cutoff` of several contexts (pool and recent hot words). */
    agreedHotAnswers: template((p: Param<{ ids: unknown; cutoff: number; min: number; cap: number }>) =>
      raw(sql<AgreedHotAnswerRow>`SELECT a.context_id, a.keywords, s.served AS count, a.time, a.messages FROM (
          SELECT answer_id, ${served(p('cap'))} AS served
          FROM (${cohortTotals(inList('v.context_id', p('ids'), 'bigint'))}) t
          GROUP BY answer_id
          HAVING COUNT(*) >= ${int(p('min'))}
        ) s JOIN hub_answer a ON a.id = s.answer_id
        WHERE a.time >= ${p('cutoff')}`),
    ),

    /** upsert_answer's own share: 1 for a new contributor, else + 1 (at most COUNT_MAX). */
    bumpVote: template((p: Param<{ answerId: number; deploymentId: string; contextId: number; time: number }>) =>
      raw(sql`INSERT INTO hub_answer_vote (answer_id, deployment_id, context_id, count, time)
        VALUES (${p('answerId')}, ${p('deploymentId')}, ${p('contextId')}, 1, ${p('time')})
        ON CONFLICT (answer_id, deployment_id) DO UPDATE SET
          count = CASE WHEN hub_answer_vote.count >= ${sql.lit(COUNT_MAX)} THEN hub_answer_vote.count
            ELSE hub_answer_vote.count + 1 END,
          time = excluded.time`),
    ),

    /** One contributor's own counts of several answers of a context (insert replaces only these). */
    ownVotes: template((p: Param<{ deploymentId: string; ids: unknown }>) =>
      db
        .selectFrom('hub_answer_vote')
        .select(['answer_id', 'count'])
        .where('deployment_id', '=', p('deploymentId'))
        .where(() => inList('answer_id', p('ids'), 'bigint')),
    ),

    /** insert's own shares: set to the given counts. */
    writeVotes: (rows: readonly VoteRow[]) =>
      bound(
        db
          .insertInto('hub_answer_vote')
          .values([...rows])
          .onConflict((oc) =>
            oc.columns(['answer_id', 'deployment_id']).doUpdateSet((eb) => ({
              count: eb.ref('excluded.count'),
              time: eb.ref('excluded.time'),
            })),
          ),
      ),

    /**
     * Fleet hot words: per keywords, each cohort's highest score among its unblocked deployments'
     * uploads newer than `cutoff`, summed; kept when at least `min` cohorts uploaded it. Above 1,
     * only enrolled deployments count (a heartbeat names any deployment id it likes).
     */
    fleetHot: template((p: Param<{ cutoff: number; limit: number; min: number }>) =>
      raw(sql<FleetRow>`SELECT MIN(keywords) AS keywords, SUM(score) AS score FROM (
          SELECT s.keywords_hash, MIN(s.keywords) AS keywords, MAX(s.score) AS score
          FROM hub_hot_snapshot s LEFT JOIN hub_deployment d ON d.deployment_id = s.deployment_id
          WHERE s.as_of >= ${p('cutoff')} AND COALESCE(d.blocked, 0) = 0
            AND (${int(p('min'))} <= 1 OR d.deployment_id IS NOT NULL)
          GROUP BY s.keywords_hash, COALESCE(NULLIF(d.cohort, ''), s.deployment_id)
        ) t
        GROUP BY keywords_hash
        HAVING COUNT(*) >= ${int(p('min'))}
        ORDER BY score DESC, keywords_hash
        LIMIT ${int(p('limit'))}`),
    ),
  };
}
