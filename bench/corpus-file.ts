/**
 * The portable corpus file on SQLite: export of a generated corpus (bench/store/shape.ts) and its
 * import into an empty store, in contexts per second, with the worst event-loop stall of each
 * (how long a running bot could not answer). Beside the export: the bare driver reading the same
 * rows (every context, answer, message and ban, one pass each), the floor of any export. Also a
 * console backup of the same database (SQLite's online backup API, as the backup job runs it),
 * with its worst stall.
 *
 *   npm run bench:corpus-file [-- --quick] [--n 1000000]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { exportCorpus, importCorpus } from '../src/ops/corpus-file/index.ts';
import { openStore } from '../src/store/open-store.ts';
import { withStallMonitor } from './lib/stall.ts';
import { fmt, formatTable } from './lib/table.ts';
import { CorpusGenerator } from './store/generate.ts';
import { loadSqlite } from './store/load-sqlite.ts';
import { DEFAULT_REPLY_SETTINGS } from './store/run-engine.ts';

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, n: { type: 'string' } } });
const n = Number(values.n ?? (values.quick ? 20_000 : 1_000_000));
const log = (line: string) => process.stderr.write(`${line}\n`);

const root = mkdtempSync(join(tmpdir(), 'chorus-corpus-file-bench-'));
try {
  const sourceDir = join(root, 'source');
  const source = await openStore({ databaseUrl: '', dataDir: sourceDir, poolMax: 1, reply: DEFAULT_REPLY_SETTINGS });
  await source.close();
  const generator = new CorpusGenerator({ seed: 20261124, now: Math.floor(Date.now() / 1000) });
  loadSqlite(join(sourceDir, 'chorus.db'), generator, n, () => undefined);
  log(`loaded ${n} contexts (${generator.totals.answers} answers, ${generator.totals.messages} messages)`);

  const bareMs = bareRead(join(sourceDir, 'chorus.db'));
  const store = await openStore({ databaseUrl: '', dataDir: sourceDir, poolMax: 1, reply: DEFAULT_REPLY_SETTINGS });
  const file = join(root, 'corpus.jsonl.gz');
  const exported = await withStallMonitor(() =>
    exportCorpus(store.corpus, file, { generator: 'bench', nowSec: Math.floor(Date.now() / 1000) }),
  );
  log(`exported ${exported.result.contexts} contexts, ${statSync(file).size} bytes`);
  const backupFile = join(root, 'backup.db');
  const backup = await withStallMonitor(async () => {
    if (!store.engine.backupTo) throw new Error('SQLite has an online backup');
    await store.engine.backupTo(backupFile);
  });
  await store.close();
  const backupBytes = statSync(backupFile).size;
  log(`backed up ${backupBytes} bytes`);

  const target = await openStore({
    databaseUrl: '',
    dataDir: join(root, 'target'),
    poolMax: 1,
    reply: DEFAULT_REPLY_SETTINGS,
  });
  const imported = await withStallMonitor(() => importCorpus(target.corpus, file));
  const again = await withStallMonitor(() => importCorpus(target.corpus, file));
  await target.close();

  const rate = (contexts: number, ms: number) => (contexts / ms) * 1000;
  const exportRate = rate(exported.result.contexts, exported.elapsedMs);
  const bareRate = rate(n, bareMs);
  const importRate = rate(imported.result.contexts_read, imported.elapsedMs);
  const againRate = rate(again.result.contexts_read, again.elapsedMs);
  console.log(`SQLite, ${n.toLocaleString('en')} contexts, file ${(statSync(file).size / 1e6).toFixed(1)} MB`);
  console.log(
    formatTable(
      ['step', 'contexts/s', 'seconds', 'max stall ms', 'bare driver contexts/s', 'ratio'],
      [
        [
          'export',
          fmt(exportRate, 0),
          fmt(exported.elapsedMs / 1000, 1),
          fmt(exported.maxStallMs, 1),
          fmt(bareRate, 0),
          (exportRate / bareRate).toFixed(2),
        ],
        [
          'import (empty store)',
          fmt(importRate, 0),
          fmt(imported.elapsedMs / 1000, 1),
          fmt(imported.maxStallMs, 1),
          '',
          '',
        ],
        [
          `backup (${(backupBytes / 1e6).toFixed(0)} MB database)`,
          fmt(rate(n, backup.elapsedMs), 0),
          fmt(backup.elapsedMs / 1000, 1),
          fmt(backup.maxStallMs, 1),
          '',
          '',
        ],
        [
          'import again (no change)',
          fmt(againRate, 0),
          fmt(again.elapsedMs / 1000, 1),
          fmt(again.maxStallMs, 1),
          '',
          '',
        ],
      ],
    ),
  );
  console.log(
    `RESULT bench:corpus-file contexts=${n} export_per_sec=${Math.round(exportRate)} bare_read_per_sec=${Math.round(bareRate)} ` +
      `ratio=${(exportRate / bareRate).toFixed(2)} import_per_sec=${Math.round(importRate)} ` +
      `export_stall_ms=${fmt(exported.maxStallMs, 1)} import_stall_ms=${fmt(imported.maxStallMs, 1)} ` +
      `backup_sec=${fmt(backup.elapsedMs / 1000, 1)} backup_stall_ms=${fmt(backup.maxStallMs, 1)}`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}

/** Every row the export needs, read by the driver alone in one pass per table. */
function bareRead(path: string): number {
  const db = new BetterSqlite3(path, { readonly: true });
  try {
    const started = performance.now();
    let seen = 0;
    for (const table of ['context', 'context_answer', 'context_answer_message', 'context_ban']) {
      for (const row of db.prepare(`SELECT * FROM ${table} ORDER BY id`).iterate()) if (row) seen++;
    }
    if (seen === 0) throw new Error('nothing read');
    return performance.now() - started;
  } finally {
    db.close();
  }
}
