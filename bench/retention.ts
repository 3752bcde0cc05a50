/**
 * Message-log retention on SQLite: a log of N rows trimmed to half by age, measured as rows
 * deleted per second and the worst event-loop stall, beside the bare driver's single DELETE of the
 * same rows (fast, but it holds the loop for all of it).
 *
 *   npm run bench:retention [-- --quick] [--n 1000000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { MessageRetention } from '../src/store/message-retention.ts';
import { openStore } from '../src/store/open-store.ts';
import { withStallMonitor } from './lib/stall.ts';
import { fmt, formatTable } from './lib/table.ts';
import { DEFAULT_REPLY_SETTINGS } from './store/run-engine.ts';

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, n: { type: 'string' } } });
const n = Number(values.n ?? (values.quick ? 100_000 : 1_000_000));
const NOW = 1_800_000_000;

function fill(path: string): void {
  const db = new BetterSqlite3(path);
  const insert = db.prepare(
    `INSERT INTO message (group_id, user_id, bot_id, raw_message, is_plain_text, plain_text, keywords, sender_name, message_id, reply_to_message_id, time)
     VALUES (?, ?, 1, ?, 1, ?, ?, 'n', ?, NULL, ?)`,
  );
  const many = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const text = `第${i}条消息内容`;
      insert.run(100 + (i % 50), 1000 + (i % 997), text, text, text, i, NOW - (n - i) * 10);
    }
  });
  for (let from = 0; from < n; from += 50_000) many(from, Math.min(n, from + 50_000));
  db.close();
}

const root = mkdtempSync(join(tmpdir(), 'chorus-retention-bench-'));
try {
  const dirs = [join(root, 'ours'), join(root, 'bare')];
  for (const dir of dirs) {
    const store = await openStore({ databaseUrl: '', dataDir: dir, poolMax: 1, reply: DEFAULT_REPLY_SETTINGS });
    await store.close();
    fill(join(dir, 'chorus.db'));
  }
  const cutoffDays = (n * 10) / 2 / 86_400;
  const store = await openStore({ databaseUrl: '', dataDir: dirs[0] ?? '', poolMax: 1, reply: DEFAULT_REPLY_SETTINGS });
  const retention = new MessageRetention(store.engine);
  const ours = await withStallMonitor(() => retention.apply({ days: cutoffDays, maxRows: null }, NOW));
  await store.close();

  const bareDb = new BetterSqlite3(join(dirs[1] ?? '', 'chorus.db'));
  const bare = await withStallMonitor(async () => {
    return bareDb.prepare('DELETE FROM message WHERE time < ?').run(NOW - cutoffDays * 86_400).changes;
  });
  bareDb.close();

  const oursRate = (ours.result / ours.elapsedMs) * 1000;
  const bareRate = (bare.result / bare.elapsedMs) * 1000;
  console.log(`SQLite message log of ${n.toLocaleString('en')} rows, half deleted by age`);
  console.log(
    formatTable(
      ['', 'rows deleted', 'rows/s', 'seconds', 'max stall ms'],
      [
        [
          'retention job',
          String(ours.result),
          fmt(oursRate, 0),
          fmt(ours.elapsedMs / 1000, 2),
          fmt(ours.maxStallMs, 1),
        ],
        ['bare DELETE', String(bare.result), fmt(bareRate, 0), fmt(bare.elapsedMs / 1000, 2), fmt(bare.maxStallMs, 1)],
      ],
    ),
  );
  console.log(
    `RESULT bench:retention rows=${n} deleted=${ours.result} rows_per_sec=${Math.round(oursRate)} bare_rows_per_sec=${Math.round(bareRate)} ` +
      `ratio=${(oursRate / bareRate).toFixed(2)} max_stall_ms=${fmt(ours.maxStallMs, 1)} bare_stall_ms=${fmt(bare.maxStallMs, 1)}`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
