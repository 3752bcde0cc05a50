/**
 * Per-group and per-user controls (docs/guide/groups.md): stored in the
 * database, applied to the next message in every process sharing it. A group or user never saved
 * reads as the defaults (`updated_at` 0).
 */
import Type from 'typebox';
import {
  AGENT_CHAT_MODES,
  type AgentChatMode,
  type GroupConfig,
  type GroupConfigPatch,
  type UserConfig,
  type UserConfigPatch,
} from '../../domain/chat-controls.ts';
import type { ConsoleApp, RouteContext } from '../context.ts';
import { badRequest } from '../errors.ts';
import { listError } from './chat-lists.ts';
import { recordConsole } from '../activity.ts';

/** Bounds of the list routes and the fields (units in the names: docs/rules.md#style-limits). */
export const CHAT_CONTROL_LIMITS = {
  listMax: 1000,
  listDefault: 200,
  blockedMax: 500,
  /** 2100-01-01: a later `silence_until` is a typo. */
  maxUnixSec: 4_102_444_800,
} as const;

const Qq = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const Limit = Type.Integer({
  minimum: 1,
  maximum: CHAT_CONTROL_LIMITS.listMax,
  default: CHAT_CONTROL_LIMITS.listDefault,
});
const Nullable = <T extends Type.TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const FIELD_DOCS = {
  learn: 'Learn from this group (its messages become phrases and answers). Default true.',
  reply: 'Answer in this group (from the corpus, and joining repeats). Default true; learning goes on when off.',
  share: "This group's pairs go to the community hub and count as cross-group evidence in other groups. Default true.",
  answer_threshold:
    'Overrides CHORUS_REPEATER_ANSWER_THRESHOLD in this group (the count an answer needs before it is used); null: the global value.',
  reply_cooldown_sec:
    'Overrides CHORUS_REPEATER_COOLDOWN_SEC in this group (seconds quiet after a reply); null: the global value.',
  silence_until:
    'Unix seconds until which the bot does not answer here (it keeps learning); 0: not silenced. The chat command 「<name>闭嘴 [N分钟|N小时]」 sets it.',
  proactive:
    'Talk first when the group goes quiet (a line the group itself said); null: the global default CHORUS_REPEATER_PROACTIVE_ENABLED.',
  agent_chat:
    'When the language model answers here (docs/agent.md): `off`; `addressed`, when the bot is addressed and the corpus has no answer; `silence`, also in place of silence at CHORUS_LLM_SILENCE_RATE; null: `addressed` whenever CHORUS_LLM_BASE_URL is set.',
  blocked_user_ids: 'Members whose messages are neither learned from nor answered in this group.',
  banned: 'Ignore the group entirely: nothing is logged, learned, answered or obeyed there.',
  history_seed:
    "Learn from the group's history (POST /group-configs/{group_id}/history-seed, default depth) when the group is " +
    'switched on (learning on, not banned) or an account connects and it was never seeded. Default false.',
  history_seeded_until:
    'Unix seconds up to which a history seed has learned this group (0: never); a later seed learns only newer messages.',
} as const;

export const GroupConfigSchema = Type.Object({
  group_id: Type.Integer(),
  learn: Type.Boolean({ description: FIELD_DOCS.learn }),
  reply: Type.Boolean({ description: FIELD_DOCS.reply }),
  share: Type.Boolean({ description: FIELD_DOCS.share }),
  answer_threshold: Nullable(Type.Integer({ description: FIELD_DOCS.answer_threshold })),
  reply_cooldown_sec: Nullable(Type.Integer({ description: FIELD_DOCS.reply_cooldown_sec })),
  silence_until: Type.Integer({ description: FIELD_DOCS.silence_until }),
  proactive: Nullable(Type.Boolean({ description: FIELD_DOCS.proactive })),
  agent_chat: Nullable(Type.String({ enum: [...AGENT_CHAT_MODES], description: FIELD_DOCS.agent_chat })),
  blocked_user_ids: Type.Array(Type.Integer(), { description: FIELD_DOCS.blocked_user_ids }),
  banned: Type.Boolean({ description: FIELD_DOCS.banned }),
  history_seed: Type.Boolean({ description: FIELD_DOCS.history_seed }),
  history_seeded_until: Type.Integer({ description: FIELD_DOCS.history_seeded_until }),
  updated_at: Type.Integer({ description: 'Unix seconds of the last save; 0 when never saved (defaults).' }),
});

