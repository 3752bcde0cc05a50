/**
 * Response and request schemas shared by the console routes. They drive validation, serialisation
 * and the OpenAPI document (docs/rules.md#style-routes); the envelope `{ok: true, data}` is added around every
 * enveloped route's 2xx schema by the envelope plugin, so routes declare only their `data`.
 */
import Type, { type TSchema } from 'typebox';
import { CONFIG_SOURCES, SAVE_STEPS } from '../config/index.ts';
import { COMMUNITY_HINT_CODES } from '../corpus/activation.ts';

const StringEnum = (values: readonly string[], options: Record<string, unknown> = {}) =>
  Type.String({ enum: [...values], ...options });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const NumberMap = Type.Object({}, { additionalProperties: Type.Number() });

export const ErrorBody = Type.Object(
  {
    ok: Type.Literal(false),
    detail: Type.String({ description: 'What went wrong in English, naming the field when a field did (for logs).' }),
    code: Type.Optional(
      Type.String({
        description:
          'A stable snake_case error code, present on every console error, that the web console words in its ' +
          'own language (errors.<code>). `invalid_field` is a refused field: params.field is its path ' +
          '(body.admins.0, query.limit) and params.reason one of type, required, too_long, too_short, pattern, ' +
          'format, enum, range, extra, blank, control_chars, order, not_a_day, unknown_kind, invalid.',
      }),
    ),
    params: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: Type.Union([Type.String(), Type.Number()]),
          description: "The code's parameters: the variable parts of the message (field, limit, id, account...).",
        },
      ),
    ),
  },
  { $id: 'ConsoleError', title: 'ConsoleError' },
);

export function envelope(data: TSchema): TSchema {
  return Type.Object({ ok: Type.Literal(true), data });
}

export const HealthReport = Type.Object({
  status: Type.Literal('ok'),
  version: Type.String(),
  storage: Type.Object({ engine: StringEnum(['sqlite', 'postgres']), pressure: Type.Number() }),
  corpus: Type.Object({
    composite_active: Type.Boolean(),
    learning_queue: Type.Integer(),
    mirror_queue: Type.Integer(),
  }),
  workers: Type.Object({ learn: Type.Boolean(), mirror: Type.Boolean() }),
  onebot: Type.Object({
    connected_bots: Type.Integer(),
    dropped: Type.Object(
      {
        rate_limited: Type.Integer({ description: "Frames over a connection's rate, shed before decoding." }),
        oversized: Type.Integer({
          description: 'Group messages over the size limits (docs/guide/troubleshooting.md#limits).',
        }),
        self_id_mismatch: Type.Integer({ description: 'Events naming another account than their connection.' }),
        malformed: Type.Integer({ description: 'Frames that were not JSON or not an event or answer.' }),
        ignored: Type.Integer({ description: 'Well-formed events of kinds Chorus does not use.' }),
      },
      { description: 'Frames dropped by design since start, by reason.' },
    ),
  }),
  reply_usage: Type.Optional(
    Type.Object(
      {
        recorded: Type.Integer(),
        written: Type.Integer(),
        dropped: Type.Integer({ description: 'Past 10,000 distinct entries waiting to be written.' }),
        write_failed: Type.Integer(),
      },
      { description: 'Answers sent, as recorded for "where used" in the corpus console.' },
    ),
  ),
  change_feed: Type.Optional(
    Type.Object(
      {
        published: Type.Integer({ description: 'Corpus changes this process told the others about.' }),
        received: Type.Integer({ description: "Other processes' changes applied here." }),
        publish_failed: Type.Integer(),
        poll_failed: Type.Integer(),
      },
      { description: 'Changes shared with the other processes on the same database, since start.' },
    ),
  ),
  config: Type.Optional(
    Type.Object(
      {
        reloads: Type.Integer({ description: 'Edits of chorus.toml or .env read again since start.' }),
        reload_failed: Type.Integer({
          description: 'Edits that did not load (syntax, an unusable credential): the running configuration stayed.',
        }),
        last_change: Nullable(
          Type.Object({
            at_sec: Type.Integer(),
            changed_keys: Type.Array(Type.String(), {
              description: 'Keys whose running value changed (never values).',
            }),
            failed_steps: Type.Array(Type.String(), { description: 'Configuration reactions that failed.' }),
          }),
        ),
      },
      { description: 'Hand edits of the configuration files, applied while running (docs/rules.md#cfg-watch).' },
    ),
  ),
  fleet_claims: Type.Optional(
    Type.Object(
      {
        won: Type.Integer({ description: 'Group messages this process took.' }),
        lost: Type.Integer({ description: 'Group messages another process took first (claimed-elsewhere).' }),
        failed: Type.Integer({ description: 'Claims the database refused: the message was handled here.' }),
        slow: Type.Integer({ description: 'Claims not answered within 250 ms: the message was handled here.' }),
        mean_ms: Type.Number({ description: 'Mean claim round trip.' }),
        max_ms: Type.Number({ description: 'Longest claim round trip.' }),
        active: Type.Boolean({
          description:
            'Whether messages are claimed now: always when CHORUS_FLEET_CLAIMS is true; with auto, once another process has accounts.',
        }),
        fleet_accounts: Type.Integer({ description: "Accounts connected to the fleet's other processes." }),
      },
      { description: 'Message claims of a fleet on one database (CHORUS_FLEET_CLAIMS), since start.' },
    ),
  ),
  uptime_sec: Type.Integer(),
  console: Type.Optional(
    Type.Object(
      {
        event_streams: Type.Object(
          {
            open: Type.Integer({ description: 'Event streams (SSE) open now.' }),
            refused: Type.Integer({ description: 'Streams refused with 429 since start (too many open).' }),
          },
          { description: 'Event streams, bounded per client and in all (docs/guide/troubleshooting.md#limits).' },
        ),
        login: Type.Object(
          {
            failures_in_window: Type.Integer({ description: 'Failed credentials from every address in this window.' }),
            budget: Type.Integer({ description: 'Failures in one window before token checks are slowed.' }),
            slowed: Type.Boolean({ description: 'Whether token checks are slowed now (one a second).' }),
            failures_total: Type.Integer({ description: 'Failed credentials since start.' }),
            slowed_refusals: Type.Integer({ description: 'Token checks answered 429 login_slowed since start.' }),
          },
          { description: "The console's failure budget against guessing from many addresses." },
        ),
      },
      { description: "The console's own counters (added by the console server)." },
    ),
  ),
});

