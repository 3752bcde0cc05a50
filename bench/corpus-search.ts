/**
 * bench:corpus-search: latency of the console's corpus search (`GET /corpus/search`, the store's
 * CorpusBrowser) on a generated corpus of N contexts, on SQLite and PostgreSQL.
 *
 * Our figure is a whole search page as the console asks for it (20 contexts, each with up to 20
 * answers, 3 sample messages and the bans). Beside it, the bare driver runs only the id range
 * query of a keywords prefix search on its own connection: the floor that an index read costs,
 * so the ratio shows what assembling the page adds. Cases:
 * - `keywords prefix`: the first two characters of an existing key (the console's default);
 * - `answer prefix`: the first character of a common answer, through the message-prefix index;
 * - `substring hit`: one common character anywhere (a scan that stops at the page's end);
 * - `substring miss`: text that occurs nowhere: the worst case, a scan to the end or to the
 *   search's time budget (few samples);
 * - `sentence (default)`: the console's default search since the corpus browser: a sentence as a
 *   member typed it (an existing key's words run together), contains, plus the lookup of the
 *   context its keywords name (few samples: the substring part scans like a miss);
 * - `browse …`: the browser without text: newest everywhere and in one group, most sent (over
 *   2,000 recorded sends; its ranking is then reused for 30 s), most banned.
 * Each case also shows the longest event-loop stall while it ran: a search must never freeze the
 * bot (SQLite runs on the event loop).
 *
 *   npm run bench:corpus-search [-- --quick] [--n N] [--engine sqlite|postgres|both]
 */
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import {
  CorpusBrowser,
  SEARCH_VIEW,
  type BrowseQuery,
  type SearchPage,
  type SearchQuery,
} from '../src/store/corpus-browse.ts';
import { ReplyUsageStore } from '../src/store/reply-usage.ts';
import { KEYWORDS_PAGE_PREFIX } from '../src/store/index-expressions.ts';
import type { EngineKind } from '../src/sql/engine-kind.ts';
import { mulberry32 } from './lib/rng.ts';
import { withStallMonitor } from './lib/stall.ts';
import { Samples, type Summary } from './lib/stats.ts';
import { fmt, formatTable } from './lib/table.ts';
import { parseBenchArgs, UsageError, type EngineChoice } from './store/args.ts';
import { CorpusGenerator } from './store/generate.ts';
import { DEFAULT_REPLY_SETTINGS } from './store/run-engine.ts';
import { contextKeywords, groupId } from './store/shape.ts';
import { openPostgresTarget, openSqliteTarget, type Target } from './store/targets.ts';

const PAGE = 20;

interface CaseResult {
  name: string;
  ours: Summary;
  bare: Summary | undefined;
  found: number;
  /** The longest the event loop was held while the case ran (SQLite runs on it). */
  maxStallMs: number;
}

/** The bare driver's keywords-prefix id query, on its own connection. */
type BareIdQuery = (prefix: string) => Promise<number>;

function bareSqlite(path: string): { run: BareIdQuery; close: () => void } {
  const db = new BetterSqlite3(path, { readonly: true });
  const expression = KEYWORDS_PAGE_PREFIX.sqlite;
  const statement = db.prepare(
    `SELECT id FROM context WHERE ${expression} >= ? AND ${expression} < ? ORDER BY id LIMIT ${PAGE + 1}`,
  );
  return {
    run: async (prefix) => statement.all(prefix, `${prefix}\u{10FFFF}`).length,
    close: () => db.close(),
  };
}

function barePostgres(url: string, schema: string): { run: BareIdQuery; close: () => Promise<void> } {
  const pool = new pg.Pool({ connectionString: url, max: 1, options: `-c search_path=${schema}` });
  const expression = KEYWORDS_PAGE_PREFIX.postgres;
  const text = `SELECT id FROM context WHERE ${expression} >= $1 AND ${expression} < $2 ORDER BY id LIMIT ${PAGE + 1}`;
  return {
    run: async (prefix) =>
      (await pool.query({ name: 'bare-search', text, values: [prefix, `${prefix}\u{10FFFF}`] })).rowCount ?? 0,
    close: () => pool.end(),
  };
}

