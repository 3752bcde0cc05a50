/**
 * Local hot keywords (CorpusStore.hotKeywords / aggregateLocalHotKeywords) and the contamination
 * cleanup scan on SQLite over a generated corpus (bench/store/shape.ts): time per call and the
 * worst event-loop stall while they run. A measurement, not an assertion.
 *
 *   node --import tsx bench/hot-keywords.ts [--n 1000000] [--runs 30] [--data-dir DIR] [--cleanup]
 *
 * --data-dir keeps the database (DIR/chorus.db) and reuses it on the next run instead of loading.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { aggregateLocalHotKeywords } from '../src/corpus/local-hot.ts';
import { CorpusStore, type HotKeywordsQuery } from '../src/store/corpus-store.ts';
import type { StoreEngine } from '../src/store/schema.ts';
import { openStore, type LocalStore } from '../src/store/open-store.ts';
import { Samples } from './lib/stats.ts';
import { withStallMonitor } from './lib/stall.ts';
import { fmt, formatTable } from './lib/table.ts';
import { CorpusGenerator } from './store/generate.ts';
import { loadSqlite } from './store/load-sqlite.ts';
import { DEFAULT_REPLY_SETTINGS } from './store/run-engine.ts';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '30' },
    'data-dir': { type: 'string' },
    cleanup: { type: 'boolean', default: false },
  },
});
const n = Number(values.n);
const runs = Number(values.runs);
const log = (line: string) => process.stderr.write(`${line}\n`);

const keep = values['data-dir'];
const dataDir = keep ?? mkdtempSync(join(tmpdir(), 'chorus-hot-'));
mkdirSync(dataDir, { recursive: true });
const path = join(dataDir, 'chorus.db');
const fresh = !existsSync(path);

let store: LocalStore | undefined;
try {
  store = await openStore({ databaseUrl: '', dataDir, poolMax: 1, reply: DEFAULT_REPLY_SETTINGS });
  if (fresh) await load(path);
  // The store over a wrapper that times each call: on SQLite a call runs synchronously, so its
  // duration is how long it held the event loop (robust to other processes sharing the cores).
  const timed = timingEngine(store.engine);
  const corpus = new CorpusStore(timed.engine, DEFAULT_REPLY_SETTINGS);
  const groups = groupSizes(path);
  const biggest = groups[0];
  const median = groups[Math.floor(groups.length / 2)];
  if (!biggest || !median) throw new Error('the corpus has no answers');
  log(`groups: biggest ${biggest.group_id} (${biggest.n} answers), median ${median.group_id} (${median.n})`);

  const idle = await withStallMonitor(() => new Promise((resolve) => setTimeout(resolve, 500)));
  const scenarios: [string, () => Promise<unknown>][] = [
    ['global 40 x 3', () => corpus.hotKeywords(query('global', 40, 3))],
    ['global 80 x 8', () => corpus.hotKeywords(query('global', 80, 8))],
    [`group (biggest) 40 x 3`, () => corpus.hotKeywords(query('group', 40, 3, biggest.group_id))],
    [`group (biggest) 80 x 8`, () => corpus.hotKeywords(query('group', 80, 8, biggest.group_id))],
    [`group (median) 40 x 3`, () => corpus.hotKeywords(query('group', 40, 3, median.group_id))],
    ['aggregateLocalHotKeywords defaults', () => aggregateLocalHotKeywords(corpus, {})],
  ];
  const rows: string[][] = [];
  for (const [name, call] of scenarios) {
    await call(); // warm the page cache and the statement cache
    const samples = new Samples(runs);
    timed.reset();
    const { maxStallMs } = await withStallMonitor(async () => {
      for (let run = 0; run < runs; run++) {
        const started = performance.now();
        await call();
        samples.add(performance.now() - started);
      }
    });
    const s = samples.summary();
    rows.push([
      name,
      fmt(s.p50, 2),
      fmt(s.p99, 2),
      fmt(s.max, 2),
      fmt(timed.calls / runs, 1),
      fmt(timed.longestMs, 2),
      fmt(maxStallMs, 2),
    ]);
  }
  if (values.cleanup) {
    // A phrase found nowhere: the whole answer-message table and message log are scanned.
    timed.reset();
    const { elapsedMs, maxStallMs } = await withStallMonitor(() =>
      corpus.deletePollutedMessages({ phrases: ['\u0001never'], exempt: [], maxDelete: 20_000 }),
    );
    rows.push([
      'deletePollutedMessages (full scan)',
      fmt(elapsedMs),
      '',
      '',
      fmt(timed.calls, 0),
      fmt(timed.longestMs, 2),
      fmt(maxStallMs, 2),
    ]);
  }
  console.log(
    `SQLite, ${n.toLocaleString('en')} contexts, ${runs} calls each (idle stall ${fmt(idle.maxStallMs, 2)} ms)`,
  );
  console.log(
    formatTable(['scenario', 'p50 ms', 'p99 ms', 'max ms', 'calls', 'longest call ms', 'max stall ms'], rows),
  );
} finally {
  await store?.close();
  if (!keep) rmSync(dataDir, { recursive: true, force: true });
}

/** An engine that counts its calls and records the longest one. */
function timingEngine(inner: StoreEngine) {
  let calls = 0;
  let longestMs = 0;
  const engine: StoreEngine = {
    kind: inner.kind,
    db: inner.db,
    longTransactions: inner.longTransactions,
    pressure: () => inner.pressure(),
    migrate: () => inner.migrate(),
    close: () => inner.close(),
    run(program, options) {
      const started = performance.now();
      const result = inner.run(program, options);
      calls++;
      longestMs = Math.max(longestMs, performance.now() - started);
      return result;
    },
  };
  return {
    engine,
    get calls() {
      return calls;
    },
    get longestMs() {
      return longestMs;
    },
    reset() {
      calls = 0;
      longestMs = 0;
    },
  };
}

function query(
  scope: 'global' | 'group',
  limit: number,
  answersPerKeyword: number,
  groupId?: number,
): HotKeywordsQuery {
  return { scope, limit, answersPerKeyword, ...(groupId === undefined ? {} : { groupId }) };
}

/** Load the generated corpus, then set the answer count sums (the loader writes rows directly). */
async function load(file: string): Promise<void> {
  const generator = new CorpusGenerator({ seed: 20261122, now: Math.floor(Date.now() / 1000) });
  const started = performance.now();
  loadSqlite(file, generator, n, (done) => {
    if (done % 100_000 === 0)
      log(`loaded ${done}/${n} contexts in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  });
  const db = new BetterSqlite3(file);
  try {
    const recount = performance.now();
    db.exec(`UPDATE context SET answer_count_sum =
      (SELECT COALESCE(SUM(a.count), 0) FROM context_answer a WHERE a.context_id = context.id)`);
    log(`answer_count_sum set in ${((performance.now() - recount) / 1000).toFixed(1)} s`);
    db.exec('ANALYZE');
  } finally {
    db.close();
  }
}

function groupSizes(file: string): { group_id: number; n: number }[] {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return db.prepare('SELECT group_id, COUNT(*) AS n FROM context_answer GROUP BY group_id ORDER BY n DESC').all() as {
      group_id: number;
      n: number;
    }[];
  } finally {
    db.close();
  }
}