const SourceStatus = Type.Object({
  enabled: Type.Boolean(),
  configured: Type.Optional(Type.Boolean()),
  readable: Type.Boolean(),
  writable: Type.Boolean(),
});

export const CorpusStatus = Type.Object({
  composite_active: Type.Boolean(),
  remote_find_mode: StringEnum(['off', 'sync', 'prefetch']),
  merge_order: Type.Array(Type.String()),
  merge_strategy: Type.String(),
  on_remote_failure: Type.String(),
  sources: Type.Object({
    local: SourceStatus,
    fed: Type.Object({
      enabled: Type.Boolean(),
      configured: Type.Boolean(),
      readable: Type.Boolean(),
      writable: Type.Boolean(),
    }),
    community: Type.Object({
      enabled: Type.Boolean(),
      configured: Type.Boolean(),
      readable: Type.Boolean(),
      writable: Type.Boolean(),
      wanted: Type.Boolean(),
      enrolled: Type.Boolean(),
      manual: Type.Boolean(),
      auto_enroll: Type.Boolean(),
      api_base: Type.String(),
      api_bases: Type.Array(Type.String()),
      contribute: Type.Boolean({
        description:
          "Whether learned pairs are contributed: CHORUS_CORPUS_COMMUNITY_CONTRIBUTE is not false and the hub's policy allows it.",
      }),
      token_present: Type.Boolean(),
      hint: Nullable(
        Type.Object(
          {
            code: StringEnum([...COMMUNITY_HINT_CODES]),
            keys: Type.Array(Type.String(), { description: 'The configuration keys that would resolve it.' }),
          },
          {
            description:
              'Why the community cannot be used although it is wanted (the console words the code); null when nothing stands in the way.',
          },
        ),
      ),
      enrolled_at: Nullable(Type.Number()),
      expires_at: Nullable(Type.Number()),
      usage: Nullable(
        Type.Object({
          read_lookups: Type.Number(),
          read_hits: Type.Number(),
          contribute_ok: Type.Number(),
          updated_at: Nullable(Type.Number()),
          source: Type.String(),
        }),
      ),
    }),
  }),
  deployment: Type.Object({
    deployment_id: Nullable(Type.String()),
    community_stats_enabled: Type.Boolean(),
    heartbeat_endpoint: Type.String(),
  }),
  control_plane: Type.Object({ enabled: Type.Boolean() }),
  counters: Type.Object({}, { additionalProperties: NumberMap, description: 'Drop and skip counters per part.' }),
  as_of: Type.Integer({ description: 'Unix seconds.' }),
});

