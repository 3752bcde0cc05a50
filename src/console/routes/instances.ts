/** The accounts of this process (instances) and disconnecting one (reference: §9 of the origin). */
import Type from 'typebox';
import type { ConsoleApp, RouteContext } from '../context.ts';
import { notFound } from '../errors.ts';

const Nullable = <T extends Type.TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const InstanceSchema = Type.Object({
  self_id: Type.Integer(),
  connected: Type.Boolean({ description: 'Has an open OneBot or Milky connection to this process.' }),
  protocol: Nullable(
    Type.Union([Type.Literal('onebot_v11'), Type.Literal('milky')], {
      description: 'How the account is connected: OneBot v11 or Milky; null when it is not connected.',
    }),
  ),
  online: Nullable(Type.Boolean({ description: '`status.online` of the last heartbeat, when reported.' })),
  roles: Type.Array(Type.String()),
  connected_at: Nullable(Type.Integer({ description: 'Unix ms the oldest open connection was accepted.' })),
  last_event_at: Nullable(Type.Integer({ description: 'Unix ms of the last event.' })),
  nickname: Nullable(Type.String({ description: 'From get_login_info; null when not connected.' })),
  groups: Nullable(Type.Integer({ description: 'Groups the account is in (get_group_list); null when unknown.' })),
  today: Type.Object(
    { messages: Type.Integer(), replies: Type.Integer() },
    { description: 'Group messages this process handled for the account today (local time), and its replies.' },
  ),
  bot_config: Type.Object({
    admins: Type.Array(Type.Integer()),
    disabled_plugins: Type.Array(Type.String()),
    auto_accept_friend: Type.Boolean(),
    auto_accept_group: Type.Boolean(),
    security: Type.Boolean(),
    nicknames: Type.Array(Type.String()),
    updated_at: Type.Integer({ description: '0 when never saved (defaults).' }),
  }),
});

export function instanceRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const { deps } = ctx;

  api.get(
    '/instances',
    {
      schema: {
        tags: ['onebot'],
        summary: 'Every account connected to this process or configured in bot-configs',
        response: { 200: Type.Array(InstanceSchema) },
      },
    },
    async () =>
      (await deps.instances.list()).map((item) => ({
        self_id: item.selfId,
        connected: item.connected,
        protocol: item.protocol,
        online: item.online,
        roles: item.roles,
        connected_at: item.connectedAt,
        last_event_at: item.lastEventAt,
        nickname: item.nickname,
        groups: item.groups,
        today: item.today,
        bot_config: {
          admins: [...item.config.admins],
          disabled_plugins: [...item.config.disabledPlugins],
          auto_accept_friend: item.config.autoAcceptFriend,
          auto_accept_group: item.config.autoAcceptGroup,
          security: item.config.security,
          nicknames: [...item.config.nicknames],
          updated_at: item.config.updatedAt,
        },
      })),
  );

  api.get(
    '/group-activity',
    {
      schema: {
        tags: ['group-configs'],
        summary:
          "Today's messages, replies and proactive lines in each of an account's groups (local time, counted by this process)",
        querystring: Type.Object(
          { self_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            self_id: Type.Integer(),
            groups: Type.Array(
              Type.Object({
                group_id: Type.Integer(),
                messages: Type.Integer(),
                replies: Type.Integer(),
                proactive: Type.Integer({ description: 'Lines said first because the group had gone quiet.' }),
              }),
              { description: 'Groups with at least one message today.' },
            ),
          }),
        },
      },
    },
    async (request) => ({
      self_id: request.query.self_id,
      groups: deps.instances.groupActivity(request.query.self_id).map((group) => ({
        group_id: group.groupId,
        messages: group.messages,
        replies: group.replies,
        proactive: group.proactive,
      })),
    }),
  );

  api.post(
    '/bots/:self_id/disconnect-ws',
    {
      config: { auth: 'write' },
      schema: {
        tags: ['onebot'],
        summary: "Close an account's OneBot connections (its implementation reconnects on its own)",
        params: Type.Object({ self_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) }),
        response: { 200: Type.Object({ closed: Type.Integer({ description: 'Connections closed.' }) }) },
      },
    },
    async (request) => {
      const closed = deps.instances.disconnect(request.params.self_id);
      if (closed === 0)
        throw notFound(
          'account_not_connected',
          { account: request.params.self_id },
          `account ${request.params.self_id} is not connected`,
        );
      return { closed };
    },
  );
}
