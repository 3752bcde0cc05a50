import { join } from 'node:path';
import { silentLog, type Log } from '../common/log.ts';
import { ensurePrivateDirSync } from '../config/index.ts';
import { CorpusStore, type ReplySettings } from './corpus-store.ts';
import { isPostgresUrl } from '../sql/engine-kind.ts';
import { PostgresEngine } from '../sql/engine-postgres.ts';
import { SqliteEngine } from '../sql/engine-sqlite.ts';
import { ActivityLog } from './activity-log.ts';
import { BlacklistStore, GroupMessageStore } from './group-log-store.ts';
import { storeMigrations } from './migrations.ts';
import type { StoreEngine } from './schema.ts';

export interface StoreOptions {
  /** '' = SQLite at `<dataDir>/chorus.db`; `postgres://…` or `postgresql://…` = PostgreSQL. */
  databaseUrl: string;
  dataDir: string;
  poolMax: number;
  reply: ReplySettings;
  /** PostgreSQL schema (default: the server's search_path). */
  schema?: string;
  onIdleError?: (error: Error) => void;
  /** Where a failed activity-log write is reported (the change itself stands). */
  log?: Log;
}

export interface LocalStore {
  readonly engine: StoreEngine;
  readonly corpus: CorpusStore;
  readonly messages: GroupMessageStore;
  readonly blacklists: BlacklistStore;
  /** Every change to what the bot says and where (docs/rules.md#activity-log). */
  readonly activity: ActivityLog;
  close(): Promise<void>;
}

/** Open the configured engine, apply migrations and build the repositories on it. */
export async function openStore(options: StoreOptions): Promise<LocalStore> {
  const engine = createEngine(options);
  try {
    await engine.migrate();
  } catch (error) {
    await engine.close().catch(() => undefined);
    throw error;
  }
  return {
    engine,
    corpus: new CorpusStore(engine, options.reply),
    messages: new GroupMessageStore(engine),
    blacklists: new BlacklistStore(engine),
    // Callers pass the entry's time from their own clock; this one is the fallback.
    activity: new ActivityLog(engine, { nowSec: () => Math.floor(Date.now() / 1000), log: options.log ?? silentLog }),
    close: () => engine.close(),
  };
}

function createEngine(options: StoreOptions): StoreEngine {
  if (isPostgresUrl(options.databaseUrl)) {
    return new PostgresEngine({
      url: options.databaseUrl,
      poolMax: options.poolMax,
      migrations: storeMigrations('postgres'),
      ...(options.schema !== undefined ? { schema: options.schema } : {}),
      ...(options.onIdleError ? { onIdleError: options.onIdleError } : {}),
    });
  }
  if (options.databaseUrl !== '') throw new Error('CHORUS_DATABASE_URL must be empty (SQLite) or a postgres:// URL');
  ensurePrivateDirSync(options.dataDir);
  return new SqliteEngine(join(options.dataDir, 'chorus.db'), { migrations: storeMigrations('sqlite') });
}
