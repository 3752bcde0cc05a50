/**
 * Migration 0011_activity_log on both engines: a database that has console moderation entries in
 * `moderation_log` (migrations up to 0010) is opened by this version; the entries are in the
 * activity log as console entries with their actor split into level and address, their undo
 * snapshot still undoes them, and `moderation_log` is gone.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { keywordsHash } from '../../src/domain/keywords-hash.ts';
import type { MigrationSet, SqlEngine } from '../../src/sql/engine.ts';
import { PostgresEngine } from '../../src/sql/engine-postgres.ts';
import { SqliteEngine } from '../../src/sql/engine-sqlite.ts';
import { migrationProvider } from '../../src/store/migrations.ts';
import { ModerationStore } from '../../src/store/moderation-store.ts';
import { openStore, type LocalStore } from '../../src/store/open-store.ts';
import { DEFAULT_REPLY, forEachEngine, freshSchemaName, PG_URL } from '../support/engines.ts';

/** The bot's migrations as they were before 0011. */
function before0011(kind: 'sqlite' | 'postgres'): MigrationSet {
  return {
    provider: {
      getMigrations: async () =>
        Object.fromEntries(
          Object.entries(await migrationProvider(kind).getMigrations()).filter(([name]) => name < '0011'),
        ),
    },
  };
}

forEachEngine((engine) => {
  it('copies moderation_log into the activity log, keeps its undo, and drops the old table', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'chorus-activity-migration-'));
    const schema = engine.kind === 'postgres' ? freshSchemaName() : undefined;
    const opened: LocalStore[] = [];
    t.after(async () => {
      for (const each of opened) await each.close();
      await rm(dir, { recursive: true, force: true });
      if (schema) {
        const admin = new pg.Client({ connectionString: PG_URL });
        await admin.connect();
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await admin.end();
      }
    });
    const old: SqlEngine<unknown> =
      engine.kind === 'sqlite'
        ? new SqliteEngine(join(dir, 'chorus.db'), { migrations: before0011('sqlite') })
        : new PostgresEngine({ url: PG_URL, poolMax: 2, schema: schema!, migrations: before0011('postgres') });
    await old.migrate();
    const db = old.db as Kysely<unknown>;
    await sql`INSERT INTO context (keywords, keywords_hash, time) VALUES ('早上 好', ${keywordsHash('早上 好')}, 100)`.execute(
      db,
    );
    const snapshot = JSON.stringify({
      kind: 'ban',
      ban: { id: 1, keywords: '早', groupId: 101, reason: '', time: 500 },
    });
    await sql`INSERT INTO context_ban (context_id, keywords, group_id, reason, time) VALUES (1, '早', 101, '', 500)`.execute(
      db,
    );
    await sql`INSERT INTO moderation_log (time, actor, action, context_id, context_keywords, answer_keywords,
        group_id, snapshot) VALUES (500, 'write session from 10.1.2.3', 'ban_group', 1, '早上 好', '早', 101, ${snapshot})`.execute(
      db,
    );
    await sql`INSERT INTO moderation_log (time, actor, action, context_id, context_keywords, answer_keywords,
        group_id, snapshot, undone_at, undone_by) VALUES (400, 'write header from ::1', 'ban_all', 1, '早上 好', '早',
        114514, ${snapshot}, 450, 'write header from ::1')`.execute(db);
    await old.close();

    const store = await openStore({
      databaseUrl: engine.kind === 'postgres' ? PG_URL : '',
      dataDir: dir,
      poolMax: 2,
      reply: DEFAULT_REPLY,
      ...(schema ? { schema } : {}),
    });
    opened.push(store);
    const { items } = await store.activity.list({ offset: 0, limit: 10 });
    assert.deepEqual(
      items.map((e) => [e.kind, e.actor.kind, e.actor.level, e.actor.address, e.scope, e.groupId, e.undoneAt]),
      [
        ['ban_all', 'console', 'write', '::1', 'everywhere', 114514, 450],
        ['ban_group', 'console', 'write', '10.1.2.3', 'group', 101, 0],
      ],
      'newest (highest id) first, ids in the old order',
    );
    const copied = items.find((e) => e.kind === 'ban_group')!;
    assert.deepEqual([copied.contextKeywords, copied.answerKeywords, copied.undoable], ['早上 好', '早', true]);
    const undone = await new ModerationStore(store.engine).undo(
      copied.id,
      { kind: 'console', level: 'write', address: '127.0.0.1' },
      600,
      86_400,
    );
    assert.equal(undone.entry.undoneAt, 600);
    assert.deepEqual((await store.corpus.findByKeywords('早上 好'))?.bans, []);
    await assert.rejects(sql`SELECT 1 FROM moderation_log`.execute(store.engine.db as Kysely<unknown>));
  });
});
