/**
 * Friend and group requests (docs/guide/connecting.md): the persisted inbox of request
 * events, approved or rejected over the protocol each came by (OneBot v11 or Milky). Shapes follow the
 * origin's routes; requests QQ filtered as doubtful are not delivered over OneBot v11, so there
 * is no `doubt` source.
 */
import Type from 'typebox';
import type { InboxRequest } from '../deps.ts';
import type { ConsoleApp, RouteContext } from '../context.ts';
import { badGateway, badRequest, conflict, invalidField, notFound, type HttpError } from '../errors.ts';
import { recordConsole } from '../activity.ts';

const Qq = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const Kind = Type.Union([Type.Literal('friend'), Type.Literal('group')]);
const Action = Type.Union([Type.Literal('approve'), Type.Literal('reject')], {
  description: 'approve (default) or reject',
});
const Source = Type.Literal('pending', { description: 'Only pending requests can be answered.' });
export const BATCH_MAX = 500;
const HANDLED_SHOWN = 50;

const Request = Type.Object({
  id: Type.Integer(),
  self_id: Type.Integer({ description: 'The account the request was sent to.' }),
  kind: Kind,
  sub_type: Type.String({ description: 'Group requests: add (someone asks to join) or invite (the bot is invited).' }),
  user_id: Type.Integer({ description: 'Who asked (or invited).' }),
  group_id: Type.Union([Type.Integer(), Type.Null()]),
  comment: Type.String({ description: 'The message sent with the request.' }),
  time: Type.Integer({ description: 'Unix seconds the request arrived.' }),
  status: Type.Union(
    [
      Type.Literal('pending'),
      Type.Literal('expired'),
      Type.Literal('approved'),
      Type.Literal('rejected'),
      Type.Literal('failed'),
    ],
    { description: 'expired: pending for more than 7 days, QQ no longer takes an answer.' },
  ),
  handled_at: Type.Integer({ description: 'Unix seconds; 0 while pending.' }),
  handled_by: Type.String({ description: 'console, auto (bot-configs auto-accept), or empty while pending.' }),
});

const BotRequests = Type.Object({
  self_id: Type.Integer(),
  online: Type.Boolean({ description: 'Connected to this process now.' }),
  pending_friend_requests: Type.Array(Request),
});
const BotOverview = Type.Object({
  self_id: Type.Integer(),
  online: Type.Boolean({ description: 'Connected to this process now.' }),
  pending_friend_requests: Type.Array(Request),
  pending_group_requests: Type.Array(Request),
});

function payload(request: InboxRequest) {
  return {
    id: request.id,
    self_id: request.selfId,
    kind: request.kind,
    sub_type: request.subType,
    user_id: request.userId,
    group_id: request.groupId,
    comment: request.comment,
    time: request.time,
    status: request.status,
    handled_at: request.handledAt,
    handled_by: request.handledBy,
  };
}

function actionError(error: unknown): HttpError {
  const reason = (error as { reason?: string }).reason;
  const message = error instanceof Error ? error.message : String(error);
  if (reason === 'not-pending') return notFound('request_not_pending', {}, `nothing pending: ${message}`);
  if (reason === 'not-connected') return notFound('account_not_connected', {}, message);
  if (reason === 'expired') return conflict('request_expired', {}, message);
  if (reason === 'refused') return badGateway('request_refused_by_onebot', {}, message);
  throw error;
}

