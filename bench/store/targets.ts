import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { corpusQueries } from '../../src/store/corpus-queries.ts';
import type { ReplySettings } from '../../src/store/corpus-store.ts';
import { openStore, type LocalStore } from '../../src/store/open-store.ts';
import type { BareDriver } from './bare.ts';
import { PostgresBare } from './bare-postgres.ts';
import { SqliteBare } from './bare-sqlite.ts';
import type { CorpusGenerator } from './generate.ts';
import { loadPostgres } from './load-postgres.ts';
import { loadSqlite } from './load-sqlite.ts';
import { bareStatements } from './statements.ts';

/** Enough connections for 8 concurrent writers plus a reader. */
const POOL_MAX = 10;

/** A store opened with openStore (schema from our migrations), its bare driver, and how to load it. */
export interface Target {
  readonly store: LocalStore;
  readonly bare: BareDriver;
  /** The SQLite file, for a benchmark's own bare connection. */
  readonly path?: string;
  /** The PostgreSQL schema the store lives in. */
  readonly schema?: string;
  load(generator: CorpusGenerator, n: number, progress: (done: number) => void): Promise<void>;
  /** Size on disk, for the report. */
  sizeBytes(): Promise<number>;
  dispose(): Promise<void>;
}

export async function openSqliteTarget(settings: ReplySettings): Promise<Target> {
  const dataDir = mkdtempSync(join(tmpdir(), 'chorus-bench-'));
  const path = join(dataDir, 'chorus.db');
  let store: LocalStore | undefined;
  try {
    store = await openStore({ databaseUrl: '', dataDir, poolMax: POOL_MAX, reply: settings });
    const bare = new SqliteBare(path, bareStatements(corpusQueries(store.engine.db)), settings);
    const opened = store;
    return {
      store: opened,
      bare,
      path,
      load: async (generator, n, progress) => loadSqlite(path, generator, n, progress),
      sizeBytes: async () => statSync(path).size,
      dispose: async () => {
        await bare.close();
        await opened.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await store?.close().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

export async function openPostgresTarget(url: string, settings: ReplySettings): Promise<Target> {
  const schema = `chorus_bench_${process.pid}`;
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  const dropSchema = () => admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  const direct = new pg.Pool({ connectionString: url, max: 2, options: `-c search_path=${schema}` });
  let store: LocalStore | undefined;
  try {
    await dropSchema();
    store = await openStore({ databaseUrl: url, dataDir: tmpdir(), poolMax: POOL_MAX, reply: settings, schema });
    const bare = new PostgresBare(direct, bareStatements(corpusQueries(store.engine.db)), settings);
    const opened = store;
    return {
      store: opened,
      bare,
      schema,
      load: (generator, n, progress) => loadPostgres(direct, generator, n, progress),
      sizeBytes: async () => {
        const result = await admin.query<{ bytes: string }>(
          `SELECT sum(pg_total_relation_size(c.oid))::bigint AS bytes FROM pg_class c
           JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = $1 AND c.relkind = 'r'`,
          [schema],
        );
        return Number(result.rows[0]?.bytes ?? 0);
      },
      dispose: async () => {
        await opened.close();
        await bare.close();
        await dropSchema();
        await admin.end();
      },
    };
  } catch (error) {
    await store?.close().catch(() => undefined);
    await direct.end().catch(() => undefined);
    await dropSchema().catch(() => undefined);
    await admin.end().catch(() => undefined);
    throw error;
  }
}
