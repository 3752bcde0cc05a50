/**
 * Which contexts a console search finds (src/store/corpus-search.ts) on both engines: a rare
 * prefix read through the index and a prefix too common for it (scanned in windows) give exactly
 * what a plain filter gives, in id order and paged; substring scans likewise; a scan that runs out
 * of time answers with what it found and says so.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Context } from '../../src/domain/corpus.ts';
import { PROBE_ROWS, SCAN_BUDGET_MS, searchContextIds, type SearchQuery } from '../../src/store/corpus-search.ts';
import type { LocalStore } from '../../src/store/open-store.ts';
import { forEachEngine } from '../support/engines.ts';

const COMMON = PROBE_ROWS + 150;
const RARE = 30;

function context(keywords: string, answer: string): Context {
  return {
    keywords,
    time: 1_700_000_000,
    triggerCount: 1,
    clearTime: 0,
    answers: [{ keywords: answer, groupId: 101, count: 1, time: 1_700_000_000, messages: [`${answer}!`] }],
    bans: [],
  };
}

/** Contexts in insertion (= id) order: COMMON keys "常见…", RARE keys "少见…", answers "回应…". */
async function seed(store: LocalStore): Promise<Context[]> {
  const contexts: Context[] = [];
  for (let i = 0; i < COMMON; i++) contexts.push(context(`常见${i}号`, i % 2 === 0 ? `回应${i}` : `别的${i}`));
  for (let i = 0; i < RARE; i++) contexts.push(context(`少见${i}号`, `稀有${i}`));
  for (let from = 0; from < contexts.length; from += 500) {
    await store.corpus.importContexts(contexts.slice(from, from + 500));
  }
  return contexts;
}

async function idsToKeywords(store: LocalStore): Promise<Map<number, string>> {
  const rows = await store.engine.db.selectFrom('context').select(['id', 'keywords']).execute();
  return new Map(rows.map((row) => [Number(row.id), row.keywords]));
}

const query = (text: string, rest: Partial<SearchQuery> = {}): SearchQuery => ({
  text,
  field: 'all',
  match: 'prefix',
  offset: 0,
  limit: 20,
  ...rest,
});

forEachEngine((engine) => {
  it(
    'index reads and windowed scans find what a plain filter finds, in id order, paged',
    { timeout: 120_000 },
    async (t) => {
      const store = await engine.open(t);
      const contexts = await seed(store);
      const keywordsOf = await idsToKeywords(store);
      const ordered = [...keywordsOf.entries()].sort((a, b) => a[0] - b[0]);
      const expected = (match: (c: Context) => boolean) => {
        const wanted = new Set(contexts.filter(match).map((c) => c.keywords));
        return ordered.filter(([, keywords]) => wanted.has(keywords)).map(([id]) => id);
      };
      const all = async (q: SearchQuery) => {
        const found: number[] = [];
        for (let offset = 0; ; offset += q.limit) {
          const page = await searchContextIds(store.engine, q.text, { ...q, offset });
          assert.equal(page.partial, false);
          found.push(...page.ids);
          if (!page.hasMore) return found;
        }
      };

      // More keys share this prefix than the index probe allows: scanned in windows.
      const common = expected((c) => c.keywords.startsWith('常见'));
      assert.equal(common.length, COMMON);
      const first = await searchContextIds(store.engine, '常见', query('常见', { field: 'keywords' }));
      assert.deepEqual(first.ids, common.slice(0, 20));
      assert.equal(first.hasMore, true);
      const tail = await searchContextIds(
        store.engine,
        '常见',
        query('常见', { field: 'keywords', offset: COMMON - 5 }),
      );
      assert.deepEqual(tail.ids, common.slice(-5));
      assert.equal(tail.hasMore, false);
      assert.deepEqual(await all(query('常见', { field: 'keywords', limit: 100 })), common);

      // A rare prefix: read through the index.
      assert.deepEqual(
        await all(query('少见', { field: 'keywords', limit: 7 })),
        expected((c) => c.keywords.startsWith('少见')),
      );
      // Answer text by prefix (common: "回应" is in half the common contexts' messages).
      assert.deepEqual(
        await all(query('回应', { field: 'answer', limit: 100 })),
        expected((c) => c.answers.some((a) => a.messages.some((m) => m.startsWith('回应')))),
      );
      assert.deepEqual(
        await all(query('稀有1', { field: 'answer' })),
        expected((c) => c.answers.some((a) => a.messages.some((m) => m.startsWith('稀有1')))),
      );
      // Field all unites keywords and answers.
      assert.deepEqual(
        await all(query('少见1', { limit: 5 })),
        expected((c) => c.keywords.startsWith('少见1')),
      );
      // Substrings anywhere, scanned.
      assert.deepEqual(
        await all(query('1号', { match: 'substring', field: 'keywords', limit: 50 })),
        expected((c) => c.keywords.includes('1号')),
      );
      assert.deepEqual(
        await all(query('应12', { match: 'substring', field: 'answer', limit: 50 })),
        expected((c) => c.answers.some((a) => a.messages.some((m) => m.includes('应12')))),
      );
      const none = await searchContextIds(store.engine, '无此文字', query('无此文字', { match: 'substring' }));
      assert.deepEqual(none, { ids: [], hasMore: false, partial: false });
    },
  );

  it('a scan that runs out of time answers with what it found and says partial', { timeout: 60_000 }, async (t) => {
    const store = await engine.open(t);
    await seed(store);
    // A clock that jumps past the budget after the first window.
    let calls = 0;
    const clock = () => (calls++ < 3 ? 0 : SCAN_BUDGET_MS + 1);
    const page = await searchContextIds(store.engine, '无此文字', query('无此文字', { match: 'substring' }), clock);
    assert.deepEqual(page, { ids: [], hasMore: true, partial: true });
    calls = 0;
    const some = await searchContextIds(store.engine, '号', query('号', { match: 'substring', limit: 5 }), clock);
    assert.equal(some.partial, false, 'a page filled in the first window is complete');
    assert.equal(some.ids.length, 5);
  });
});
