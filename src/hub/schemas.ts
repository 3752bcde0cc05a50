/**
 * Request and response bodies of the hub (docs/rules.md#hub-protocol). Unknown fields
 * of contributions are accepted and ignored, never stored: a bot may send `group_id`, `ban`, or
 * whatever else; the hub keeps only keywords, counts, times and cleaned messages.
 */
import Type, { type Static } from 'typebox';
import { COUNT_MAX, CONTRIBUTED_MESSAGES_PER_ANSWER_MAX, HOT } from './limits.ts';
import { UUID_PATTERN } from './validation.ts';

/** The configurable string and list limits the contribution schemas are built with. */
export interface BodyLimits {
  maxKeywordsChars: number;
  maxMessageChars: number;
  maxAnswersPerInsert: number;
}

export const ErrorBody = Type.Object({ detail: Type.String() });

export const DeploymentId = Type.String({ pattern: UUID_PATTERN, description: 'A UUID, compared lower-cased.' });

export const EnrollBody = Type.Object(
  { deployment_id: DeploymentId, display_name: Type.Optional(Type.Unknown()) },
  { additionalProperties: true },
);
export type EnrollBody = Static<typeof EnrollBody>;

export const ContextQuery = Type.Object({ keywords: Type.String() });
export type ContextQuery = Static<typeof ContextQuery>;

export const ContextAnswer = Type.Object({
  keywords: Type.String(),
  group_id: Type.Integer(),
  count: Type.Integer(),
  time: Type.Integer(),
  messages: Type.Array(Type.String()),
});

export const ContextResponse = Type.Object({
  keywords: Type.String(),
  time: Type.Integer(),
  trigger_count: Type.Integer(),
  clear_time: Type.Integer(),
  answers: Type.Array(ContextAnswer),
  ban: Type.Array(Type.Unknown(), { maxItems: 0 }),
});
export type ContextResponse = Static<typeof ContextResponse>;

/** Only `op` is checked by the route; the rest is checked per op (contributionSchemas). */
export const ContributeEnvelope = Type.Object(
  { op: Type.Union([Type.Literal('insert'), Type.Literal('upsert_answer')]) },
  { additionalProperties: true },
);
export type ContributeEnvelope = Static<typeof ContributeEnvelope>;

export function contributionSchemas(limits: BodyLimits) {
  const keywords = () => Type.String({ minLength: 1, maxLength: limits.maxKeywordsChars });
  const message = () => Type.String({ maxLength: limits.maxMessageChars });
  const time = () => Type.Optional(Type.Number());
  const upsert = Type.Object(
    {
      op: Type.Literal('upsert_answer'),
      keywords: keywords(),
      answer_keywords: keywords(),
      answer_time: time(),
      message: Type.Optional(Type.Union([message(), Type.Null()])),
      append_on_existing: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: true },
  );
  const answer = Type.Object(
    {
      keywords: keywords(),
      count: Type.Optional(Type.Integer({ minimum: 1, maximum: COUNT_MAX })),
      time: time(),
      messages: Type.Optional(Type.Array(message(), { maxItems: CONTRIBUTED_MESSAGES_PER_ANSWER_MAX })),
    },
    { additionalProperties: true },
  );
  const insert = Type.Object(
    {
      op: Type.Literal('insert'),
      context: Type.Object(
        {
          keywords: keywords(),
          time: time(),
          answers: Type.Optional(Type.Array(answer, { maxItems: limits.maxAnswersPerInsert })),
        },
        { additionalProperties: true },
      ),
    },
    { additionalProperties: true },
  );
  return { upsert, insert };
}
export type UpsertAnswerBody = Static<ReturnType<typeof contributionSchemas>['upsert']>;
export type InsertBody = Static<ReturnType<typeof contributionSchemas>['insert']>;

export const HOT_MODES = ['fleet', 'pool', 'recent'] as const;
export const HOT_PERIODS = ['day', 'week', 'month'] as const;
export type HotMode = (typeof HOT_MODES)[number];
export type HotPeriod = (typeof HOT_PERIODS)[number];

const HotModeSchema = Type.Union([Type.Literal('fleet'), Type.Literal('pool'), Type.Literal('recent')]);
const HotPeriodSchema = Type.Union([Type.Literal('day'), Type.Literal('week'), Type.Literal('month')]);

export const HotQuery = Type.Object({
  mode: Type.Optional(HotModeSchema),
  period: Type.Optional(HotPeriodSchema),
  limit: Type.Optional(Type.Integer({ minimum: HOT.limitMin, maximum: HOT.limitMax })),
});
export type HotQuery = Static<typeof HotQuery>;

