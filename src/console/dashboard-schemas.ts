/** Schemas of the dashboard routes: system, bots, overview, message stats, repeater metrics and decisions. */
import Type from 'typebox';
import { ACTIVITY_DEFAULTS } from '../repeater/index.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Counts = Type.Record(Type.String(), Type.Integer());

export const SystemReport = Type.Object(
  {
    version: Type.String(),
    deployment: Type.String({ description: 'source, release or container.' }),
    node_version: Type.String(),
    platform: Type.String(),
    engine: Type.String({ description: 'sqlite or postgres.' }),
    uptime_sec: Type.Integer(),
    server_time: Type.Integer({ description: 'Unix ms.' }),
    process: Type.Object({
      pid: Type.Integer(),
      cpu_percent: Nullable(Type.Number({ description: 'Of one core, since the previous call (null on the first).' })),
      rss_bytes: Type.Integer(),
      heap_used_bytes: Type.Integer(),
      heap_total_bytes: Type.Integer(),
    }),
    host: Type.Object({
      cpu_count: Type.Integer(),
      cpu_percent: Nullable(Type.Number({ description: 'Of all cores, since the previous call.' })),
      load_avg: Type.Array(Type.Number()),
      memory_total_bytes: Type.Integer(),
      memory_free_bytes: Type.Integer(),
    }),
    disk: Nullable(Type.Object({ path: Type.String(), total_bytes: Type.Integer(), free_bytes: Type.Integer() })),
  },
  { title: 'SystemReport' },
);

export const BotReport = Type.Object(
  {
    self_id: Type.Integer(),
    nickname: Nullable(Type.String({ description: 'From get_login_info (cached); null when it did not answer.' })),
    roles: Type.Array(Type.String()),
    connected_at: Type.Integer({ description: 'Unix ms.' }),
    remote_address: Nullable(Type.String()),
    frames_in: Type.Integer({ description: 'Frames received over the open connections.' }),
    frames_out: Type.Integer({ description: 'Actions sent over the open connections.' }),
    last_event_at: Nullable(Type.Integer()),
    online: Nullable(Type.Boolean()),
  },
  { title: 'BotReport' },
);

export const Slice = Type.Object({
  status: Type.String({ enum: ['ok', 'degraded'] }),
  error: Nullable(Type.String()),
});

export const Overview = Type.Object(
  {
    health: Type.Intersect([Slice, Type.Object({ data: Nullable(Type.Object({}, { additionalProperties: true })) })]),
    system: Type.Intersect([Slice, Type.Object({ data: Nullable(SystemReport) })]),
    bots: Type.Intersect([Slice, Type.Object({ data: Nullable(Type.Array(BotReport)) })]),
    activity: Type.Intersect([
      Slice,
      Type.Object({
        data: Nullable(
          Type.Object({
            received_per_min: Type.Number({ description: 'Average over the last 5 minutes.' }),
            replies_per_min: Type.Number(),
            decisions_last_hour: Counts,
          }),
        ),
      }),
    ]),
    community: Type.Intersect([
      Slice,
      Type.Object({ data: Nullable(Type.Object({}, { additionalProperties: true })) }),
    ]),
  },
  { title: 'HomeOverview' },
);

export const MessageStatsQuery = Type.Object({
  self_id: Type.Optional(Type.Integer({ minimum: 1, description: 'One bot; all bots when left out.' })),
  minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: ACTIVITY_DEFAULTS.minutes, default: 180 })),
});

export const MinuteRow = Type.Object({
  minute: Type.Integer({ description: "Unix ms of the minute's start." }),
  received: Type.Integer(),
  replies: Type.Integer(),
  sent: Type.Integer({ description: 'Texts sent (a reply may be several).' }),
});

export const MessageStats = Type.Object(
  {
    self_id: Nullable(Type.Integer()),
    minutes: Type.Array(MinuteRow, { description: 'Oldest first, one per minute.' }),
    totals: Type.Object({ received: Type.Integer(), replies: Type.Integer(), sent: Type.Integer() }),
    bots: Type.Array(
      Type.Object({
        self_id: Type.Integer(),
        actions_called: Nullable(Type.Integer({ description: 'Over the open connections; null when not connected.' })),
      }),
    ),
  },
  { title: 'MessageStats' },
);

export const MetricsHistoryQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: ACTIVITY_DEFAULTS.hours, default: ACTIVITY_DEFAULTS.hours }),
  ),
});

export const MetricsHour = Type.Object({
  hour: Type.Integer({ description: "Unix ms of the hour's start." }),
  decisions: Type.Integer(),
  by_reason: Counts,
  replies: Type.Integer(),
  learn_writes: Type.Integer({ description: 'Messages queued for learning.' }),
  cache: Counts,
  cache_hit_rate: Nullable(Type.Number({ description: 'hit + negative-hit over all bundle lookups.' })),
  p50_ms: Nullable(Type.Number({ description: 'Decision latency, upper bound of its histogram bucket.' })),
  p99_ms: Nullable(Type.Number()),
});

export const MetricsHistory = Type.Array(MetricsHour, {
  description: 'Newest first; hours without decisions left out.',
});

const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD (the server’s local day).' });

export const DailyStatsQuery = Type.Object({
  start: Type.Optional(Day),
  end: Type.Optional(Day),
  self_id: Type.Optional(Type.Integer({ minimum: 1 })),
  group_id: Type.Optional(Type.Integer({ minimum: 1 })),
});

export const DailyStatsRow = Type.Object({
  day: Type.String(),
  self_id: Type.Integer(),
  group_id: Type.Integer(),
  received: Type.Integer(),
  replies_group: Type.Integer({ description: 'Answers learned in this group.' }),
  replies_cross_group: Type.Integer(),
  replies_community: Type.Integer(),
  replies_repeat: Type.Integer(),
  replies_proactive: Type.Integer({ description: 'Lines the bot said first when the group had gone quiet.' }),
  learn_queued: Type.Integer({ description: 'Messages queued for learning (each pairs with the one before).' }),
  bans: Type.Integer(),
});

export const DailyStats = Type.Object(
  {
    start: Type.String(),
    end: Type.String(),
    rows: Type.Array(DailyStatsRow, { description: 'Oldest day first, then by account and group.' }),
    truncated: Type.Boolean({ description: 'More rows matched than one answer holds.' }),
  },
  { title: 'ConsoleDailyStats' },
);
