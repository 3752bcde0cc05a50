/**
 * Per-account bot settings (console `bot-configs`), on either engine. One row per QQ account;
 * lists are JSON text and flags 0/1 (see migration 0003_bot_config). A save is a read-merge-write
 * in one transaction, so two partial saves of the same account never lose each other's fields.
 */
import type { Kysely } from 'kysely';
import { stripNul } from '../common/text.ts';
import { exec, first, type Program } from '../sql/program.ts';
import { readFirst, readRows } from '../sql/engine.ts';
import { bound } from '../sql/query.ts';
import type { Database, StoreEngine } from './schema.ts';

export interface BotConfig {
  readonly account: number;
  /** QQ numbers of the bot's administrators. */
  readonly admins: readonly number[];
  /** Plugin names switched off for this account. */
  readonly disabledPlugins: readonly string[];
  readonly autoAcceptFriend: boolean;
  readonly autoAcceptGroup: boolean;
  /** Security mode: the bot ignores strangers' invitations and sensitive commands. */
  readonly security: boolean;
  /** Names the bot answers to. */
  readonly nicknames: readonly string[];
  /** Unix seconds of the last save. */
  readonly updatedAt: number;
}

export type BotConfigPatch = Partial<Omit<BotConfig, 'account' | 'updatedAt'>>;

export interface BotConfigTable {
  account: number;
  admins: string;
  disabled_plugins: string;
  auto_accept_friend: number;
  auto_accept_group: number;
  security: number;
  nicknames: string;
  updated_at: number;
}

type Db = Kysely<Database & { bot_config: BotConfigTable }>;

export function defaultBotConfig(account: number): BotConfig {
  return {
    account,
    admins: [],
    disabledPlugins: [],
    autoAcceptFriend: false,
    autoAcceptGroup: false,
    security: false,
    nicknames: [],
    updatedAt: 0,
  };
}

export class BotConfigStore {
  readonly #engine: StoreEngine;
  readonly #db: Db;

  constructor(engine: StoreEngine) {
    this.#engine = engine;
    this.#db = engine.db.withTables<{ bot_config: BotConfigTable }>();
  }

  async get(account: number): Promise<BotConfig | null> {
    const query = bound(this.#db.selectFrom('bot_config').selectAll().where('account', '=', account));
    const row = await readFirst(this.#engine, query);
    return row ? fromRow(row) : null;
  }

  async list(): Promise<BotConfig[]> {
    const query = bound(this.#db.selectFrom('bot_config').selectAll().orderBy('account'));
    return (await readRows(this.#engine, query)).map(fromRow);
  }

  /**
   * Merges `patch` into the stored config (or the defaults) and returns what was stored. The row
   * is created first and then locked, so concurrent saves of one account serialise on PostgreSQL
   * (SQLite runs write transactions one at a time anyway).
   */
  async put(account: number, patch: BotConfigPatch, nowSec: number): Promise<BotConfig> {
    const db = this.#db;
    const create = bound(
      db
        .insertInto('bot_config')
        .values(toRow(defaultBotConfig(account)))
        .onConflict((oc) => oc.column('account').doNothing()),
    );
    const selectRow = db.selectFrom('bot_config').selectAll().where('account', '=', account);
    const select = bound(this.#engine.kind === 'postgres' ? selectRow.forUpdate() : selectRow);
    const clean = definedOnly(patch);
    return this.#engine.run(
      function* (): Program<BotConfig> {
        yield* exec(create);
        const found = yield* first(select);
        const merged: BotConfig = {
          ...(found ? fromRow(found) : defaultBotConfig(account)),
          ...clean,
          account,
          updatedAt: nowSec,
        };
        const { account: _key, ...update } = toRow(merged);
        yield* exec(bound(db.updateTable('bot_config').set(update).where('account', '=', account)));
        return merged;
      },
      { write: true },
    );
  }
}

/** The patch without absent fields, its texts without NUL characters (docs/rules.md#store-keys). */
function definedOnly(patch: BotConfigPatch): BotConfigPatch {
  const clean: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    clean[key] = Array.isArray(value)
      ? value.map((item: unknown) => (typeof item === 'string' ? stripNul(item) : item))
      : value;
  }
  // Built key by key from the patch's own entries (Object.entries types them as strings), so it
  // holds a subset of the patch's fields with their values' types: a BotConfigPatch.
  return clean as BotConfigPatch;
}

function toRow(config: BotConfig): BotConfigTable {
  return {
    account: config.account,
    admins: JSON.stringify([...config.admins]),
    disabled_plugins: JSON.stringify([...config.disabledPlugins]),
    auto_accept_friend: config.autoAcceptFriend ? 1 : 0,
    auto_accept_group: config.autoAcceptGroup ? 1 : 0,
    security: config.security ? 1 : 0,
    nicknames: JSON.stringify([...config.nicknames]),
    updated_at: config.updatedAt,
  };
}

function fromRow(row: BotConfigTable): BotConfig {
  return {
    account: Number(row.account),
    admins: parseList(row.admins).filter((item): item is number => typeof item === 'number'),
    disabledPlugins: parseList(row.disabled_plugins).filter((item): item is string => typeof item === 'string'),
    autoAcceptFriend: Number(row.auto_accept_friend) === 1,
    autoAcceptGroup: Number(row.auto_accept_group) === 1,
    security: Number(row.security) === 1,
    nicknames: parseList(row.nicknames).filter((item): item is string => typeof item === 'string'),
    updatedAt: Number(row.updated_at),
  };
}

function parseList(text: string): unknown[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
}
