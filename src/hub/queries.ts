import { PostgresAdapter, sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { EngineKind } from '../sql/engine.ts';
import { bound, template, type Compilable, type Param } from '../sql/query.ts';
import type { HubDatabase } from './schema.ts';

export type * from './hub-rows.ts';
import type {
  ContextIdRow,
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
import { voteQueries } from './vote-queries.ts';

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
    ...voteQueries(db, { kind, raw, inList }),
    /** A list parameter for `inList` statements. */
    listParam: (values: readonly (string | number)[]): unknown =>
      kind === 'postgres' ? [...values] : JSON.stringify(values),

    /** What enrollment needs to know of an existing deployment id. */
    enrollment: template((p: Param<{ deploymentId: string }>) =>
      db.selectFrom('hub_deployment').select(['token_hash']).where('deployment_id', '=', p('deploymentId')),
    ),

    /**
     * PostgreSQL: first enrollments from one address queue behind each other until commit, so
     * parallel ones see each other and join one cohort (SQLite has one writer anyway).
     */
    lockAddress: template((p: Param<{ addressHash: string }>) =>
      raw(sql<{ locked: string }>`SELECT CAST(pg_advisory_xact_lock(hashtext(${p('addressHash')})) AS text) AS locked`),
    ),

    /** The cohort of the earliest deployment enrolled from this address since `cutoff`. */
    cohortOf: template((p: Param<{ addressHash: string; cutoff: number }>) =>
      db
        .selectFrom('hub_deployment')
        .select('cohort')
        .where('address_hash', '=', p('addressHash'))
        .where('enrolled_at', '>=', p('cutoff'))
        .orderBy('enrolled_at')
        .orderBy('deployment_id')
        .limit(1),
    ),

    /**
     * A first enrollment. A concurrent first enrollment of the same id wins the row and this one
     * returns nothing (the caller answers 409, as for any unproven re-enrollment).
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
          cohort: string;
          addressHash: string;
        }>,
      ) =>
        raw(sql<PolicyRow>`INSERT INTO hub_deployment (deployment_id, token_hash, read_enabled, contribute_enabled,
          read_per_minute, contributions_per_day, policy_override, enrolled_at, expires_at, cohort, address_hash)
        VALUES (${p('deploymentId')}, ${p('tokenHash')}, ${p('read')}, ${p('contribute')},
          ${p('readPerMinute')}, ${p('contributionsPerDay')}, 0, ${p('now')}, ${p('expiresAt')}, ${p('cohort')},
          ${p('addressHash')})
        ON CONFLICT (deployment_id) DO NOTHING
        RETURNING read_enabled, contribute_enabled, read_per_minute, contributions_per_day`),
    ),

    /**
     * A re-enrollment proven by the current token (`oldHash`): a new token hash and the current
     * default policy, unless an operator pinned its policy (`policy_override = 1`). Its cohort,
     * address and blocked flag stay.
     */
    rotate: template(
      (
        p: Param<{
          deploymentId: string;
          oldHash: string;
          tokenHash: string;
          read: number;
          contribute: number;
          readPerMinute: number;
          contributionsPerDay: number;
          now: number;
          expiresAt: number | null;
        }>,
      ) =>
        raw(sql<PolicyRow>`UPDATE hub_deployment SET
          token_hash = ${p('tokenHash')},
          enrolled_at = ${p('now')},
          expires_at = ${p('expiresAt')},
          read_enabled = CASE WHEN policy_override = 1 THEN read_enabled ELSE ${p('read')} END,
          contribute_enabled = CASE WHEN policy_override = 1 THEN contribute_enabled ELSE ${p('contribute')} END,
          read_per_minute = CASE WHEN policy_override = 1 THEN read_per_minute ELSE ${p('readPerMinute')} END,
          contributions_per_day = CASE WHEN policy_override = 1
            THEN contributions_per_day ELSE ${p('contributionsPerDay')} END
        WHERE deployment_id = ${p('deploymentId')} AND token_hash = ${p('oldHash')}
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
          'blocked',
        ])
        .where('token_hash', '=', p('tokenHash')),
    ),

    /**
     * One context read, counted after the lookup in a single statement: the lookup, on a hit the
     * hit, and the read window. Over the limit (0 = none) the row is left as it is, so a refused
     * read writes nothing, and no row comes back.
     */
    countRead: template(
      (p: Param<{ deploymentId: string; now: number; window: number; limit: number; hit: number }>) => {
        const allowed = sql`(${p('limit')} = 0 OR hub_usage.read_window <> ${p('window')}
        OR hub_usage.read_count < ${p('limit')})`;
        return raw(sql<Counted>`INSERT INTO hub_usage (deployment_id, read_lookups, read_hits, updated_at, read_window, read_count)
        VALUES (${p('deploymentId')}, 1, ${p('hit')}, ${p('now')}, ${p('window')}, 1)
        ON CONFLICT (deployment_id) DO UPDATE SET
          read_lookups = hub_usage.read_lookups + 1,
          read_hits = hub_usage.read_hits + ${p('hit')},
          updated_at = ${p('now')},
          read_count = CASE WHEN hub_usage.read_window = ${p('window')} THEN hub_usage.read_count + 1 ELSE 1 END,
          read_window = ${p('window')}
        WHERE ${allowed}
        RETURNING read_count AS count`);
      },
    ),

    /** As countRead, for contributions: no row back = over the day's limit, nothing written. */
    countContribution: template((p: Param<{ deploymentId: string; now: number; window: number; limit: number }>) => {
      const allowed = sql`(${p('limit')} = 0 OR hub_usage.contribute_window <> ${p('window')}
        OR hub_usage.contribute_count < ${p('limit')})`;
      return raw(sql<Counted>`INSERT INTO hub_usage (deployment_id, contribute_ok, updated_at, contribute_window, contribute_count)
        VALUES (${p('deploymentId')}, 1, ${p('now')}, ${p('window')}, 1)
        ON CONFLICT (deployment_id) DO UPDATE SET
          contribute_ok = hub_usage.contribute_ok + 1,
          updated_at = ${p('now')},
          contribute_count = CASE WHEN hub_usage.contribute_window = ${p('window')}
            THEN hub_usage.contribute_count + 1 ELSE 1 END,
          contribute_window = ${p('window')}
        WHERE ${allowed}
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

    contextByHash: template((p: Param<{ hash: string }>) =>
      db
        .selectFrom('hub_context')
        .select(['id', 'keywords', 'time', 'trigger_count'])
        .where('keywords_hash', '=', p('hash')),
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
      db
        .insertInto('hub_answer')
        .values({
          context_id: p('context_id'),
          keywords: p('keywords'),
          keywords_hash: p('keywords_hash'),
          count: p('count'),
          time: p('time'),
          messages: p('messages'),
        })
        .returning('id'),
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
          )
          .returning(['id', 'keywords_hash']),
      ),

    deleteHotSnapshot: template((p: Param<{ deploymentId: string }>) =>
      db.deleteFrom('hub_hot_snapshot').where('deployment_id', '=', p('deploymentId')),
    ),

    insertHotSnapshot: (rows: readonly HotSnapshotRow[]) => bound(db.insertInto('hub_hot_snapshot').values([...rows])),

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

    deleteHotSnapshotsBefore: template((p: Param<{ cutoff: number }>) =>
      db.deleteFrom('hub_hot_snapshot').where('as_of', '<', p('cutoff')),
    ),
  };
}

export type HubQueries = ReturnType<typeof hubQueries>;