export function requestRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const { deps } = ctx;
  /** An approval lets the bot into a group (or a friend's chat); a rejection keeps it out. */
  const recordRequest = (
    request: Parameters<typeof recordConsole>[1],
    item: { selfId: number; kind: 'friend' | 'group'; userId: number | null; groupId: number | null },
  ) => {
    const approve = ((request as { body?: { action?: string } }).body?.action ?? 'approve') === 'approve';
    return recordConsole(deps, request, {
      kind: approve ? 'request_approve' : 'request_reject',
      groupId: item.kind === 'group' && item.groupId ? item.groupId : null,
      params: { request: item.kind, self_id: item.selfId, user_id: item.userId ?? 0 },
    });
  };
  const SelfQuery = Type.Object({ self_id: Type.Optional(Qq) }, { additionalProperties: false });

  /** Accounts: the connected ones and any with pending requests, by number. */
  const byAccount = async (selfId: number | undefined) => {
    const pending = await deps.requests.pending(selfId);
    const online = new Set((deps.connectedBots?.() ?? []).map((bot) => bot.selfId));
    const accounts = new Set([...online, ...pending.map((request) => request.selfId)]);
    const shown = [...accounts].filter((id) => selfId === undefined || id === selfId).sort((a, b) => a - b);
    return shown.map((id) => ({
      self_id: id,
      online: online.has(id),
      friends: pending.filter((r) => r.selfId === id && r.kind === 'friend').map(payload),
      groups: pending.filter((r) => r.selfId === id && r.kind === 'group').map(payload),
    }));
  };

  api.get(
    '/friend-requests',
    {
      config: { members: true },
      schema: {
        tags: ['requests'],
        summary: 'Pending friend requests per account',
        querystring: SelfQuery,
        response: { 200: Type.Object({ bots: Type.Array(BotRequests) }) },
      },
    },
    async (request) => ({
      bots: (await byAccount(request.query.self_id)).map((bot) => ({
        self_id: bot.self_id,
        online: bot.online,
        pending_friend_requests: bot.friends,
      })),
    }),
  );

  api.get(
    '/request-overview',
    {
      config: { members: true },
      schema: {
        tags: ['requests'],
        summary: 'Pending friend and group requests per account, and the latest handled ones',
        querystring: SelfQuery,
        response: {
          200: Type.Object({
            bots: Type.Array(BotOverview),
            handled: Type.Array(Request, {
              description: `The latest ${HANDLED_SHOWN} handled requests, newest first.`,
            }),
          }),
        },
      },
    },
    async (request) => ({
      bots: (await byAccount(request.query.self_id)).map((bot) => ({
        self_id: bot.self_id,
        online: bot.online,
        pending_friend_requests: bot.friends,
        pending_group_requests: bot.groups,
      })),
      handled: (await deps.requests.handled(HANDLED_SHOWN, request.query.self_id)).map(payload),
    }),
  );

  api.post(
    '/request-actions',
    {
      config: { auth: 'write' },
      schema: {
        tags: ['requests'],
        summary: 'Approve or reject one pending request (set_friend_add_request / set_group_add_request)',
        body: Type.Object(
          {
            self_id: Qq,
            kind: Kind,
            action: Type.Optional(Action),
            source: Type.Optional(Source),
            user_id: Type.Optional(Qq),
            group_id: Type.Optional(Qq),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ handled: Type.Literal(true), request: Request }) },
      },
    },
    async (request) => {
      const body = request.body;
      if (body.kind === 'friend' && body.user_id === undefined)
        throw invalidField('body.user_id', 'required', 'body.user_id: required for a friend request');
      if (body.kind === 'group' && body.group_id === undefined)
        throw invalidField('body.group_id', 'required', 'body.group_id: required for a group request');
      try {
        const approve = (body.action ?? 'approve') === 'approve';
        const handled = await deps.requests.act(
          { selfId: body.self_id, kind: body.kind, userId: body.user_id ?? null, groupId: body.group_id ?? null },
          approve,
        );
        await recordRequest(request, {
          selfId: body.self_id,
          kind: body.kind,
          userId: handled.userId,
          groupId: handled.groupId,
        });
        return { handled: true as const, request: payload(handled) };
      } catch (error) {
        throw actionError(error);
      }
    },
  );

  const BatchResult = Type.Object({
    kind: Kind,
    self_id: Type.Integer(),
    user_id: Type.Union([Type.Integer(), Type.Null()]),
    group_id: Type.Union([Type.Integer(), Type.Null()]),
    ok: Type.Boolean(),
    error: Type.Union([Type.String(), Type.Null()], { description: 'Why this item was not handled.' }),
  });

  api.post(
    '/request-actions/batch',
    {
      config: { auth: 'write' },
      schema: {
        tags: ['requests'],
        summary: 'Approve or reject many pending requests; each item reports its own result',
        body: Type.Object(
          {
            action: Type.Optional(Action),
            friends: Type.Optional(
              Type.Array(
                Type.Object(
                  { self_id: Qq, user_id: Qq, source: Type.Optional(Source) },
                  { additionalProperties: false },
                ),
                { maxItems: BATCH_MAX },
              ),
            ),
            groups: Type.Optional(
              Type.Array(
                Type.Object({ self_id: Qq, group_id: Qq, user_id: Type.Optional(Qq) }, { additionalProperties: false }),
                { maxItems: BATCH_MAX },
              ),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ handled: Type.Integer(), failed: Type.Integer(), results: Type.Array(BatchResult) }),
        },
      },
    },
    async (request) => {
      const body = request.body;
      const approve = (body.action ?? 'approve') === 'approve';
      const items = [
        ...(body.friends ?? []).map((item) => ({
          selfId: item.self_id,
          kind: 'friend' as const,
          userId: item.user_id as number | null,
          groupId: null as number | null,
        })),
        ...(body.groups ?? []).map((item) => ({
          selfId: item.self_id,
          kind: 'group' as const,
          userId: item.user_id ?? null,
          groupId: item.group_id as number | null,
        })),
      ];
      if (items.length === 0) throw badRequest('nothing_to_save', {}, 'body: friends and groups are both empty');
      const results = [];
      // One at a time: each is one OneBot action, and the account answers them in order.
      for (const item of items) {
        try {
          await deps.requests.act(item, approve);
          await recordRequest(request, item);
          results.push({
            kind: item.kind,
            self_id: item.selfId,
            user_id: item.userId,
            group_id: item.groupId,
            ok: true,
            error: null,
          });
        } catch (error) {
          const detail = actionError(error).detail;
          results.push({
            kind: item.kind,
            self_id: item.selfId,
            user_id: item.userId,
            group_id: item.groupId,
            ok: false,
            error: detail,
          });
        }
      }
      const handled = results.filter((result) => result.ok).length;
      return { handled, failed: results.length - handled, results };
    },
  );
}