const GroupConfigBody = Type.Object(
  {
    learn: Type.Optional(Type.Boolean({ description: FIELD_DOCS.learn })),
    reply: Type.Optional(Type.Boolean({ description: FIELD_DOCS.reply })),
    share: Type.Optional(Type.Boolean({ description: FIELD_DOCS.share })),
    answer_threshold: Type.Optional(
      Nullable(Type.Integer({ minimum: 1, maximum: 100, description: FIELD_DOCS.answer_threshold })),
    ),
    reply_cooldown_sec: Type.Optional(
      Nullable(Type.Integer({ minimum: 0, maximum: 3600, description: FIELD_DOCS.reply_cooldown_sec })),
    ),
    silence_until: Type.Optional(
      Type.Integer({ minimum: 0, maximum: CHAT_CONTROL_LIMITS.maxUnixSec, description: FIELD_DOCS.silence_until }),
    ),
    proactive: Type.Optional(Nullable(Type.Boolean({ description: FIELD_DOCS.proactive }))),
    agent_chat: Type.Optional(
      Nullable(Type.String({ enum: [...AGENT_CHAT_MODES], description: FIELD_DOCS.agent_chat })),
    ),
    blocked_user_ids: Type.Optional(
      Type.Array(Qq, { maxItems: CHAT_CONTROL_LIMITS.blockedMax, description: FIELD_DOCS.blocked_user_ids }),
    ),
    banned: Type.Optional(Type.Boolean({ description: FIELD_DOCS.banned })),
    history_seed: Type.Optional(Type.Boolean({ description: FIELD_DOCS.history_seed })),
  },
  { additionalProperties: false },
);

const USER_DOCS = {
  banned: 'Never learned from and never answered, in any group.',
  bot: 'Another bot: its messages are neither learned from nor counted for repeats.',
} as const;

export const UserConfigSchema = Type.Object({
  user_id: Type.Integer(),
  banned: Type.Boolean({ description: USER_DOCS.banned }),
  bot: Type.Boolean({ description: USER_DOCS.bot }),
  updated_at: Type.Integer({ description: 'Unix seconds of the last save; 0 when never saved (defaults).' }),
});

const UserConfigBody = Type.Object(
  {
    banned: Type.Optional(Type.Boolean({ description: USER_DOCS.banned })),
    bot: Type.Optional(Type.Boolean({ description: USER_DOCS.bot })),
  },
  { additionalProperties: false },
);

export function groupPayload(config: GroupConfig) {
  return {
    group_id: config.groupId,
    learn: config.learn,
    reply: config.reply,
    share: config.share,
    answer_threshold: config.answerThreshold,
    reply_cooldown_sec: config.replyCooldownSec,
    silence_until: config.silenceUntil,
    proactive: config.proactive,
    agent_chat: config.agentChat,
    blocked_user_ids: [...config.blockedUserIds],
    banned: config.banned,
    history_seed: config.historySeed,
    history_seeded_until: config.historySeededUntil,
    updated_at: config.updatedAt,
  };
}

export function userPayload(config: UserConfig) {
  return { user_id: config.userId, banned: config.banned, bot: config.bot, updated_at: config.updatedAt };
}

