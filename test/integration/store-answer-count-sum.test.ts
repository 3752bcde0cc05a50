/**
 * Contract of `context.answer_count_sum` (migration 0002): every write keeps it equal to the sum of
 * the context's answer counts, on SQLite and PostgreSQL, including under concurrency.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { Migrator, sql } from 'kysely';
import pg from 'pg';
import type { StoreEngine } from '../../src/store/schema.ts';
import { PostgresEngine } from '../../src/sql/engine-postgres.ts';
import { SqliteEngine } from '../../src/sql/engine-sqlite.ts';
import { keywordsHash } from '../../src/domain/keywords-hash.ts';
import { migrationProvider, storeMigrations } from '../../src/store/migrations.ts';
import { answer, context, learn } from '../support/corpus-data.ts';
import { forEachEngine, freshSchemaName, PG_URL, type TestStore } from '../support/engines.ts';

interface SumRow {
  keywords: string;
  stored: number;
  actual: number;
}

async function sums(engine: StoreEngine): Promise<SumRow[]> {
  const result = await sql<SumRow>`SELECT c.keywords, c.answer_count_sum AS stored,
      (SELECT COALESCE(SUM(a.count), 0) FROM context_answer a WHERE a.context_id = c.id) AS actual
    FROM context c ORDER BY c.id`.execute(engine.db);
  return result.rows.map((row) => ({ keywords: row.keywords, stored: Number(row.stored), actual: Number(row.actual) }));
}

/** The stored sum of `keywords`, after checking that every context's stored sum is exact. */
async function sumOf(store: TestStore, keywords: string): Promise<number> {
  const all = await sums(store.engine);
  for (const row of all) assert.equal(row.stored, row.actual, `answer_count_sum of ${JSON.stringify(row.keywords)}`);
  const row = all.find((r) => r.keywords === keywords);
  assert.ok(row, `context ${JSON.stringify(keywords)} exists`);
  return row.stored;
}