async function measure(
  name: string,
  count: number,
  query: (index: number) => SearchQuery,
  browser: CorpusBrowser,
  bare?: BareIdQuery,
): Promise<CaseResult> {
  return measureRun(
    name,
    count,
    (index) => browser.search(query(index)),
    bare ? { bare, text: (i) => query(i).text } : undefined,
  );
}

/** Times `run` (one page as the console asks for it), beside the bare id query when given. */
async function measureRun(
  name: string,
  count: number,
  run: (index: number) => Promise<SearchPage>,
  floor?: { bare: BareIdQuery; text: (index: number) => string },
): Promise<CaseResult> {
  const bare = floor?.bare;
  const ours = new Samples(count);
  const bareSamples = bare ? new Samples(count) : undefined;
  let found = 0;
  const warmup = Math.min(50, Math.ceil(count / 10));
  const { maxStallMs } = await withStallMonitor(async () => {
    for (let index = -warmup; index < count; index++) {
      // Each search is its own request in the console: let the event loop turn between two, or a
      // run of SQLite searches (which settle without leaving the microtask queue) would show up as
      // one long stall.
      await new Promise((resolve) => setImmediate(resolve));
      if (bare && bareSamples && floor) {
        const started = performance.now();
        await bare(floor.text(index + warmup));
        if (index >= 0) bareSamples.add((performance.now() - started) * 1000);
      }
      const started = performance.now();
      const page = await run(index + warmup);
      if (index >= 0) {
        ours.add((performance.now() - started) * 1000);
        found += page.items.length;
      }
    }
  });
  return { name, ours: ours.summary(), bare: bareSamples?.summary(), found, maxStallMs };
}

