import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SqlEngine } from '../sql/engine.ts';
import { isPostgresUrl } from '../sql/engine-kind.ts';
import { PostgresEngine } from '../sql/engine-postgres.ts';
import { SqliteEngine } from '../sql/engine-sqlite.ts';
import { HubStore } from './hub-store.ts';
import { hubMigrations } from './migrations.ts';
import type { HubDatabase } from './schema.ts';

export const HUB_SQLITE_FILE = 'hub.db';

/**
 * Every hub request writes (usage and rate counters at least), and a durable commit costs a WAL
 * flush (about 3 ms on this machine, against 0.3 ms without). The hub acknowledges without waiting
 * for it: a PostgreSQL crash may lose the last fraction of a second of counters and contributions
 * (never consistency), which community data can afford.
 */
const HUB_POSTGRES_SESSION = { synchronous_commit: 'off' } as const;

export interface HubStoreOptions {
  /** '' = SQLite at `<dataDir>/hub.db`; `postgres://…` or `postgresql://…` = PostgreSQL. */
  databaseUrl: string;
  dataDir: string;
  poolMax: number;
  /** PostgreSQL schema (default: the server's search_path). */
  schema?: string;
  onIdleError?: (error: Error) => void;
}

/** Open the configured engine with the hub's migrations and apply them. */
export async function openHubStore(options: HubStoreOptions): Promise<HubStore> {
  const engine = createEngine(options);
  try {
    await engine.migrate();
  } catch (error) {
    await engine.close().catch(() => undefined);
    throw error;
  }
  return new HubStore(engine);
}

function createEngine(options: HubStoreOptions): SqlEngine<HubDatabase> {
  if (isPostgresUrl(options.databaseUrl)) {
    return new PostgresEngine<HubDatabase>({
      url: options.databaseUrl,
      poolMax: options.poolMax,
      migrations: hubMigrations('postgres'),
      sessionSettings: HUB_POSTGRES_SESSION,
      ...(options.schema !== undefined ? { schema: options.schema } : {}),
      ...(options.onIdleError ? { onIdleError: options.onIdleError } : {}),
    });
  }
  if (options.databaseUrl !== '') throw new Error('the hub database URL must be empty (SQLite) or a postgres:// URL');
  mkdirSync(options.dataDir, { recursive: true });
  return new SqliteEngine<HubDatabase>(join(options.dataDir, HUB_SQLITE_FILE), { migrations: hubMigrations('sqlite') });
}
