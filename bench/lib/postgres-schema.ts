/**
 * A scratch PostgreSQL schema for a benchmark: created empty, handed out as a connection URL whose
 * search_path is that schema (so Chorus migrates and writes only there), dropped at the end, so a
 * run never touches other data in the database.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const DEFAULT_BENCH_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

export interface ScratchSchema {
  readonly name: string;
  /** The database URL with `search_path` and `application_name` set to the schema. */
  readonly url: string;
  /** Drops the schema and everything in it; idempotent. */
  drop(): Promise<void>;
}

export async function createScratchSchema(databaseUrl: string, prefix: string): Promise<ScratchSchema> {
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA "${name}"`);
  } finally {
    await admin.end();
  }
  const separator = databaseUrl.includes('?') ? '&' : '?';
  const url =
    `${databaseUrl}${separator}options=${encodeURIComponent(`-c search_path=${name}`)}` +
    `&application_name=${encodeURIComponent(name)}`;
  let dropped: Promise<void> | undefined;
  return {
    name,
    url,
    drop: () =>
      (dropped ??= (async () => {
        const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
        await client.connect();
        try {
          await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
        } finally {
          await client.end();
        }
      })()),
  };
}

/**
 * Process ids of the server backends serving connections named `applicationName` (a scratch
 * schema's URL names its connections after the schema), for reading their CPU time.
 */
export async function backendPids(databaseUrl: string, applicationName: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    const result = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [
      applicationName,
    ]);
    return result.rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}
