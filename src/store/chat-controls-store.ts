/**
 * Per-group and per-user controls (console `group-configs` / `user-configs`, migration
 * 0009_group_user_configs, `proactive` from 0013_t_proactive, `agent_chat` from 0014_s_chat), on either engine. Flags are 0/1, lists JSON text, an absent override
 * NULL. A save is a read-merge-write in one transaction (the row is created, then locked on
 * PostgreSQL), so two partial saves of one group never lose each other's fields.
 */
import type { Kysely } from 'kysely';
import {
  AGENT_CHAT_MODES,
  defaultGroupConfig,
  type AgentChatMode,
  defaultUserConfig,
  type GroupConfig,
  type GroupConfigPatch,
  type UserConfig,
  type UserConfigPatch,
} from '../domain/chat-controls.ts';
import { exec, first, type Program } from '../sql/program.ts';
import { readFirst, readRows } from '../sql/engine.ts';
import { bound } from '../sql/query.ts';
import type { Database, StoreEngine } from './schema.ts';

export interface GroupConfigTable {
  group_id: number;
  learn: number;
  reply: number;
  share: number;
  answer_threshold: number | null;
  reply_cooldown_sec: number | null;
  silence_until: number;
  /** 0/1, or NULL: the global default. */
  proactive: number | null;
  /** 'off' | 'addressed' | 'silence', or NULL: the default. */
  agent_chat: string | null;
  blocked_user_ids: string;
  banned: number;
  history_seed: number;
  history_seeded_until: number;
  updated_at: number;
}

export interface UserConfigTable {
  user_id: number;
  banned: number;
  bot: number;
  updated_at: number;
}

type Tables = { group_config: GroupConfigTable; user_config: UserConfigTable };
type Db = Kysely<Database & Tables>;

export class ChatControlsStore {
  readonly #engine: StoreEngine;
  readonly #db: Db;

  constructor(engine: StoreEngine) {
    this.#engine = engine;
    this.#db = engine.db.withTables<Tables>();
  }

