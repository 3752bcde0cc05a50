/**
 * CorpusStore.pageContextKeys (history backfill paging, docs/rules.md#backfill) on SQLite and PostgreSQL:
 * keywords order by code point through a 64-character prefix, ties by id, cursors with and
 * without an id, and plans that read the index without sorting.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { CompiledQuery } from 'kysely';
import pg from 'pg';
import { compareCodePoints } from '../../src/store/hot-keywords.ts';
import { keywordsPagePrefix, keywordsPageQueries, type ContextKey } from '../../src/store/keywords-page.ts';
import { bulkInsertContexts, context } from '../support/corpus-data.ts';
import { forEachEngine, PG_URL, type TestStore } from '../support/engines.ts';

async function walk(store: TestStore, limit: number): Promise<ContextKey[]> {
  const seen: ContextKey[] = [];
  let cursor: ContextKey | null = null;
  for (let pages = 0; pages < 10_000; pages++) {
    const page = await store.corpus.pageContextKeys(cursor, limit);
    assert.ok(page.length <= limit);
    if (page.length === 0) return seen;
    seen.push(...page);
    cursor = page.at(-1) ?? null;
  }
  throw new Error('paging did not end');
}

forEachEngine((engine) => {
  it('pages every context once, by keywords in code point order', async (t) => {
    const store = await engine.open(t);
    // U+FF5E sorts before U+1F600 by code point (JavaScript's UTF-16 `<` says the opposite).
    const keys = ['beta', 'alpha', '\u{1F600}', '\u{FF5E}', 'Zed', 'a', 'ab', '中文', ' lead', 'alpha2'];
    for (const keywords of keys) await store.corpus.insert(context(keywords));
    const expected = [...keys].sort(compareCodePoints);
    for (const limit of [1, 3, 100]) {
      assert.deepEqual(
        (await walk(store, limit)).map((row) => row.keywords),
        expected,
        `limit ${limit}`,
      );
    }
  });

  it('keys sharing the 64-character prefix come by id, and paging splits ties correctly', async (t) => {
    const store = await engine.open(t);
    const shared = '字'.repeat(64);
    const keys = [`${shared}c`, 'b', `${shared}a`, `${shared}b`, 'z'];
    for (const keywords of keys) await store.corpus.insert(context(keywords));
    const walked = await walk(store, 2);
    assert.deepEqual(
      walked.map((row) => row.keywords),
      ['b', 'z', `${shared}c`, `${shared}a`, `${shared}b`],
    );
    assert.ok(walked.slice(2).every((row, i, rows) => i === 0 || (rows[i - 1]?.id ?? 0) < row.id));
    assert.equal(keywordsPagePrefix(`${shared}c`), shared);
  });

  it('a cursor without an id continues after its context, or after the start of its prefix', async (t) => {
    const store = await engine.open(t);
    for (const keywords of ['a', 'b', 'c', 'd']) await store.corpus.insert(context(keywords));
    const after = async (keywords: string) =>
      (await store.corpus.pageContextKeys({ keywords, id: null }, 10)).map((row) => row.keywords);
    assert.deepEqual(await after('b'), ['c', 'd']);
    assert.deepEqual(await after('bb'), ['c', 'd'], 'a vanished cursor still moves forward');
    assert.deepEqual(await after(''), ['a', 'b', 'c', 'd'], 'empty = start');
    assert.deepEqual(await store.corpus.pageContextKeys(null, 2), [
      { id: (await store.corpus.pageContextKeys(null, 1))[0]?.id ?? -1, keywords: 'a' },
      { id: (await store.corpus.pageContextKeys({ keywords: 'a', id: null }, 1))[0]?.id ?? -1, keywords: 'b' },
    ]);
    assert.deepEqual(await after('d'), []);
    await assert.rejects(store.corpus.pageContextKeys(null, 0), RangeError);
  });

  it('NUL in a cursor is stripped as in stored keywords', async (t) => {
    const store = await engine.open(t);
    for (const keywords of ['ab', 'ac']) await store.corpus.insert(context(keywords));
    const page = await store.corpus.pageContextKeys({ keywords: 'a\u0000b', id: null }, 10);
    assert.deepEqual(
      page.map((row) => row.keywords),
      ['ac'],
    );
  });

  it('a page deep into a large corpus is short (no scan, no sort)', async (t) => {
    const store = await engine.open(t);
    const n = 50_000;
    await bulkInsertContexts(
      store.engine,
      Array.from({ length: n }, (_, i) => ({
        keywords: `${'前缀'.repeat(i % 3 === 0 ? 40 : 1)}${String(i).padStart(6, '0')}`,
        time: 1,
        triggerCount: 1,
        clearTime: 0,
      })),
    );
    await store.corpus.pageContextKeys(null, 30);
    const cursor = { keywords: `前缀${String(n - 100).padStart(6, '0')}`, id: null };
    const took: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const page = await store.corpus.pageContextKeys(cursor, 30);
      took.push(performance.now() - started);
      assert.equal(page.length, 30);
    }
    // The median: a scan or sort of 50,000 rows is slow every time, a busy machine only now and then.
    const median = took.sort((x, y) => x - y)[2] as number;
    assert.ok(median < 50, `a page took ${median.toFixed(1)} ms (all: ${took.map((ms) => ms.toFixed(1)).join(', ')})`);
  });

  it('both page statements read the prefix index, without a sort', async (t) => {
    const store = await engine.open(t);
    await bulkInsertContexts(
      store.engine,
      Array.from({ length: 2000 }, (_, i) => ({ keywords: `k${i}`, time: 1, triggerCount: 1, clearTime: 0 })),
    );
    const q = keywordsPageQueries(store.engine.db, store.engine.kind);
    for (const statement of [
      q.samePrefixAfter({ prefix: 'k1', id: 0, limit: 30 }),
      q.prefixesAfter({ prefix: 'k1', limit: 30 }),
    ]) {
      const plan = await explain(store, statement);
      assert.ok(plan.includes('ix_context_keywords_prefix'), plan);
      assert.doesNotMatch(plan, /TEMP B-TREE|Sort|Seq Scan|SCAN context\b/, plan);
    }
  });
});

/** The plan of a statement as text (PostgreSQL with sequential scans off: tiny tables). */
async function explain(store: TestStore, statement: { sql: string; parameters: readonly unknown[] }): Promise<string> {
  const parameters = [...statement.parameters];
  if (store.engine.kind === 'sqlite') {
    const compiled = CompiledQuery.raw(`EXPLAIN QUERY PLAN ${statement.sql}`, parameters);
    const result = await store.engine.db.executeQuery<{ detail: string }>(compiled);
    return result.rows.map((row) => row.detail).join('\n');
  }
  const client = new pg.Client({ connectionString: PG_URL, options: `-c search_path=${store.location.schema}` });
  await client.connect();
  try {
    await client.query('SET enable_seqscan = off');
    await client.query('ANALYZE context');
    const result = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement.sql}`, parameters);
    return result.rows.map((row) => row['QUERY PLAN']).join('\n');
  } finally {
    await client.end();
  }
}
