/**
 * Several deployments on one PostgreSQL database start at once: Kysely's migrator scans the
 * catalog of every schema before it takes its lock, and another deployment renaming a column of
 * its own during that scan made ours fail with 42703 (a CI run saw it between two test files).
 * Here one connection renames a column of another schema back and forth without pause while
 * fresh schemas are migrated one after another: every migration succeeds. All of it happens in a
 * database of its own, so that the churn does not reach the other test files' migrations.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import pg from 'pg';
import { PostgresEngine } from '../../src/sql/engine-postgres.ts';
import { migrationProvider } from '../../src/store/migrations.ts';
import { freshSchemaName, PG_URL, requirePostgres } from '../support/engines.ts';

const MIGRATIONS = 10;

it('a migration survives another schema renaming its columns during the catalog scan', async (t) => {
  if (!requirePostgres(t)) return;
  const database = freshSchemaName();
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${database}"`);
  const url = new URL(PG_URL);
  url.pathname = `/${database}`;
  const databaseUrl = url.toString();
  const other = freshSchemaName();
  const renamer = new pg.Client({ connectionString: databaseUrl });
  await renamer.connect();
  let renaming = true;
  let renames = 0;
  t.after(async () => {
    renaming = false;
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin.end();
  });

  await renamer.query(`CREATE SCHEMA "${other}"`);
  // Many columns, so that the scan spends long on this schema's rows.
  const columns = Array.from({ length: 40 }, (_, i) => `c${i} integer`).join(', ');
  await renamer.query(`CREATE TABLE "${other}".churn (${columns})`);
  const churn = (async () => {
    let name = 'c0';
    while (renaming) {
      const next = name === 'c0' ? 'c0_renamed' : 'c0';
      await renamer.query(`ALTER TABLE "${other}".churn RENAME COLUMN ${name} TO ${next}`);
      name = next;
      renames++;
    }
    await renamer.end();
  })();

  try {
    for (let i = 0; i < MIGRATIONS; i++) {
      const engine = new PostgresEngine({
        url: databaseUrl,
        poolMax: 2,
        schema: freshSchemaName(),
        migrations: { provider: migrationProvider('postgres') },
      });
      try {
        await engine.migrate();
      } finally {
        await engine.close();
      }
    }
  } finally {
    renaming = false;
    await churn;
  }
  assert.ok(renames > MIGRATIONS, `the other schema kept changing during the migrations (${renames} renames)`);
});
