import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { WalCheckpointer } from '../../../src/store/wal-checkpointer.ts';

test('a checkpointer that cannot open its database reports it once and stops cleanly', async () => {
  let failures = 0;
  const checkpointer = new WalCheckpointer('/nonexistent-dir-chorus/x.db', 20, () => failures++);
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
  const checkpointer = new WalCheckpointer(path, 20, () => assert.fail('the worker failed'));
  await new Promise((resolve) => setTimeout(resolve, 500));
  await checkpointer.stop();
  const after = (await stat(path)).size;
  assert.ok(after > before + 500_000, `database file grew from ${before} to ${after} bytes`);
  db.close();
  await rm(dir, { recursive: true, force: true });
});
