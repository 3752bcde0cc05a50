/**
 * What the database domain's overview shows: the engine, its size on disk (SQLite: the file and
 * its WAL; PostgreSQL: the tables of this schema), and each of Chorus's tables with its row count.
 */
import { stat } from 'node:fs/promises';
import { sql } from 'kysely';
import { readFirst, readRows } from '../sql/engine.ts';
import { bound, compiled } from '../sql/query.ts';
import { toNumber, toNumberOr, type DbNumber } from '../sql/numbers.ts';
import type { StoreEngine } from './schema.ts';

/** Chorus's own tables (the corpus and the chat log), in a stable order. */
export const CHORUS_TABLES = [
  'context',
  'context_answer',
  'context_answer_message',
  'context_ban',
  'message',
  'blacklist',
  'bot_config',
  'activity_log',
  'change_feed',
  'reply_usage',
  'console_daily_stats',
  'group_config',
  'user_config',
  'chat_request',
  'message_claims',
  'repeater_decision',
  // the agent memory (migration 0014_s_memory): in backups, and paged at the write level only
  'agent_consent',
  'agent_person_fact',
  'agent_observation',
  // the group's mined catchphrases (migration 0014_s_catchphrases)
  'agent_catchphrase',
  'agent_task',
  'agent_chat_call',
] as const;

export interface DatabaseOverview {
  engine: 'sqlite' | 'postgres';
  /** SQLite: the database file; PostgreSQL: the total size of Chorus's tables and indexes. */
  bytes: number;
  /** SQLite only: the write-ahead log beside it. */
  wal_bytes: number | null;
  tables: { name: string; rows: number }[];
}

export async function databaseOverview(engine: StoreEngine, sqliteFile: string | null): Promise<DatabaseOverview> {
  const tables: { name: string; rows: number }[] = [];
  for (const name of CHORUS_TABLES) {
    const query = bound(engine.db.selectFrom(sql.table(name).as('t')).select((eb) => eb.fn.countAll().as('n')));
    const row = await readFirst(engine, query).catch(() => undefined);
    if (row !== undefined) tables.push({ name, rows: toNumber(row.n) });
  }
  if (engine.kind === 'sqlite' && sqliteFile !== null) {
    const size = async (path: string): Promise<number> => (await stat(path).catch(() => null))?.size ?? 0;
    return { engine: 'sqlite', bytes: await size(sqliteFile), wal_bytes: await size(`${sqliteFile}-wal`), tables };
  }
  let bytes = 0;
  for (const { name } of tables) {
    const query = compiled(
      sql<{ n: DbNumber }>`SELECT pg_total_relation_size(${sql.lit(name)}::regclass) AS n`,
      engine.db,
    );
    const row = await readFirst(engine, query).catch(() => undefined);
    bytes += toNumberOr(row?.n, 0);
  }
  return { engine: engine.kind, bytes, wal_bytes: null, tables };
}

export type ChorusTable = (typeof CHORUS_TABLES)[number];

export function isChorusTable(name: string): name is ChorusTable {
  return CHORUS_TABLES.some((table) => table === name);
}

/**
 * One page of a table in key order (read-only browsing). Only Chorus's own tables, which hold no
 * secret: tokens and credentials live in files of the data folder, never in the database.
 */
export async function tableRows(
  engine: StoreEngine,
  table: ChorusTable,
  offset: number,
  limit: number,
): Promise<Record<string, unknown>[]> {
  let query = engine.db.selectFrom(sql.table(table).as('t')).selectAll();
  for (const column of TABLE_KEYS[table] ?? ['id']) query = query.orderBy(sql.ref(column));
  const statement = bound(query.offset(offset).limit(limit));
  return readRows(engine, statement);
}

/** The key columns of the tables without an `id`, so a page is in a stable order. */
const TABLE_KEYS: Partial<Record<ChorusTable, readonly string[]>> = {
  bot_config: ['account'],
  reply_usage: ['context_hash', 'answer_hash', 'group_id'],
  console_daily_stats: ['day', 'self_id', 'group_id'],
  group_config: ['group_id'],
  user_config: ['user_id'],
  message_claims: ['claim_key'],
  agent_consent: ['self_id', 'user_id', 'platform'],
};

/** PostgreSQL: the schema Chorus's tables are in (the connection's search_path). */
export async function currentSchema(engine: StoreEngine): Promise<string> {
  const query = compiled(sql<{ schema: string | null }>`SELECT current_schema() AS schema`, engine.db);
  const row = await readFirst(engine, query);
  if (!row?.schema) throw new Error('the PostgreSQL connection has no current schema');
  return row.schema;
}
