/**
 * An account's groups and friends, as its OneBot implementation reports them (get_group_list /
 * get_friend_list, cached for 30 s). An account not connected to this process: 404.
 */
import Type from 'typebox';
import { NotConnectedError } from '../../onebot/errors.ts';
import type { ConsoleApp, RouteContext } from '../context.ts';
import { badGateway, notFound, type HttpError } from '../errors.ts';

const Qq = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

export const LIST_LIMITS = {
  groups: { max: 10_000, default: 1_000 },
  friends: { max: 8_000, default: 800 },
} as const;

/** What a failed list read answers: not connected 404, the implementation failing 502. */
export function listError(selfId: number, error: unknown): HttpError {
  if (error instanceof NotConnectedError)
    return notFound('account_not_connected', { account: selfId }, `account ${selfId} is not connected`);
  return badGateway(
    'onebot_failed',
    { account: selfId },
    `the account's OneBot implementation did not answer: ${error instanceof Error ? error.message : String(error)}`,
  );
}

export function chatListRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const { deps } = ctx;

  api.get(
    '/group-list',
    {
      schema: {
        tags: ['group-configs'],
        summary: "An account's groups (get_group_list, cached 30 s); 404 when it is not connected",
        querystring: Type.Object(
          {
            self_id: Qq,
            limit: Type.Optional(
              Type.Integer({ minimum: 1, maximum: LIST_LIMITS.groups.max, default: LIST_LIMITS.groups.default }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            self_id: Type.Integer(),
            groups: Type.Array(
              Type.Object({ group_id: Type.Integer(), group_name: Type.String(), member_count: Type.Integer() }),
            ),
            truncated: Type.Boolean({ description: 'More groups than `limit`.' }),
            limit: Type.Integer(),
          }),
        },
      },
    },
    async (request) => {
      const { self_id: selfId } = request.query;
      const limit = request.query.limit ?? LIST_LIMITS.groups.default;
      let groups;
      try {
        groups = await deps.chatLists.groups(selfId);
      } catch (error) {
        throw listError(selfId, error);
      }
      return {
        self_id: selfId,
        groups: groups
          .slice(0, limit)
          .map((g) => ({ group_id: g.groupId, group_name: g.name, member_count: g.memberCount })),
        truncated: groups.length > limit,
        limit,
      };
    },
  );

  api.get(
    '/friend-list',
    {
      config: { members: true },
      schema: {
        tags: ['requests'],
        summary: "An account's friends (get_friend_list, cached 30 s); 404 when it is not connected",
        querystring: Type.Object(
          {
            self_id: Qq,
            limit: Type.Optional(
              Type.Integer({ minimum: 1, maximum: LIST_LIMITS.friends.max, default: LIST_LIMITS.friends.default }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            self_id: Type.Integer(),
            friends: Type.Array(
              Type.Object({ user_id: Type.Integer(), nickname: Type.String(), remark: Type.String() }),
            ),
            truncated: Type.Boolean({ description: 'More friends than `limit`.' }),
            limit: Type.Integer(),
          }),
        },
      },
    },
    async (request) => {
      const { self_id: selfId } = request.query;
      const limit = request.query.limit ?? LIST_LIMITS.friends.default;
      let friends;
      try {
        friends = await deps.chatLists.friends(selfId);
      } catch (error) {
        throw listError(selfId, error);
      }
      return {
        self_id: selfId,
        friends: friends.slice(0, limit).map((f) => ({ user_id: f.userId, nickname: f.nickname, remark: f.remark })),
        truncated: friends.length > limit,
        limit,
      };
    },
  );
}