forEachEngine((engine) => {
  it('learn_answer: a new context starts at 1, every learn adds 1', async (t) => {
    const store = await engine.open(t);
    await store.corpus.learnAnswer(learn('k', 'a'));
    assert.equal(await sumOf(store, 'k'), 1);
    await store.corpus.learnAnswer(learn('k', 'a', { appendOnExisting: false }));
    assert.equal(await sumOf(store, 'k'), 2);
    await store.corpus.learnAnswer(learn('k', 'b'));
    await store.corpus.learnAnswer(learn('k', 'a', { groupId: 2 }));
    assert.equal(await sumOf(store, 'k'), 4);
  });

  it('upsert_answer adds 1 to an existing context and creates nothing for a missing one', async (t) => {
    const store = await engine.open(t);
    await store.corpus.insert(context('k', { answers: [answer('a', { count: 3 })] }));
    assert.equal(await sumOf(store, 'k'), 3);
    await store.corpus.upsertAnswer(learn('k', 'a'));
    await store.corpus.upsertAnswer(learn('k', 'new', { appendOnExisting: false }));
    assert.equal(await sumOf(store, 'k'), 5);
    await store.corpus.upsertAnswer(learn('missing', 'a'));
    assert.equal((await sums(store.engine)).length, 1);
  });

  it('insert sets the sum of the answers (duplicates merged); insert of an existing key changes nothing', async (t) => {
    const store = await engine.open(t);
    await store.corpus.insert(
      context('k', {
        answers: [
          answer('a', { count: 2 }),
          answer('b', { count: 3, groupId: 2 }),
          answer('a', { count: 4, messages: ['again'] }),
        ],
      }),
    );
    assert.equal(await sumOf(store, 'k'), 9);
    await store.corpus.insert(context('k', { answers: [answer('z', { count: 100 })] }));
    assert.equal(await sumOf(store, 'k'), 9);
    await store.corpus.insert(context('empty'));
    assert.equal(await sumOf(store, 'empty'), 0);
  });

  it('save sets the sum of the new answers, on creation and on overwrite', async (t) => {
    const store = await engine.open(t);
    await store.corpus.save(context('k', { answers: [answer('a', { count: 7 }), answer('b', { count: 1 })] }));
    assert.equal(await sumOf(store, 'k'), 8);
    await store.corpus.save(context('k', { answers: [answer('c', { count: 5 }), answer('c', { count: 1 })] }));
    assert.equal(await sumOf(store, 'k'), 6);
    await store.corpus.save(context('k'));
    assert.equal(await sumOf(store, 'k'), 0);
  });

  it('replace_answers sets the sum of the replacing answers (a repeated answer: the last count)', async (t) => {
    const store = await engine.open(t);
    await store.corpus.insert(context('k', { answers: [answer('a', { count: 9 }), answer('gone', { count: 4 })] }));
    await store.corpus.replaceAnswers('k', [answer('a', { count: 2 }), answer('new', { count: 7, groupId: 3 })], 1);
    assert.equal(await sumOf(store, 'k'), 9);
    await store.corpus.replaceAnswers('k', [answer('a', { count: 5 }), answer('a', { count: 1 })], 2);
    assert.equal(await sumOf(store, 'k'), 1);
    await store.corpus.replaceAnswers('k', [], 3);
    assert.equal(await sumOf(store, 'k'), 0);
  });

  it('replace_answers of more answers than one step (SQLite: several transactions) recounts', async (t) => {
    const store = await engine.open(t);
    const old = Array.from({ length: 600 }, (_, i) => answer(`a${i}`, { count: 2 }));
    await store.corpus.insert(context('big', { answers: old }));
    assert.equal(await sumOf(store, 'big'), 1200);
    const replacement = Array.from({ length: 700 }, (_, i) => answer(`a${i * 2}`, { count: 1 + (i % 3) }));
    const learns = Array.from({ length: 20 }, (_, i) => store.corpus.learnAnswer(learn('big', `a${i * 2}`)));
    await Promise.all([store.corpus.replaceAnswers('big', replacement, 5), ...learns]);
    await sumOf(store, 'big');
  });

  it('50 concurrent upserts: sum 50', async (t) => {
    const store = await engine.open(t);
    await store.corpus.insert(context('hot'));
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        store.corpus.upsertAnswer(learn('hot', `a${i % 5}`, { groupId: i % 2, message: `m${i}` })),
      ),
    );
    assert.equal(await sumOf(store, 'hot'), 50);
  });

  it('50 concurrent learn_answer on a fresh key: sum 50', async (t) => {
    const store = await engine.open(t);
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.corpus.learnAnswer(learn('fresh', `a${i % 3}`, { message: `m${i}` }))),
    );
    assert.equal(await sumOf(store, 'fresh'), 50);
  });

  it('concurrent replace_answers and learns on one context leave an exact sum', { timeout: 60_000 }, async (t) => {
    const store = await engine.open(t);
    await store.corpus.insert(context('busy', { answers: [answer('a', { messages: ['m'] }), answer('b')] }));
    for (let round = 0; round < 5; round++) {
      const learns = Array.from({ length: 20 }, (_, i) =>
        store.corpus.learnAnswer(learn('busy', i % 2 ? 'a' : 'b', { message: `r${round}-${i}` })),
      );
      const replace = store.corpus.replaceAnswers('busy', [answer('a', { count: 3 }), answer('b')], round);
      await Promise.all([...learns, replace]);
      await sumOf(store, 'busy');
    }
  });

  it('migration 0002 backfills the sum of existing answers', async (t) => {
    const migrated = await engineAt0001(t, engine.kind);
    const db = migrated.engine.db;
    const contextRow = (keywords: string) => ({
      keywords,
      keywords_hash: keywordsHash(keywords),
      time: 1,
      trigger_count: 1,
      clear_time: 0,
    });
    const [k1, k2] = await db
      .insertInto('context')
      .values([contextRow('k1'), contextRow('k2'), contextRow('none')])
      .returning('id')
      .execute();
    assert.ok(k1 && k2);
    const answerRow = (contextId: number, keywords: string, count: number) => ({
      context_id: contextId,
      keywords,
      keywords_hash: keywordsHash(keywords),
      group_id: 1,
      count,
      time: 1,
    });
    await db
      .insertInto('context_answer')
      .values([answerRow(k1.id, 'a', 3), answerRow(k1.id, 'b', 4), answerRow(k2.id, 'a', 1)])
      .execute();
    await migrated.engine.migrate();
    assert.deepEqual(
      (await sums(migrated.engine)).map((row) => [row.keywords, row.stored]),
      [
        ['k1', 7],
        ['k2', 1],
        ['none', 0],
      ],
    );
  });
});

/** An engine on a fresh database migrated to 0001 only (removed after the test). */
async function engineAt0001(
  t: { after(fn: () => Promise<void>): void },
  kind: 'sqlite' | 'postgres',
): Promise<{ engine: StoreEngine }> {
  let engine: StoreEngine;
  let migrationTableSchema: string | undefined;
  if (kind === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'chorus-0001-'));
    engine = new SqliteEngine(join(dir, 'chorus.db'), { migrations: storeMigrations('sqlite') });
    t.after(async () => {
      await engine.close();
      await rm(dir, { recursive: true, force: true });
    });
  } else {
    const schema = freshSchemaName();
    migrationTableSchema = schema;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA "${schema}"`);
    await admin.end();
    engine = new PostgresEngine({ url: PG_URL, poolMax: 2, schema, migrations: storeMigrations('postgres') });
    t.after(async () => {
      await engine.close();
      const dropper = new pg.Client({ connectionString: PG_URL });
      await dropper.connect();
      await dropper.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await dropper.end();
    });
  }
  const migrator = new Migrator({
    db: engine.db,
    provider: migrationProvider(kind),
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
  });
  const { error } = await migrator.migrateTo('0001_corpus');
  if (error) throw error;
  return { engine };
}
