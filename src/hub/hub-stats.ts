/**
 * The hub's public statistics (docs/rules.md#hub-protocol): how many deployments report, how many are
 * online and with how many bots, and the size of the shared corpus. Counts only: no deployment id,
 * no token, no text leaves through these routes.
 */
import { sql } from 'kysely';
import { readFirst, type SqlEngine } from '../sql/engine.ts';
import { bound } from '../sql/query.ts';
import { toNumberOr, type DbNumber } from '../sql/numbers.ts';
import type { HubDatabase } from './schema.ts';

export interface FleetStats {
  deployments_total: number;
  deployments_online: number;
  bots_online_sum: number;
  deployments_online_sharded: number;
  shard_workers_online_sum: number;
}

export interface CorpusStats {
  contexts_total: number;
  answers_total: number;
  answer_hits_sum: number;
  enrollments_total: number;
  enrollments_online: number;
  enrollments_recent_24h: number;
  read_enabled_total: number;
  contribute_enabled_total: number;
}

/** A count as a number: 0 when there is no row or it is NULL. */
const count = (value: DbNumber | null | undefined): number => toNumberOr(value, 0);

/** Heartbeats younger than `onlineCutoff` (unix s) count as online. */
export async function fleetStats(engine: SqlEngine<HubDatabase>, onlineCutoff: number): Promise<FleetStats> {
  const online = sql<boolean>`last_seen >= ${onlineCutoff}`;
  const query = bound(
    engine.db
      .selectFrom('hub_heartbeat')
      .select([
        sql<DbNumber>`COUNT(*)`.as('deployments_total'),
        sql<DbNumber>`COALESCE(SUM(CASE WHEN ${online} THEN 1 ELSE 0 END), 0)`.as('deployments_online'),
        sql<DbNumber>`COALESCE(SUM(CASE WHEN ${online} THEN online_bots ELSE 0 END), 0)`.as('bots_online_sum'),
        sql<DbNumber>`COALESCE(SUM(CASE WHEN ${online} AND sharded = 1 THEN 1 ELSE 0 END), 0)`.as(
          'deployments_online_sharded',
        ),
        sql<DbNumber>`COALESCE(SUM(CASE WHEN ${online} THEN COALESCE(shard_workers, 0) ELSE 0 END), 0)`.as(
          'shard_workers_online_sum',
        ),
      ]),
  );
  const row = await readFirst(engine, query);
  return {
    deployments_total: count(row?.deployments_total),
    deployments_online: count(row?.deployments_online),
    bots_online_sum: count(row?.bots_online_sum),
    deployments_online_sharded: count(row?.deployments_online_sharded),
    shard_workers_online_sum: count(row?.shard_workers_online_sum),
  };
}

/**
 * The shared corpus and its enrollments; `recentCutoff` (unix s) bounds "enrolled recently". An
 * enrollment counts once its deployment has contributed or sent a heartbeat, and while it is not
 * blocked: enrolling alone (one request per id) does not grow the community's size.
 */
export async function corpusStats(
  engine: SqlEngine<HubDatabase>,
  onlineCutoff: number,
  recentCutoff: number,
): Promise<CorpusStats> {
  const { db } = engine;
  const active = sql<boolean>`d.blocked = 0 AND (
    EXISTS (SELECT 1 FROM hub_usage u WHERE u.deployment_id = d.deployment_id AND u.contribute_ok > 0)
    OR EXISTS (SELECT 1 FROM hub_heartbeat b WHERE b.deployment_id = d.deployment_id))`;
  const query = bound(
    db.selectNoFrom([
      db
        .selectFrom('hub_context')
        .select(sql<DbNumber>`COUNT(*)`.as('n'))
        .as('contexts_total'),
      db
        .selectFrom('hub_answer')
        .select(sql<DbNumber>`COUNT(*)`.as('n'))
        .as('answers_total'),
      db
        .selectFrom('hub_usage')
        .select(sql<DbNumber>`COALESCE(SUM(read_hits), 0)`.as('n'))
        .as('answer_hits_sum'),
      db
        .selectFrom('hub_deployment as d')
        .where(active)
        .select(sql<DbNumber>`COUNT(*)`.as('n'))
        .as('enrollments_total'),
      db
        .selectFrom('hub_deployment as d')
        .innerJoin('hub_heartbeat as h', 'h.deployment_id', 'd.deployment_id')
        .where('h.last_seen', '>=', onlineCutoff)
        .where('d.blocked', '=', 0)
        .select(sql<DbNumber>`COUNT(*)`.as('n'))
        .as('enrollments_online'),
      db
        .selectFrom('hub_deployment as d')
        .where(active)
        .where('d.enrolled_at', '>=', recentCutoff)
        .select(sql<DbNumber>`COUNT(*)`.as('n'))
        .as('enrollments_recent_24h'),
      db
        .selectFrom('hub_deployment as d')
        .where(active)
        .where('d.read_enabled', '=', 1)
        .select(sql<DbNumber>`COUNT(*)`.as('n'))
        .as('read_enabled_total'),
      db
        .selectFrom('hub_deployment as d')
        .where(active)
        .where('d.contribute_enabled', '=', 1)
        .select(sql<DbNumber>`COUNT(*)`.as('n'))
        .as('contribute_enabled_total'),
    ]),
  );
  const row = await readFirst(engine, query);
  return {
    contexts_total: count(row?.contexts_total),
    answers_total: count(row?.answers_total),
    answer_hits_sum: count(row?.answer_hits_sum),
    enrollments_total: count(row?.enrollments_total),
    enrollments_online: count(row?.enrollments_online),
    enrollments_recent_24h: count(row?.enrollments_recent_24h),
    read_enabled_total: count(row?.read_enabled_total),
    contribute_enabled_total: count(row?.contribute_enabled_total),
  };
}