export function hotSnapshotSchema(limits: BodyLimits) {
  return Type.Object(
    {
      as_of: Type.Optional(Type.Number()),
      items: Type.Array(
        Type.Object(
          { keywords: Type.String({ maxLength: limits.maxKeywordsChars }), score: Type.Number() },
          { additionalProperties: true },
        ),
        { maxItems: HOT.uploadItemsMax },
      ),
    },
    { additionalProperties: true },
  );
}
export type HotSnapshotBody = Static<ReturnType<typeof hotSnapshotSchema>>;

/** Bounds of the origin's heartbeat model; the roster fields are accepted and ignored (never stored). */
export function heartbeatSchema(limits: BodyLimits) {
  return Type.Object(
    {
      deployment_id: DeploymentId,
      ts: Type.Optional(Type.Number()),
      version: Type.Optional(Type.String({ maxLength: 64 })),
      online_bots: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
      catalog_bots: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
      sharded: Type.Optional(Type.Boolean()),
      shard_workers: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 256 }), Type.Null()])),
      corpus_hot_snapshot: Type.Optional(hotSnapshotSchema(limits)),
    },
    { additionalProperties: true },
  );
}
export type HeartbeatBody = Static<ReturnType<typeof heartbeatSchema>>;

export const EnrollResponse = Type.Object({
  corpus_token: Type.String(),
  api_base: Type.String(),
  deployment_id: Type.String(),
  enrolled_at: Type.Integer(),
  expires_at: Type.Optional(Type.Integer()),
  policy: Type.Object({
    read: Type.Boolean(),
    contribute: Type.Boolean(),
    merge_strategy: Type.Literal('local_first'),
    read_per_minute: Type.Integer(),
    contributions_per_day: Type.Integer(),
    /** The origin's names for the same two limits. */
    read_rpm: Type.Integer(),
    contribute_per_day: Type.Integer(),
  }),
});
export type EnrollResponse = Static<typeof EnrollResponse>;

export const ContributeResponse = Type.Object({ ok: Type.Literal(true), accepted: Type.Boolean() });
export type ContributeResponse = Static<typeof ContributeResponse>;

export const UsageResponse = Type.Object({
  deployment_id: Type.String(),
  read_lookups: Type.Integer(),
  read_hits: Type.Integer(),
  contribute_ok: Type.Integer(),
  updated_at: Type.Union([Type.Integer(), Type.Null()]),
});
export type UsageResponse = Static<typeof UsageResponse>;

export const HotResponse = Type.Object({
  mode: HotModeSchema,
  period: HotPeriodSchema,
  window_sec: Type.Integer(),
  as_of: Type.String(),
  items: Type.Array(
    Type.Object({
      keywords: Type.String(),
      score: Type.Integer(),
      answers: Type.Array(
        Type.Object({ answer_keywords: Type.String(), message: Type.String(), count: Type.Integer() }),
      ),
    }),
  ),
});
export type HotResponse = Static<typeof HotResponse>;

export const HotUploadResponse = Type.Object({ ok: Type.Literal(true), items: Type.Integer() });
export type HotUploadResponse = Static<typeof HotUploadResponse>;

export const HeartbeatResponse = Type.Object({ ok: Type.Literal(true), server_ts: Type.Integer() });
export type HeartbeatResponse = Static<typeof HeartbeatResponse>;

const Count = Type.Integer({ minimum: 0 });

export const StatsResponse = Type.Object({
  deployments_total: Count,
  deployments_online: Count,
  bots_online_sum: Count,
  deployments_online_sharded: Count,
  shard_workers_online_sum: Count,
  online_ttl_sec: Type.Integer({ description: 'A heartbeat younger than this counts as online.' }),
  as_of: Type.String({ description: 'ISO 8601, UTC (ends in Z).' }),
  corpus: Type.Union([
    Type.Object({
      contexts_total: Count,
      answers_total: Count,
      enrollments_total: Count,
      contribute_enabled_total: Count,
    }),
    Type.Null(),
  ]),
});
export type StatsResponse = Static<typeof StatsResponse>;

export const CorpusStatsResponse = Type.Object({
  online_ttl_sec: Type.Integer(),
  as_of: Type.String(),
  corpus: Type.Object({
    contexts_total: Count,
    answers_total: Count,
    answer_hits_sum: Count,
    enrollments_total: Count,
    enrollments_online: Count,
    enrollments_recent_24h: Count,
    read_enabled_total: Count,
    contribute_enabled_total: Count,
  }),
});
export type CorpusStatsResponse = Static<typeof CorpusStatsResponse>;

export const HealthResponse = Type.Object({
  status: Type.Literal('ok'),
  withheld: Type.Record(Type.String(), Type.Integer(), {
    description:
      'Since start, items not stored or not served because they may not be shared (a CQ segment in keywords, a number, empty, too long).',
  }),
  refused: Type.Record(Type.String(), Type.Integer(), {
    description: 'Since start, requests this process refused with 429, per rate limit (docs/hub.md#rates).',
  }),
});