export const CommunityStats = Type.Object({
  deployments_total: Type.Integer({ description: 'Deployments that have reported to the hub.' }),
  deployments_online: Type.Integer({ description: 'Of them, those heard from within online_ttl_sec.' }),
  bots_online_sum: Type.Integer({ description: 'Bot accounts online in those deployments.' }),
  stats_url: Type.String({ description: "The hub's statistics URL this was read from." }),
  online_ttl_sec: Type.Optional(Type.Integer()),
  as_of: Type.Optional(Type.String()),
  deployments_online_sharded: Type.Optional(Type.Integer()),
  shard_workers_online_sum: Type.Optional(Type.Integer()),
  corpus: Type.Optional(
    Type.Record(Type.String(), Type.Number(), { description: 'The shared corpus in counts, when the hub has one.' }),
  ),
});

export const HotWords = Type.Object({
  mode: Type.String(),
  period: Type.String(),
  window_sec: Type.Number(),
  as_of: Type.String({ description: 'ISO 8601 UTC time of the ranking.' }),
  items: Type.Array(
    Type.Object({
      keywords: Type.String(),
      score: Type.Number(),
      answers: Type.Array(
        Type.Object({ answer_keywords: Type.String(), message: Type.String(), count: Type.Number() }),
      ),
    }),
  ),
});

export const PluginRow = Type.Object({
  name: Type.String(),
  title: Type.String(),
  description: Type.String(),
  configurable: Type.Boolean(),
  enabled: Type.Boolean({ description: 'Whether the plugin runs in this process.' }),
});

/** A setting's value as the console shows and accepts it. */
export const RowValue = Type.Union([
  Type.String(),
  Type.Number(),
  Type.Boolean(),
  Type.Array(Type.String()),
  Type.Null(),
]);

export const FieldRow = Type.Object({
  key: Type.String({ description: 'Name used in `values` when saving.' }),
  env_key: Type.String(),
  kind: StringEnum(['string', 'int', 'float', 'bool', 'tristate', 'enum', 'list']),
  default: RowValue,
  current: RowValue,
  source: StringEnum(CONFIG_SOURCES, { description: 'Where the current value comes from.' }),
  description: Type.String(),
  group: Type.String(),
  secret: Type.Boolean({ description: 'Secret values are never returned: default and current are "".' }),
  is_set: Type.Optional(Type.Boolean({ description: 'For secrets: whether a value is set.' })),
  choices: Type.Optional(Type.Array(Type.String())),
  min: Type.Optional(Type.Number()),
  max: Type.Optional(Type.Number()),
  read_only: Type.Boolean(),
  restart_required: Type.Boolean(),
});

const pageProperties = {
  id: Type.String(),
  title: Type.String(),
  plugin: Nullable(Type.String()),
  hot_reload: Type.Boolean(),
  fields: Type.Array(FieldRow),
};

export const ConfigPage = Type.Object(pageProperties);

export const StepReport = Type.Object({
  step: StringEnum(SAVE_STEPS),
  ok: Type.Boolean(),
  skipped: Type.Optional(Type.Boolean()),
  detail: Type.Optional(Type.String()),
});

export const SavedConfigPage = Type.Object({
  ...pageProperties,
  steps: Type.Array(StepReport, { description: 'What the save did, in order; a failed step has ok=false.' }),
});

export const ConfigPatch = Type.Object(
  {
    values: Type.Record(Type.String(), RowValue, {
      description: 'Field key → new value; null removes the console setting, "" keeps a secret.',
    }),
  },
  { additionalProperties: false },
);

export const BotConfig = Type.Object({
  account: Type.Integer(),
  admins: Type.Array(Type.Integer()),
  disabled_plugins: Type.Array(Type.String()),
  auto_accept_friend: Type.Boolean(),
  auto_accept_group: Type.Boolean(),
  security: Type.Boolean(),
  nicknames: Type.Array(Type.String()),
  updated_at: Type.Integer({ description: 'Unix seconds of the last save; 0 when never saved.' }),
});

export const AuthStatus = Type.Object({
  authenticated: Type.Boolean(),
  level: Nullable(StringEnum(['read', 'write'])),
  via: Nullable(StringEnum(['session', 'header', 'query'])),
  expires_at: Nullable(Type.Integer({ description: 'Unix seconds, for a session.' })),
});
