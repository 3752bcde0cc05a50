import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { WalCheckpointer } from '../../../src/store/wal-checkpointer.ts';

test('a checkpointer that cannot open its database reports it once and stops cleanly', async () => {
  let failures = 0;
  const checkpointer = new WalCheckpointer('/nonexistent-dir-chorus/x.db', 20, 1 << 30, () => failures++);
  await new Promise((resolve) => setTimeout(resolve, 300));
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
  const checkpointer = new WalCheckpointer(path, 20, 1 << 30, () => assert.fail('the worker failed'));
  await new Promise((resolve) => setTimeout(resolve, 500));
  await checkpointer.stop();
  const after = (await stat(path)).size;
  assert.ok(after > before + 500_000, `database file grew from ${before} to ${after} bytes`);
  db.close();
  await rm(dir, { recursive: true, force: true });
});

test('a WAL grown past the bound by a burst behind a long reader shrinks once the reader is gone', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-wal-'));
  const path = join(dir, 'x.db');
  const db = new BetterSqlite3(path);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE t (v TEXT)');
  const bound = 1024 * 1024;
  const checkpointer = new WalCheckpointer(path, 20, bound, () => assert.fail('the worker failed'));
  // A reader holding an old snapshot keeps every frame in the WAL, as a long query does in a burst.
  const reader = new BetterSqlite3(path);
  reader.exec('BEGIN');
  reader.prepare('SELECT count(*) FROM t').get();
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  for (let i = 0; i < 20_000; i++) insert.run('x'.repeat(500));
  const burst = (await stat(`${path}-wal`)).size;
  assert.ok(burst > 8 * bound, `the burst grew the WAL to ${burst} bytes`);
  reader.exec('COMMIT');
  reader.close();
  const deadline = Date.now() + 5000;
  let size = burst;
  while (Date.now() < deadline && size > bound) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    size = (await stat(`${path}-wal`)).size;
  }
  await checkpointer.stop();
  assert.ok(size <= bound, `the WAL is ${size} bytes after the burst (bound ${bound})`);
  assert.equal((db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n, 20_000, 'nothing lost');
  db.close();
  await rm(dir, { recursive: true, force: true });
});