export function chatControlRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const { deps } = ctx;
  const controls = deps.chatControls;
  const nowSec = () => Math.floor(deps.clock.nowMs() / 1000);

  api.get(
    '/group-configs',
    {
      config: { members: true },
      schema: {
        tags: ['group-configs'],
        summary:
          "Saved group configs by group number; with self_id, the config of each of that account's groups (defaults when never saved; 404 when it is not connected)",
        querystring: Type.Object(
          { limit: Type.Optional(Limit), self_id: Type.Optional(Qq) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Array(GroupConfigSchema) },
      },
    },
    async (request) => {
      const selfId = request.query.self_id;
      const limit = request.query.limit ?? CHAT_CONTROL_LIMITS.listDefault;
      if (selfId === undefined) return (await controls.listGroups(limit)).map(groupPayload);
      let groups;
      try {
        groups = await deps.chatLists.groups(selfId);
      } catch (error) {
        throw listError(selfId, error);
      }
      const ids = groups.slice(0, limit).map((group) => group.groupId);
      return (await Promise.all(ids.map((id) => controls.getGroup(id)))).map(groupPayload);
    },
  );

  api.get(
    '/group-configs/:group_id',
    {
      config: { members: true },
      schema: {
        tags: ['group-configs'],
        summary: "One group's config (the defaults when never saved)",
        params: Type.Object({ group_id: Qq }),
        response: { 200: GroupConfigSchema },
      },
    },
    async (request) => groupPayload(await controls.getGroup(request.params.group_id)),
  );

  api.put(
    '/group-configs/:group_id',
    {
      config: { auth: 'write' },
      schema: {
        tags: ['group-configs'],
        summary: "Save a group's config; absent fields keep their value; applies to the next message",
        params: Type.Object({ group_id: Qq }),
        body: GroupConfigBody,
        response: { 200: GroupConfigSchema },
      },
    },
    async (request) => {
      const body = request.body;
      if (Object.keys(body).length === 0)
        throw badRequest('nothing_to_save', {}, 'body: nothing to save (empty object)');
      const patch: GroupConfigPatch = {
        ...(body.learn !== undefined ? { learn: body.learn } : {}),
        ...(body.reply !== undefined ? { reply: body.reply } : {}),
        ...(body.share !== undefined ? { share: body.share } : {}),
        ...(body.answer_threshold !== undefined ? { answerThreshold: body.answer_threshold } : {}),
        ...(body.reply_cooldown_sec !== undefined ? { replyCooldownSec: body.reply_cooldown_sec } : {}),
        ...(body.silence_until !== undefined ? { silenceUntil: body.silence_until } : {}),
        ...(body.proactive !== undefined ? { proactive: body.proactive } : {}),
        ...(body.agent_chat !== undefined ? { agentChat: body.agent_chat as AgentChatMode | null } : {}),
        ...(body.blocked_user_ids ? { blockedUserIds: [...new Set(body.blocked_user_ids)] } : {}),
        ...(body.banned !== undefined ? { banned: body.banned } : {}),
        ...(body.history_seed !== undefined ? { historySeed: body.history_seed } : {}),
      };
      const saved = groupPayload(await controls.putGroup(request.params.group_id, patch, nowSec()));
      // A silence alone is a silence (or its end); anything else a switch change with what changed.
      const onlySilence = Object.keys(body).length === 1 && body.silence_until !== undefined;
      const silenceKind = (body.silence_until ?? 0) > nowSec() ? 'silence' : 'resume';
      await recordConsole(deps, request, {
        kind: onlySilence ? silenceKind : 'group_config',
        groupId: request.params.group_id,
        params: changedFields(body),
      });
      return saved;
    },
  );

  api.get(
    '/user-configs',
    {
      config: { members: true },
      schema: {
        tags: ['user-configs'],
        summary: 'Saved user configs by QQ number (users never saved use the defaults)',
        querystring: Type.Object({ limit: Type.Optional(Limit) }, { additionalProperties: false }),
        response: { 200: Type.Array(UserConfigSchema) },
      },
    },
    async (request) =>
      (await controls.listUsers(request.query.limit ?? CHAT_CONTROL_LIMITS.listDefault)).map(userPayload),
  );

  api.get(
    '/user-configs/:user_id',
    {
      config: { members: true },
      schema: {
        tags: ['user-configs'],
        summary: "One user's config (the defaults when never saved)",
        params: Type.Object({ user_id: Qq }),
        response: { 200: UserConfigSchema },
      },
    },
    async (request) => userPayload(await controls.getUser(request.params.user_id)),
  );

  api.put(
    '/user-configs/:user_id',
    {
      config: { auth: 'write' },
      schema: {
        tags: ['user-configs'],
        summary: "Save a user's config; absent fields keep their value; applies to the next message",
        params: Type.Object({ user_id: Qq }),
        body: UserConfigBody,
        response: { 200: UserConfigSchema },
      },
    },
    async (request) => {
      const body = request.body;
      if (Object.keys(body).length === 0)
        throw badRequest('nothing_to_save', {}, 'body: nothing to save (empty object)');
      const patch: UserConfigPatch = {
        ...(body.banned !== undefined ? { banned: body.banned } : {}),
        ...(body.bot !== undefined ? { bot: body.bot } : {}),
      };
      const saved = userPayload(await controls.putUser(request.params.user_id, patch, nowSec()));
      await recordConsole(deps, request, {
        kind: 'user_config',
        groupId: null,
        params: { user_id: request.params.user_id, ...changedFields(body) },
      });
      return saved;
    },
  );
}

/** The saved fields as activity parameters (a list becomes its length; null: back to the global value). */
function changedFields(body: Record<string, unknown>): Record<string, string | number | boolean> {
  const params: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) params[key] = value.length;
    else if (value === null) params[key] = 'default';
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') params[key] = value;
  }
  return params;
}
