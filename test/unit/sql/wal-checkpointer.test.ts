import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { SqliteEngine } from '../../../src/sql/engine-sqlite.ts';
import { exec, rows } from '../../../src/sql/program.ts';
import { WalCheckpointer } from '../../../src/sql/wal-checkpointer.ts';

test('a checkpointer that cannot open its database reports it once and stops cleanly', async () => {
  let failures = 0;
  const checkpointer = new WalCheckpointer('/nonexistent-dir-chorus/x.db', 20, () => failures++);
  // A worker thread starts in a few hundred milliseconds, more on a loaded machine.
  const deadline = Date.now() + 10_000;
  while (failures === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  checkpointer.written();
  assert.equal(failures, 1);
  await checkpointer.stop();
});

test('the checkpointer moves the WAL into the database file while the writer never checkpoints', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-wal-'));
  const path = join(dir, 'x.db');
  const db = new BetterSqlite3(path);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE t (v TEXT)');
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  for (let i = 0; i < 2000; i++) insert.run('x'.repeat(500));
  const before = (await stat(path)).size;
  const checkpointer = new WalCheckpointer(path, 20, () => assert.fail('the worker failed'));
  const deadline = Date.now() + 10_000;
  while (checkpointer.checkpoints === 0 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 10));
  await checkpointer.stop();
  const after = (await stat(path)).size;
  assert.ok(after > before + 500_000, `database file grew from ${before} to ${after} bytes`);
  db.close();
  await rm(dir, { recursive: true, force: true });
});

test('a WAL grown past the bound by a burst behind a long reader shrinks with the next write', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-wal-'));
  const path = join(dir, 'x.db');
  const bound = 1024 * 1024;
  // No tables to migrate: the test creates its own.
  const engine = new SqliteEngine(path, {
    migrations: { provider: { getMigrations: async () => ({}) } },
    walMaxBytes: bound,
  });
  await engine.run(() => exec({ sql: 'CREATE TABLE t (v TEXT)', parameters: [] }), { write: true });
  // A reader holding an old snapshot keeps every frame in the WAL, as a long query does in a burst.
  const reader = new BetterSqlite3(path);
  reader.exec('BEGIN');
  reader.prepare('SELECT count(*) FROM t').get();
  for (let batch = 0; batch < 40; batch++) {
    await engine.run(
      function* () {
        for (let i = 0; i < 500; i++)
          yield* exec({ sql: 'INSERT INTO t (v) VALUES (?)', parameters: ['x'.repeat(500)] });
      },
      { write: true },
    );
  }
  const burst = (await stat(`${path}-wal`)).size;
  assert.ok(burst > 8 * bound, `the burst grew the WAL to ${burst} bytes`);
  reader.exec('COMMIT');
  reader.close();
  // The checkpointer copies the WAL into the database; the bot's next write then cuts the file.
  const deadline = Date.now() + 5000;
  let size = burst;
  while (Date.now() < deadline && size > bound) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    await engine.run(() => exec({ sql: 'INSERT INTO t (v) VALUES (?)', parameters: ['after'] }), { write: true });
    size = (await stat(`${path}-wal`)).size;
  }
  assert.ok(size <= bound, `the WAL is ${size} bytes after the burst (bound ${bound})`);
  const counted = await engine.run(() => rows<{ n: number }>({ sql: 'SELECT count(*) AS n FROM t', parameters: [] }));
  assert.ok((counted[0]?.n ?? 0) >= 20_000, 'nothing lost');
  await engine.close();
  await rm(dir, { recursive: true, force: true });
});

test('the checkpointer runs after writes only: nothing is asked for while the database is idle (docs/rules.md#idle-quiet)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-wal-'));
  const path = join(dir, 'x.db');
  const engine = new SqliteEngine(path, { migrations: { provider: { getMigrations: async () => ({}) } } });
  const checkpointer = engine.checkpointer;
  assert.ok(checkpointer, 'a database on disk has a checkpointer');
  const until = async (condition: () => boolean, what: string) => {
    const deadline = Date.now() + 10_000;
    while (!condition()) {
      assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  // The one checkpoint at start, for what was written before the worker ran.
  await until(() => checkpointer.checkpoints === 1, 'the start checkpoint');
  await engine.run(() => rows({ sql: 'SELECT 1 AS one', parameters: [] }));
  assert.equal(checkpointer.pending, false, 'a read asks for no checkpoint');
  await engine.run(() => exec({ sql: 'CREATE TABLE t (v TEXT)', parameters: [] }), { write: true });
  assert.equal(checkpointer.pending, true, 'a write asks for one');
  await until(() => checkpointer.checkpoints === 2 && !checkpointer.pending, 'the checkpoint after the write');
  for (let i = 0; i < 50; i++)
    await engine.run(() => exec({ sql: 'INSERT INTO t (v) VALUES (?)', parameters: [String(i)] }));
  await until(() => !checkpointer.pending, 'the checkpoint after the inserts');
  assert.ok(
    checkpointer.checkpoints <= 4,
    `fifty writes in a burst: ${checkpointer.checkpoints - 2} checkpoints, not one each`,
  );
  await engine.close();
  await rm(dir, { recursive: true, force: true });
});
