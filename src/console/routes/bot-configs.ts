/** Per-account bot settings, stored in the database (PUT /bot-configs/{account}). */
import Type from 'typebox';
import type { BotConfig as StoredBotConfig, BotConfigPatch } from '../../store/bot-config-store.ts';
import type { ConsoleApp, RouteContext } from '../context.ts';
import { badRequest, invalidField, notFound } from '../errors.ts';
import { BOT_CONFIG_LIMITS } from '../limits.ts';
import { PLUGIN_NAMES } from '../plugins.ts';
import { stripNul } from '../../common/text.ts';
import { BotConfig } from '../schemas.ts';

const Qq = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

const AccountParams = Type.Object({ account: Qq });

const BotConfigBody = Type.Object(
  {
    admins: Type.Optional(
      Type.Array(Qq, {
        maxItems: BOT_CONFIG_LIMITS.listMax,
        description:
          "QQ numbers of the bot's administrators, treated as group admins: they may silence the bot in a group (「<name> 闭嘴」, and 「<name> 说话」 to resume), as group owners and admins may.",
      }),
    ),
    disabled_plugins: Type.Optional(
      Type.Array(Type.String({ enum: [...PLUGIN_NAMES] }), {
        maxItems: PLUGIN_NAMES.length * 4,
        description:
          'Plugins switched off for this account. `repeater`: the account neither learns from nor answers group messages (it stays connected). Applies to the next message.',
      }),
    ),
    auto_accept_friend: Type.Optional(
      Type.Boolean({ description: 'Approve friend requests to this account automatically (set_friend_add_request).' }),
    ),
    auto_accept_group: Type.Optional(
      Type.Boolean({
        description: 'Approve group invitations and join requests automatically (set_group_add_request).',
      }),
    ),
    security: Type.Optional(
      Type.Boolean({
        description:
          'Security mode: an answer whose sending failed (the platform refused it) is banned in that group, so it is not tried again.',
      }),
    ),
    nicknames: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: BOT_CONFIG_LIMITS.nicknameMaxChars }), {
        maxItems: BOT_CONFIG_LIMITS.listMax,
        description:
          'Names this account answers to, besides CHORUS_REPEATER_NICKNAMES: a message starting with one is addressed to the bot (not answered from the corpus), and a ban command may name the bot this way.',
      }),
    ),
  },
  { additionalProperties: false },
);

function payload(config: StoredBotConfig) {
  return {
    account: config.account,
    admins: [...config.admins],
    disabled_plugins: [...config.disabledPlugins],
    auto_accept_friend: config.autoAcceptFriend,
    auto_accept_group: config.autoAcceptGroup,
    security: config.security,
    nicknames: [...config.nicknames],
    updated_at: config.updatedAt,
  };
}

const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

const unique = <T>(items: readonly T[]): T[] => [...new Set(items)];

export function botConfigRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const { deps } = ctx;

  api.get(
    '/bot-configs',
    {
      schema: {
        tags: ['bot-configs'],
        summary: 'Every stored bot account config',
        response: { 200: Type.Array(BotConfig) },
      },
    },
    async () => (await deps.botConfigs.list()).map(payload),
  );

  api.get(
    '/bot-configs/:account',
    {
      schema: {
        tags: ['bot-configs'],
        summary: "One account's bot config",
        params: AccountParams,
        response: { 200: BotConfig },
      },
    },
    async (request) => {
      const found = await deps.botConfigs.get(request.params.account);
      if (found === null)
        throw notFound(
          'no_bot_config',
          { account: request.params.account },
          `no bot config for account ${request.params.account}`,
        );
      return payload(found);
    },
  );

  api.put(
    '/bot-configs/:account',
    {
      config: { auth: 'write' },
      schema: {
        tags: ['bot-configs'],
        summary: "Save (create or update) an account's bot config; absent fields keep their value",
        params: AccountParams,
        body: BotConfigBody,
        response: { 200: BotConfig },
      },
    },
    async (request) => {
      const body = request.body;
      if (Object.keys(body).length === 0)
        throw badRequest('nothing_to_save', {}, 'body: nothing to save (empty object)');
      // Checked after normalisation, as stored: "\u0000" is blank once NUL is stripped.
      const nicknames = body.nicknames?.map((name) => stripNul(name).trim());
      const blank = nicknames?.findIndex((name) => name === '') ?? -1;
      if (blank >= 0)
        throw invalidField(`body.nicknames.${blank}`, 'blank', `body.nicknames.${blank}: must not be blank`);
      const control = nicknames?.findIndex((name) => CONTROL_CHARACTER.test(name)) ?? -1;
      if (control >= 0)
        throw invalidField(
          `body.nicknames.${control}`,
          'control_chars',
          `body.nicknames.${control}: must not contain control characters`,
        );
      const patch: BotConfigPatch = {
        ...(body.admins ? { admins: unique(body.admins) } : {}),
        ...(body.disabled_plugins ? { disabledPlugins: unique(body.disabled_plugins) } : {}),
        ...(body.auto_accept_friend !== undefined ? { autoAcceptFriend: body.auto_accept_friend } : {}),
        ...(body.auto_accept_group !== undefined ? { autoAcceptGroup: body.auto_accept_group } : {}),
        ...(body.security !== undefined ? { security: body.security } : {}),
        ...(nicknames ? { nicknames: unique(nicknames) } : {}),
      };
      const saved = await deps.botConfigs.put(request.params.account, patch, Math.floor(deps.clock.nowMs() / 1000));
      return payload(saved);
    },
  );
}
