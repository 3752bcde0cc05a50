/** Schemas of the home page's routes: the first-run checklist, the health strip's counts, the daily table. */
import Type from 'typebox';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const HubReachabilityReport = Type.Object(
  {
    state: Type.String({ enum: ['not_configured', 'reachable', 'unreachable'] }),
    since: Nullable(Type.Integer({ description: 'Unix ms since when this process has seen the hub in this state.' })),
    checked_at: Nullable(Type.Integer({ description: 'Unix ms of the last probe (GET {hub}/v1/stats).' })),
    problem: Nullable(
      Type.Object({
        code: Type.String({ enum: ['timeout', 'connection', 'http_status'] }),
        detail: Type.String({ description: 'The system error code or the HTTP status; may be empty.' }),
      }),
    ),
    api_base: Type.String(),
  },
  { title: 'HubReachabilityReport' },
);

export const FirstRun = Type.Object(
  {
    onebot_path: Type.String({ description: 'The OneBot v11 reverse WebSocket path (outside the console base).' }),
    port: Type.Integer({ description: 'The port Chorus listens on (configured, or the one in use when 0).' }),
    token_set: Type.Boolean({ description: 'Whether CHORUS_ONEBOT_ACCESS_TOKEN is set.' }),
    token: Nullable(Type.String({ description: 'The OneBot access token: write level only, else null.' })),
    accounts_connected: Type.Integer(),
    first_message: Type.Boolean({ description: 'Whether any group message was ever counted (daily statistics).' }),
    done: Type.Boolean({ description: 'An account connected and a message arrived: the checklist is not needed.' }),
  },
  { title: 'FirstRun' },
);

export const HomeStatus = Type.Object(
  {
    hub: HubReachabilityReport,
    silenced_groups: Nullable(Type.Integer({ description: 'Groups told to be quiet (闭嘴) right now.' })),
    ignored_groups: Nullable(Type.Integer({ description: 'Groups ignored entirely.' })),
    pending_requests: Nullable(Type.Integer({ description: 'Friend and group requests waiting for a decision.' })),
  },
  { title: 'HomeStatus' },
);

const Counts = Type.Object({ received: Type.Integer(), replies: Type.Integer() });

export const HomeDaily = Type.Object(
  {
    today: Type.String({ description: 'YYYY-MM-DD, the server local day.' }),
    week_start: Type.String({ description: 'The Monday of this week, YYYY-MM-DD.' }),
    totals: Type.Object({ today: Counts, week: Counts }),
    groups: Type.Array(Type.Object({ group_id: Type.Integer(), today: Counts, week: Counts })),
  },
  { title: 'HomeDaily' },
);
