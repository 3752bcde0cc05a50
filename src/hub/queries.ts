import { PostgresAdapter, sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { EngineKind } from '../sql/engine.ts';
import { bound, template, type Compilable, type Param } from '../sql/query.ts';
import type { HubDatabase } from './schema.ts';

export type * from './hub-rows.ts';
import type {
  ContextIdRow,
  FleetRow,
  HeartbeatRow,
  HotAnswerRow,
  HotContextRow,
  HotSnapshotRow,
  NewAnswerRow,
  HotUploadRow,
  LastSeenRow,
  PolicyRow,
} from './hub-rows.ts';
import type { Counted } from './hub-types.ts';

/** Rows written per multi-row statement (answers of an insert, hot snapshot items). */
export const ROWS_PER_STATEMENT = 200;

/**
 * Every statement of the hub, in the engine's dialect. Hot statements are templates (compiled
 * once, bound per call, prepared by the engine); multi-row writes are compiled per call. Upserts
 * use `ON CONFLICT` (both engines), and their SET expressions read the row's old values on both.
 */
export function hubQueries(db: Kysely<HubDatabase>) {
  const kind: EngineKind = db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
  const raw = <O>(builder: RawBuilder<O>): Compilable<O> => ({ compile: () => builder.compile(db) });
  /** A list as one parameter, so the statement text does not depend on its length. */
  const inList = (column: string, list: unknown, type: 'text' | 'bigint') =>
    kind === 'postgres'
      ? sql<SqlBool>`${sql.ref(column)} = ANY(${list}::${sql.raw(type)}[])`
      : sql<SqlBool>`${sql.ref(column)} IN (SELECT value FROM json_each(${list}))`;
  const greatest = kind === 'postgres' ? sql.raw('GREATEST') : sql.raw('MAX');

  return {
    kind,
    /** A list parameter for `inList` statements. */
    listParam: (values: readonly (string | number)[]): unknown =>
      kind === 'postgres' ? [...values] : JSON.stringify(values),

    /**
     * Enrollment: the deployment's one row gets a new token hash (rotating the old one out) and
     * the current default policy, unless an operator pinned its policy (`policy_override = 1`).
     */
    enroll: template(
      (
        p: Param<{
          deploymentId: string;
          tokenHash: string;
          read: number;
          contribute: number;
          readPerMinute: number;
          contributionsPerDay: number;
          now: number;
          expiresAt: number | null;
        }>,
      ) =>
        raw(sql<PolicyRow>`INSERT INTO hub_deployment (deployment_id, token_hash, read_enabled, contribute_enabled,
          read_per_minute, contributions_per_day, policy_override, enrolled_at, expires_at)
        VALUES (${p('deploymentId')}, ${p('tokenHash')}, ${p('read')}, ${p('contribute')},
          ${p('readPerMinute')}, ${p('contributionsPerDay')}, 0, ${p('now')}, ${p('expiresAt')})
        ON CONFLICT (deployment_id) DO UPDATE SET
          token_hash = excluded.token_hash,
          enrolled_at = excluded.enrolled_at,
          expires_at = excluded.expires_at,
          read_enabled = CASE WHEN hub_deployment.policy_override = 1
            THEN hub_deployment.read_enabled ELSE excluded.read_enabled END,
          contribute_enabled = CASE WHEN hub_deployment.policy_override = 1
            THEN hub_deployment.contribute_enabled ELSE excluded.contribute_enabled END,
          read_per_minute = CASE WHEN hub_deployment.policy_override = 1
            THEN hub_deployment.read_per_minute ELSE excluded.read_per_minute END,
          contributions_per_day = CASE WHEN hub_deployment.policy_override = 1
            THEN hub_deployment.contributions_per_day ELSE excluded.contributions_per_day END
        RETURNING read_enabled, contribute_enabled, read_per_minute, contributions_per_day`),
    ),

    deploymentByTokenHash: template((p: Param<{ tokenHash: string }>) =>
      db
        .selectFrom('hub_deployment')
        .select([
          'deployment_id',
          'read_enabled',
          'contribute_enabled',
          'read_per_minute',
          'contributions_per_day',
          'expires_at',
        ])
        .where('token_hash', '=', p('tokenHash')),
    ),

    /**
     * One context read, counted after the lookup in a single statement: the lookup and, on a hit,
     * the hit (both unless over the limit), and the read window. Returns the reads counted in the
     * current window, which the caller compares with the limit (0 = none).
     */
    countRead: template(
      (p: Param<{ deploymentId: string; now: number; window: number; limit: number; hit: number }>) => {
        const allowed = sql`(${p('limit')} = 0 OR hub_usage.read_window <> ${p('window')}
        OR hub_usage.read_count < ${p('limit')})`;
        return raw(sql<Counted>`INSERT INTO hub_usage (deployment_id, read_lookups, read_hits, updated_at, read_window, read_count)
        VALUES (${p('deploymentId')}, 1, ${p('hit')}, ${p('now')}, ${p('window')}, 1)
        ON CONFLICT (deployment_id) DO UPDATE SET
          read_lookups = hub_usage.read_lookups + CASE WHEN ${allowed} THEN 1 ELSE 0 END,
          read_hits = hub_usage.read_hits + CASE WHEN ${allowed} THEN ${p('hit')} ELSE 0 END,
          updated_at = CASE WHEN ${allowed} THEN ${p('now')} ELSE hub_usage.updated_at END,
          read_count = CASE WHEN hub_usage.read_window = ${p('window')} THEN hub_usage.read_count + 1 ELSE 1 END,
          read_window = ${p('window')}
        RETURNING read_count AS count`);
      },
    ),

    /** As countRead, for contributions: counts `contribute_ok` only within the limit. */
    countContribution: template((p: Param<{ deploymentId: string; now: number; window: number; limit: number }>) => {
      const allowed = sql`(${p('limit')} = 0 OR hub_usage.contribute_window <> ${p('window')}
        OR hub_usage.contribute_count < ${p('limit')})`;
      return raw(sql<Counted>`INSERT INTO hub_usage (deployment_id, contribute_ok, updated_at, contribute_window, contribute_count)
        VALUES (${p('deploymentId')}, 1, ${p('now')}, ${p('window')}, 1)
        ON CONFLICT (deployment_id) DO UPDATE SET
          contribute_ok = hub_usage.contribute_ok + CASE WHEN ${allowed} THEN 1 ELSE 0 END,
          updated_at = CASE WHEN ${allowed} THEN ${p('now')} ELSE hub_usage.updated_at END,
          contribute_count = CASE WHEN hub_usage.contribute_window = ${p('window')}
            THEN hub_usage.contribute_count + 1 ELSE 1 END,
          contribute_window = ${p('window')}
        RETURNING contribute_count AS count`);
    }),

    usage: template((p: Param<{ deploymentId: string }>) =>
      db
        .selectFrom('hub_usage')
        .select(['read_lookups', 'read_hits', 'contribute_ok', 'updated_at'])
        .where('deployment_id', '=', p('deploymentId')),
    ),

    /** Records a hot upload unless the previous one is newer than `cutoff`: no row back = too soon. */
    claimHotUpload: template((p: Param<{ deploymentId: string; now: number; cutoff: number }>) =>
      raw(sql<HotUploadRow>`INSERT INTO hub_usage (deployment_id, hot_uploaded_at) VALUES (${p('deploymentId')}, ${p('now')})
        ON CONFLICT (deployment_id) DO UPDATE SET hot_uploaded_at = excluded.hot_uploaded_at
        WHERE hub_usage.hot_uploaded_at IS NULL OR hub_usage.hot_uploaded_at <= ${p('cutoff')}
        RETURNING hot_uploaded_at`),
    ),

    hotUploadedAt: template((p: Param<{ deploymentId: string }>) =>
      db.selectFrom('hub_usage').select('hot_uploaded_at').where('deployment_id', '=', p('deploymentId')),
    ),

    /** The context and its answers, most counted first, then newest (one row without answers). */
    contextWithAnswers: template((p: Param<{ hash: string; max: number }>) =>
      db
        .selectFrom('hub_context as c')
        .leftJoin('hub_answer as a', 'a.context_id', 'c.id')
        .select([
          'c.keywords',
          'c.time',
          'c.trigger_count',
          'a.keywords as answer_keywords',
          'a.count',
          'a.time as answer_time',
          'a.messages',
        ])
        .where('c.keywords_hash', '=', p('hash'))
        .orderBy('a.count', 'desc')
        .orderBy('a.time', 'desc')
        .orderBy('a.id')
        .limit(p('max')),
    ),

    /** upsert_answer's context: created at trigger 1, else trigger + 1; time set; count sum + 1. */
    touchContextForAnswer: template((p: Param<{ keywords: string; hash: string; time: number }>) =>
      raw(sql<ContextIdRow>`INSERT INTO hub_context (keywords, keywords_hash, time, trigger_count, answer_count_sum)
        VALUES (${p('keywords')}, ${p('hash')}, ${p('time')}, 1, 1)
        ON CONFLICT (keywords_hash) DO UPDATE SET
          trigger_count = hub_context.trigger_count + 1,
          time = excluded.time,
          answer_count_sum = hub_context.answer_count_sum + 1
        RETURNING id`),
    ),

    /** insert's context: time overwritten, trigger count raised to at least the given one. */
    touchContextForInsert: template(
      (p: Param<{ keywords: string; hash: string; time: number; triggerCount: number }>) =>
        raw(sql<ContextIdRow>`INSERT INTO hub_context (keywords, keywords_hash, time, trigger_count, answer_count_sum)
        VALUES (${p('keywords')}, ${p('hash')}, ${p('time')}, ${p('triggerCount')}, 0)
        ON CONFLICT (keywords_hash) DO UPDATE SET
          time = excluded.time,
          trigger_count = ${greatest}(hub_context.trigger_count, excluded.trigger_count)
        RETURNING id`),
    ),

    addCountSum: template((p: Param<{ contextId: number; delta: number }>) =>
      db
        .updateTable('hub_context')
        .set((eb) => ({ answer_count_sum: eb('answer_count_sum', '+', p('delta')) }))
        .where('id', '=', p('contextId')),
    ),

    answerByKey: template((p: Param<{ contextId: number; hash: string }>) =>
      db
        .selectFrom('hub_answer')
        .select(['id', 'keywords_hash', 'count', 'messages'])
        .where('context_id', '=', p('contextId'))
        .where('keywords_hash', '=', p('hash')),
    ),

    answersByKeys: template((p: Param<{ contextId: number; hashes: unknown }>) =>
      db
        .selectFrom('hub_answer')
        .select(['id', 'keywords_hash', 'count', 'messages'])
        .where('context_id', '=', p('contextId'))
        .where(() => inList('keywords_hash', p('hashes'), 'text')),
    ),

    insertAnswer: template((p: Param<NewAnswerRow>) =>
      db.insertInto('hub_answer').values({
        context_id: p('context_id'),
        keywords: p('keywords'),
        keywords_hash: p('keywords_hash'),
        count: p('count'),
        time: p('time'),
        messages: p('messages'),
      }),
    ),

    bumpAnswer: template((p: Param<{ id: number; time: number; messages: string }>) =>
      db
        .updateTable('hub_answer')
        .set((eb) => ({ count: eb('count', '+', 1), time: p('time'), messages: p('messages') }))
        .where('id', '=', p('id')),
    ),

    /** insert's answers: new rows stored, existing ones get the given count, time and messages. */
    writeAnswers: (rows: readonly NewAnswerRow[]) =>
      bound(
        db
          .insertInto('hub_answer')
          .values([...rows])
          .onConflict((oc) =>
            oc.columns(['context_id', 'keywords_hash']).doUpdateSet((eb) => ({
              count: eb.ref('excluded.count'),
              time: eb.ref('excluded.time'),
              messages: eb.ref('excluded.messages'),
            })),
          ),
      ),

    deleteHotSnapshot: template((p: Param<{ deploymentId: string }>) =>
      db.deleteFrom('hub_hot_snapshot').where('deployment_id', '=', p('deploymentId')),
    ),

    insertHotSnapshot: (rows: readonly HotSnapshotRow[]) => bound(db.insertInto('hub_hot_snapshot').values([...rows])),

    /** Fleet hot words: uploaded scores summed per keywords over uploads newer than `cutoff`. */
    fleetHot: template((p: Param<{ cutoff: number; limit: number }>) =>
      raw(sql<FleetRow>`SELECT MIN(keywords) AS keywords, SUM(score) AS score FROM hub_hot_snapshot
        WHERE as_of >= ${p('cutoff')}
        GROUP BY keywords_hash
        ORDER BY score DESC, keywords_hash
        LIMIT ${p('limit')}`),
    ),

    /** Pool hot words: contexts by the sum of their answer counts (an index walk). */
    poolHot: template((p: Param<{ limit: number }>) =>
      raw(sql<HotContextRow>`SELECT id, keywords, answer_count_sum AS score FROM hub_context
        WHERE answer_count_sum > 0
        ORDER BY answer_count_sum DESC, id
        LIMIT ${p('limit')}`),
    ),

    /** Recent hot words: the sum of counts of answers newer than `cutoff`, per context. */
    recentHot: template((p: Param<{ cutoff: number; limit: number }>) =>
      raw(sql<HotContextRow>`SELECT c.id, c.keywords, s.score FROM (
          SELECT context_id, SUM(count) AS score FROM hub_answer
          WHERE time >= ${p('cutoff')}
          GROUP BY context_id
          ORDER BY score DESC, context_id
          LIMIT ${p('limit')}
        ) s JOIN hub_context c ON c.id = s.context_id
        ORDER BY s.score DESC, c.id`),
    ),

    /** The top `per` answers (count, then time) of each listed context newer than `cutoff`. */
    hotAnswers: template((p: Param<{ ids: unknown; cutoff: number; per: number }>) =>
      raw(sql<HotAnswerRow>`SELECT context_id, keywords, count, messages FROM (
          SELECT context_id, keywords, count, messages,
            ROW_NUMBER() OVER (PARTITION BY context_id ORDER BY count DESC, time DESC, id) AS rn
          FROM hub_answer
          WHERE ${inList('context_id', p('ids'), 'bigint')} AND time >= ${p('cutoff')}
        ) t
        WHERE rn <= ${p('per')}
        ORDER BY context_id, rn`),
    ),

    /** A heartbeat, unless the last one is newer than `cutoff` (`minInterval` 0: always). No row back = too soon. */
    heartbeat: template((p: Param<HeartbeatRow & { minInterval: number; cutoff: number }>) =>
      raw(sql<LastSeenRow>`INSERT INTO hub_heartbeat (deployment_id, first_seen, last_seen, version, online_bots,
          catalog_bots, sharded, shard_workers)
        VALUES (${p('deployment_id')}, ${p('first_seen')}, ${p('last_seen')}, ${p('version')}, ${p('online_bots')},
          ${p('catalog_bots')}, ${p('sharded')}, ${p('shard_workers')})
        ON CONFLICT (deployment_id) DO UPDATE SET
          last_seen = excluded.last_seen,
          version = excluded.version,
          online_bots = excluded.online_bots,
          catalog_bots = excluded.catalog_bots,
          sharded = excluded.sharded,
          shard_workers = excluded.shard_workers
        WHERE ${p('minInterval')} = 0 OR hub_heartbeat.last_seen <= ${p('cutoff')}
        RETURNING last_seen`),
    ),

    lastHeartbeat: template((p: Param<{ deploymentId: string }>) =>
      db.selectFrom('hub_heartbeat').select('last_seen').where('deployment_id', '=', p('deploymentId')),
    ),

    /** Counts one request in the key's current window; returns the count so far. */
    countAddress: template((p: Param<{ key: string; window: number }>) =>
      raw(sql<Counted>`INSERT INTO hub_address_rate (rate_key, window_start, count) VALUES (${p('key')}, ${p('window')}, 1)
        ON CONFLICT (rate_key) DO UPDATE SET
          count = CASE WHEN hub_address_rate.window_start = ${p('window')} THEN hub_address_rate.count + 1 ELSE 1 END,
          window_start = ${p('window')}
        RETURNING count`),
    ),

    deleteAddressWindowsBefore: template((p: Param<{ cutoff: number }>) =>
      db.deleteFrom('hub_address_rate').where('window_start', '<', p('cutoff')),
    ),

    deleteHotSnapshotsBefore: template((p: Param<{ cutoff: number }>) =>
      db.deleteFrom('hub_hot_snapshot').where('as_of', '<', p('cutoff')),
    ),
  };
}

export type HubQueries = ReturnType<typeof hubQueries>;