  async getGroup(groupId: number): Promise<GroupConfig | null> {
    const query = bound(this.#db.selectFrom('group_config').selectAll().where('group_id', '=', groupId));
    const row = await readFirst(this.#engine, query);
    return row ? groupFromRow(row) : null;
  }

  /** Stored group configs by group number, at most `limit` (every one when absent). */
  async listGroups(limit?: number): Promise<GroupConfig[]> {
    const select = this.#db.selectFrom('group_config').selectAll().orderBy('group_id');
    const query = bound(limit === undefined ? select : select.limit(limit));
    return (await readRows(this.#engine, query)).map(groupFromRow);
  }

  async putGroup(groupId: number, patch: GroupConfigPatch, nowSec: number): Promise<GroupConfig> {
    const db = this.#db;
    const create = bound(
      db
        .insertInto('group_config')
        .values(groupToRow(defaultGroupConfig(groupId)))
        .onConflict((oc) => oc.column('group_id').doNothing()),
    );
    const selectRow = db.selectFrom('group_config').selectAll().where('group_id', '=', groupId);
    const select = bound(this.#engine.kind === 'postgres' ? selectRow.forUpdate() : selectRow);
    const clean = definedOnly(patch);
    return this.#engine.run(
      function* (): Program<GroupConfig> {
        yield* exec(create);
        const found = yield* first(select);
        const merged: GroupConfig = {
          ...(found ? groupFromRow(found) : defaultGroupConfig(groupId)),
          ...clean,
          groupId,
          updatedAt: nowSec,
        };
        const { group_id: _key, ...update } = groupToRow(merged);
        yield* exec(bound(db.updateTable('group_config').set(update).where('group_id', '=', groupId)));
        return merged;
      },
      { write: true },
    );
  }

  async getUser(userId: number): Promise<UserConfig | null> {
    const query = bound(this.#db.selectFrom('user_config').selectAll().where('user_id', '=', userId));
    const row = await readFirst(this.#engine, query);
    return row ? userFromRow(row) : null;
  }

  async listUsers(limit?: number): Promise<UserConfig[]> {
    const select = this.#db.selectFrom('user_config').selectAll().orderBy('user_id');
    const query = bound(limit === undefined ? select : select.limit(limit));
    return (await readRows(this.#engine, query)).map(userFromRow);
  }

  async putUser(userId: number, patch: UserConfigPatch, nowSec: number): Promise<UserConfig> {
    const db = this.#db;
    const create = bound(
      db
        .insertInto('user_config')
        .values(userToRow(defaultUserConfig(userId)))
        .onConflict((oc) => oc.column('user_id').doNothing()),
    );
    const selectRow = db.selectFrom('user_config').selectAll().where('user_id', '=', userId);
    const select = bound(this.#engine.kind === 'postgres' ? selectRow.forUpdate() : selectRow);
    const clean = definedOnly(patch);
    return this.#engine.run(
      function* (): Program<UserConfig> {
        yield* exec(create);
        const found = yield* first(select);
        const merged: UserConfig = {
          ...(found ? userFromRow(found) : defaultUserConfig(userId)),
          ...clean,
          userId,
          updatedAt: nowSec,
        };
        const { user_id: _key, ...update } = userToRow(merged);
        yield* exec(bound(db.updateTable('user_config').set(update).where('user_id', '=', userId)));
        return merged;
      },
      { write: true },
    );
  }
}

function definedOnly<T extends object>(patch: T): Partial<T> {
  // Object.entries/fromEntries lose the key types; the result holds a subset of the patch's own
  // fields, unchanged, which is what Partial<T> describes.
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as Partial<T>;
}

const flag = (value: boolean): number => (value ? 1 : 0);
const nullableNumber = (value: unknown): number | null =>
  value === null || value === undefined ? null : Number(value);

function groupToRow(config: GroupConfig): GroupConfigTable {
  return {
    group_id: config.groupId,
    learn: flag(config.learn),
    reply: flag(config.reply),
    share: flag(config.share),
    answer_threshold: config.answerThreshold,
    reply_cooldown_sec: config.replyCooldownSec,
    silence_until: config.silenceUntil,
    proactive: config.proactive === null ? null : flag(config.proactive),
    agent_chat: config.agentChat,
    blocked_user_ids: JSON.stringify([...config.blockedUserIds]),
    banned: flag(config.banned),
    history_seed: flag(config.historySeed),
    history_seeded_until: config.historySeededUntil,
    updated_at: config.updatedAt,
  };
}

function groupFromRow(row: GroupConfigTable): GroupConfig {
  return {
    groupId: Number(row.group_id),
    learn: Number(row.learn) === 1,
    reply: Number(row.reply) === 1,
    share: Number(row.share) === 1,
    answerThreshold: nullableNumber(row.answer_threshold),
    replyCooldownSec: nullableNumber(row.reply_cooldown_sec),
    silenceUntil: Number(row.silence_until),
    proactive: row.proactive === null || row.proactive === undefined ? null : Number(row.proactive) === 1,
    agentChat: agentChatOf(row.agent_chat),
    blockedUserIds: parseNumbers(row.blocked_user_ids),
    banned: Number(row.banned) === 1,
    historySeed: Number(row.history_seed) === 1,
    historySeededUntil: Number(row.history_seeded_until),
    updatedAt: Number(row.updated_at),
  };
}

function userToRow(config: UserConfig): UserConfigTable {
  return {
    user_id: config.userId,
    banned: flag(config.banned),
    bot: flag(config.bot),
    updated_at: config.updatedAt,
  };
}

function userFromRow(row: UserConfigTable): UserConfig {
  return {
    userId: Number(row.user_id),
    banned: Number(row.banned) === 1,
    bot: Number(row.bot) === 1,
    updatedAt: Number(row.updated_at),
  };
}

function agentChatOf(value: string | null | undefined): AgentChatMode | null {
  return (AGENT_CHAT_MODES as readonly string[]).includes(value ?? '') ? (value as AgentChatMode) : null;
}

function parseNumbers(text: string): number[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((item): item is number => typeof item === 'number') : [];
  } catch {
    return [];
  }
}