async function runEngine(engine: EngineChoice, n: number, lookups: number, seed: number, url: string) {
  const log = (line: string) => process.stderr.write(`${engine}: ${line}\n`);
  const target: Target =
    engine === 'sqlite'
      ? await openSqliteTarget(DEFAULT_REPLY_SETTINGS)
      : await openPostgresTarget(url, DEFAULT_REPLY_SETTINGS);
  const bare = engine === 'sqlite' ? bareSqlite(target.path ?? '') : barePostgres(url, target.schema ?? 'public');
  try {
    const generator = new CorpusGenerator({ seed, now: Math.floor(Date.now() / 1000) });
    const started = performance.now();
    let lastStep = -1;
    await target.load(generator, n, (done) => {
      const step = Math.floor((10 * done) / n);
      if (step !== lastStep)
        log(`loaded ${done}/${n} contexts in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      lastStep = step;
    });
    const browser = new CorpusBrowser(target.store.engine);
    const random = mulberry32(seed);
    const key = () => contextKeywords(seed, Math.floor(random() * n));
    const answers = generator.vocabulary;
    const page = (text: string, field: SearchQuery['field'], match: SearchQuery['match']): SearchQuery => ({
      text,
      field,
      match,
      offset: 0,
      limit: PAGE,
    });
    const kind: EngineKind = engine;
    log(`searching (${kind})`);
    const results = [
      await measure(
        'keywords prefix',
        lookups,
        () => page([...key()].slice(0, 2).join(''), 'all', 'prefix'),
        browser,
        bare.run,
      ),
      await measure(
        'answer prefix',
        Math.ceil(lookups / 2),
        (index) => page([...(answers[index % 200]?.keywords ?? '的')][0] ?? '的', 'answer', 'prefix'),
        browser,
      ),
      await measure(
        'substring hit',
        Math.ceil(lookups / 4),
        () => page([...key()][1] ?? '的', 'keywords', 'substring'),
        browser,
      ),
      await measure('substring miss', 5, () => page('bench-absent-text', 'all', 'substring'), browser),
      await measureRun('sentence (default)', 5, () => {
        const typed = key();
        return browser.search(page(typed.replace(/ /g, ''), 'all', 'substring'), typed);
      }),
      ...(await browseCases(target, browser, n, seed, lookups)),
    ];
    return { engine, n, results, dbBytes: await target.sizeBytes() };
  } finally {
    await bare.close();
    await target.dispose();
  }
}

/** The browser without text, after recording 2,000 sends of random contexts' answers. */
async function browseCases(target: Target, browser: CorpusBrowser, n: number, seed: number, lookups: number) {
  const random = mulberry32(seed + 1);
  const sends = Array.from({ length: 2_000 }, (_, i) => ({
    contextKeywords: contextKeywords(seed, Math.floor(random() * n)),
    answerKeywords: `answer ${i % 50}`,
    groupId: groupId(i % 8),
    time: 1_700_000_000 + i,
    count: 1 + (i % 5),
  }));
  await new ReplyUsageStore(target.store.engine).record(sends);
  const browse = (order: BrowseQuery['order'], group: number | null) => () =>
    browser.browse({ order, groupId: group, everywhereGroup: 114514, offset: 0, limit: PAGE });
  const count = Math.ceil(lookups / 4);
  return [
    await measureRun('browse newest', count, browse('newest', null)),
    await measureRun('browse newest, group', count, browse('newest', groupId(3))),
    await measureRun('browse most sent', count, browse('most_sent', null)),
    await measureRun('browse most banned', count, browse('most_banned', null)),
  ];
}

function report(run: Awaited<ReturnType<typeof runEngine>>): string {
  const rows = run.results.map((result) => [
    result.name,
    fmt(result.ours.p50, 0),
    fmt(result.ours.p99, 0),
    result.bare ? fmt(result.bare.p99, 0) : '-',
    result.bare ? fmt(result.ours.p99 / result.bare.p99, 1) : '-',
    fmt(result.found / result.ours.count, 1),
    fmt(result.maxStallMs, 1),
    String(result.ours.count),
  ]);
  return formatTable(
    ['case', 'p50 µs', 'p99 µs', 'bare id query p99 µs', 'ratio', 'rows/page', 'max stall ms', 'samples'],
    rows,
  );
}

async function main(): Promise<void> {
  let options;
  try {
    options = parseBenchArgs(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`bench:corpus-search: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const n = process.argv.includes('--n') ? options.n : options.quick ? 20_000 : 1_000_000;
  const lookups = options.quick ? 200 : 2_000;
  const summary: string[] = [];
  for (const engine of options.engines) {
    const run = await runEngine(engine, n, lookups, options.seed, options.databaseUrl);
    process.stdout.write(`\n${engine}, ${n} contexts (${(run.dbBytes / 2 ** 20).toFixed(0)} MiB)\n${report(run)}\n`);
    const prefix = run.results[0];
    if (prefix) {
      summary.push(
        `${engine}_prefix_p99_us=${prefix.ours.p99.toFixed(0)} ${engine}_ratio_vs_bare=${(prefix.ours.p99 / (prefix.bare?.p99 ?? Number.NaN)).toFixed(1)} ${engine}_miss_scan_p99_ms=${((run.results[3]?.ours.p99 ?? 0) / 1000).toFixed(0)} ${engine}_sentence_p99_ms=${((run.results[4]?.ours.p99 ?? 0) / 1000).toFixed(0)} ${engine}_browse_p99_ms=${(Math.max(...run.results.slice(5).map((r) => r.ours.p99)) / 1000).toFixed(1)} ${engine}_max_stall_ms=${Math.max(...run.results.map((r) => r.maxStallMs)).toFixed(1)}`,
      );
    }
  }
  process.stdout.write(
    `RESULT bench:corpus-search n=${n} ${summary.join(' ')} page=${PAGE} view=${SEARCH_VIEW.answers}x${SEARCH_VIEW.messages}\n`,
  );
}

await main();
