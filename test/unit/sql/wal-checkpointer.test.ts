import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { SqliteEngine } from '../../../src/sql/engine-sqlite.ts';
import { exec, rows } from '../../../src/sql/program.ts';
import { WalCheckpointer } from '../../../src/sql/wal-checkpointer.ts';
import { waitFor } from '../../support/corpus-fakes.ts';

test('a checkpointer that cannot open its database reports it once and stops cleanly', async () => {
  let failures = 0;
  const checkpointer = new WalCheckpointer('/nonexistent-dir-chorus/x.db', 20, () => failures++);
  await waitFor(() => failures > 0, 10_000);
  // Some more of its 20 ms ticks, which must not report again.
  await new Promise((resolve) => setTimeout(resolve, 200));
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
  // However busy the machine, the worker's first ticks come; wait for their effect, not a time.
  let after = before;
  const deadline = Date.now() + 15_000;
  while (after <= before + 500_000 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    after = (await stat(path)).size;
  }
  await checkpointer.stop();
  assert.ok(after > before + 500_000, `database file grew from ${before} to ${after} bytes`);
  db.close();
  await rm(dir, { recursive: true, force: true });
});

test('a WAL grown past the bound by a burst behind a long reader shrinks with the next write', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-wal-'));
  const path = join(dir, 'x.db');
  const bound = 1024 * 1024;
  // No tables to migrate: the test creates its own.
  const engine = new SqliteEngine(path, { migrations: { provider: { getMigrations: async () => ({}) } }, walMaxBytes: bound });
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
