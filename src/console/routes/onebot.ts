/** The bot accounts connected over OneBot to this process (the overview's account list). */
import Type from 'typebox';
import type { ConsoleApp, RouteContext } from '../context.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const ConnectedBot = Type.Object({
  self_id: Type.Integer(),
  roles: Type.Array(Type.String()),
  directions: Type.Array(Type.Union([Type.Literal('reverse'), Type.Literal('forward')]), {
    description:
      'Per connection, in the order of roles: reverse (the implementation connected) or forward (Chorus dialled).',
  }),
  connected_at: Type.Integer({ description: 'Unix ms when the oldest open connection was accepted.' }),
  last_event_at: Nullable(Type.Integer()),
  online: Nullable(
    Type.Boolean({
      description:
        '`status.online` of the last heartbeat when reported; otherwise true once a WebSocket ping was answered. A connection judged dead is closed and leaves this list.',
    }),
  ),
  judged_by: Type.Union([Type.Literal('heartbeat'), Type.Literal('ping'), Type.Literal('none')], {
    description:
      'What judges the account alive: its heartbeats (once it announced an interval), WebSocket pings only, or nothing (pings off).',
  }),
  last_heartbeat_at: Nullable(Type.Integer({ description: 'Unix ms of the last heartbeat.' })),
  last_pong_at: Nullable(Type.Integer({ description: 'Unix ms of the last answered ping.' })),
});

export function onebotRoutes(api: ConsoleApp, ctx: RouteContext): void {
  api.get(
    '/onebot/bots',
    {
      schema: {
        tags: ['onebot'],
        summary: 'Bot accounts connected to this process',
        response: { 200: Type.Array(ConnectedBot) },
      },
    },
    async () =>
      (ctx.deps.connectedBots?.() ?? []).map((bot) => ({
        self_id: bot.selfId,
        roles: [...bot.roles],
        directions: [...(bot.directions ?? bot.roles.map(() => 'reverse' as const))],
        connected_at: bot.connectedAt,
        last_event_at: bot.lastEventAt,
        online: bot.online,
        judged_by: bot.judgedBy ?? 'none',
        last_heartbeat_at: bot.lastHeartbeatAt ?? null,
        last_pong_at: bot.lastPongAt ?? null,
      })),
  );
}
