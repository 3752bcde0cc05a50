/**
 * Local hot keywords (docs/rules.md#local-hot): CorpusStore.hotKeywords and
 * aggregateLocalHotKeywords, on SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { CompiledQuery } from 'kysely';
import pg from 'pg';
import { aggregateLocalHotKeywords } from '../../src/corpus/local-hot.ts';
import type { Answer } from '../../src/domain/corpus.ts';
import { corpusQueries } from '../../src/store/corpus-queries.ts';
import type { StoreEngine } from '../../src/store/schema.ts';
import { compareCodePoints } from '../../src/store/hot-keywords.ts';
import { keywordsHash } from '../../src/domain/keywords-hash.ts';
import { answer, bulkInsertContexts, context } from '../support/corpus-data.ts';
import { countingStore, forEachEngine, PG_URL, type TestStore } from '../support/engines.ts';

/** A context whose answers have the given counts (answer keywords a0, a1, …, one message each). */
function counted(keywords: string, counts: number[], fields: Partial<Answer> = {}) {
  return context(keywords, {
    answers: counts.map((count, i) => answer(`a${i}`, { count, messages: [`${keywords}/a${i}`], ...fields })),
  });
}

async function insertAll(store: TestStore, contexts: ReturnType<typeof context>[]) {
  for (const c of contexts) await store.corpus.insert(c);
}

const HOT_STATEMENT = /answer_count_sum DESC|WITH s AS MATERIALIZED/;
const ANSWERS_STATEMENT = /json_each|unnest/;

forEachEngine((engine) => {
  it('global: by answer count sum desc then keywords by code point; top answers with their first message', async (t) => {
    const store = await engine.open(t);
    await insertAll(store, [
      context('b', {
        answers: [
          answer('z', { count: 1, messages: ['z1'] }),
          answer('y', { count: 5, messages: [] }),
          answer('x', { count: 5, messages: ['x1', 'x2'] }),
        ],
      }),
      counted('a', [11]),
      counted('c', [15, 5]),
      // U+FF5E sorts before U+1F600 by code point (JavaScript's UTF-16 `<` says the opposite).
      counted('\u{1F600}', [3]),
      counted('\u{FF5E}', [2, 1]),
      context('no answers'),
    ]);
    const rows = await store.corpus.hotKeywords({ scope: 'global', limit: 5, answersPerKeyword: 2 });
    assert.deepEqual(
      rows.map((row) => [row.keywords, row.score]),
      [
        ['c', 20],
        ['a', 11],
        ['b', 11],
        ['\u{FF5E}', 3],
        ['\u{1F600}', 3],
      ],
    );
    assert.deepEqual(rows[2]?.answers, [
      { answerKeywords: 'x', message: 'x1', count: 5 },
      { answerKeywords: 'y', message: '', count: 5 },
    ]);
    assert.deepEqual(rows[0]?.answers, [
      { answerKeywords: 'a0', message: 'c/a0', count: 15 },
      { answerKeywords: 'a1', message: 'c/a1', count: 5 },
    ]);
    const one = await store.corpus.hotKeywords({ scope: 'global', limit: 1, answersPerKeyword: 1 });
    assert.equal(one.length, 4, 'limit 1 over-fetches 4 contexts');
    assert.deepEqual(one[2]?.answers, [{ answerKeywords: 'x', message: 'x1', count: 5 }]);
  });

  it('global follows every write: learn, save, replace_answers', async (t) => {
    const store = await engine.open(t);
    await insertAll(store, [counted('k1', [3]), counted('k2', [2])]);
    const ranking = async () =>
      (await store.corpus.hotKeywords({ scope: 'global', limit: 5, answersPerKeyword: 1 })).map((r) => [
        r.keywords,
        r.score,
      ]);
    for (let i = 0; i < 2; i++) await store.corpus.learnAnswer({ ...learnInput('k2'), answerTime: 200 + i });
    await store.corpus.learnAnswer(learnInput('k3'));
    assert.deepEqual(await ranking(), [
      ['k2', 4],
      ['k1', 3],
      ['k3', 1],
    ]);
    await store.corpus.replaceAnswers('k2', [answer('a0', { count: 1 })], 1);
    await store.corpus.save(counted('k3', [9]));
    assert.deepEqual(await ranking(), [
      ['k3', 9],
      ['k1', 3],
      ['k2', 1],
    ]);
  });

  it('group: score and answers count only that group; PostgreSQL runs two statements', async (t) => {
    const store = await engine.open(t);
    await insertAll(store, [
      context('k1', {
        answers: [answer('a', { groupId: 1, count: 3 }), answer('b', { groupId: 2, count: 10 })],
      }),
      context('k2', {
        answers: [
          answer('d', { groupId: 1, count: 1, messages: ['d first', 'd second'] }),
          answer('c', { groupId: 1, count: 5 }),
          answer('c', { groupId: 2, count: 50 }),
        ],
      }),
      context('k3', { answers: [answer('e', { groupId: 2, count: 1 })] }),
    ]);
    const { corpus, engine: counting } = countingStore(store);
    const group = await corpus.hotKeywords({ scope: 'group', groupId: 1, limit: 5, answersPerKeyword: 3 });
    assert.deepEqual(group, [
      {
        keywords: 'k2',
        score: 6,
        answers: [
          { answerKeywords: 'c', message: 'c said', count: 5 },
          { answerKeywords: 'd', message: 'd first', count: 1 },
        ],
      },
      { keywords: 'k1', score: 3, answers: [{ answerKeywords: 'a', message: 'a said', count: 3 }] },
    ]);
    if (engine.kind === 'postgres') assert.equal(counting.steps.length, 2);
    assert.deepEqual(await corpus.hotKeywords({ scope: 'group', groupId: 9, limit: 5, answersPerKeyword: 3 }), []);
    const global = await corpus.hotKeywords({ scope: 'global', limit: 5, answersPerKeyword: 1 });
    assert.deepEqual(
      global.map((row) => [row.keywords, row.score, row.answers[0]?.answerKeywords]),
      [
        ['k2', 56, 'c'],
        ['k1', 13, 'b'],
        ['k3', 1, 'e'],
      ],
    );
    // scope group without a group id ranks globally.
    assert.deepEqual(await corpus.hotKeywords({ scope: 'group', limit: 5, answersPerKeyword: 1 }), global);
  });

  it(
    'group over 40,000 contexts (SQLite: many id windows) matches a reference ranking',
    { timeout: 120_000 },
    async (t) => {
      const store = await engine.open(t);
      const expected = await bulkGroupCorpus(store.engine, 40_000);
      const { corpus, engine: counting } = countingStore(store);
      const rows = await corpus.hotKeywords({ scope: 'group', groupId: 1, limit: 80, answersPerKeyword: 2 });
      assert.equal(rows.length, 320);
      assert.deepEqual(
        rows.map((row) => [row.keywords, row.score]),
        expected.slice(0, 320).map((row) => [row.keywords, row.score]),
      );
      for (const row of rows) {
        assert.ok(row.answers.length >= 1 && row.answers.length <= 2);
        assert.ok(row.answers.every((a) => a.answerKeywords.startsWith('g1-')));
      }
      const ranking = counting.steps.filter((step) => HOT_STATEMENT.test(step.sql)).length;
      const answers = counting.steps.filter((step) => ANSWERS_STATEMENT.test(step.sql)).length;
      if (engine.kind === 'sqlite') {
        assert.ok(ranking >= 2, `the group ranking ran in ${ranking} id windows`);
        assert.ok(answers >= 2, `the answers came in ${answers} steps`);
      } else {
        assert.deepEqual([ranking, answers], [1, 1]);
      }
    },
  );

  it('the hot statements are served by their indexes (plans)', async (t) => {
    const store = await engine.open(t);
    await insertAll(store, [counted('k', [1, 2])]);
    const q = corpusQueries(store.engine.db);
    const statements = [
      [q.hotContexts({ limit: 10 }), 'ix_context_answer_count_sum'],
      [
        q.hotContextsOfGroupInRange({ groupId: 1, fromId: 0, toId: 100, minScore: 1, limit: 10, lastPlace: 9 }),
        'ix_context_answer_group_ctx_count',
      ],
      [q.hotAnswers([1, 2], 3), 'ix_context_answer_ctx_count_time'],
      [q.hotAnswersOfGroup([1, 2], 1, 3), 'ix_context_answer_group_ctx_count'],
    ] as const;
    for (const [statement, index] of statements) {
      const plan = await explain(store, statement);
      assert.ok(plan.includes(index), `uses ${index}:\n${plan}`);
      assert.ok(plan.includes('ix_context_answer_message_answer_id_id') || !/json_each|unnest/.test(statement.sql));
      assert.doesNotMatch(plan, /SCAN context\b|Seq Scan on context\b/);
    }
    // The global ranking needs no sort beyond ties on the indexed keywords prefix.
    if (engine.kind === 'sqlite') assert.match(await explain(store, statements[0][0]), /LAST TERM OF ORDER BY/);
  });

  it('aggregateLocalHotKeywords builds items per docs/rules.md#local-hot', async (t) => {
    const store = await engine.open(t);
    const long = `${'字'.repeat(100)}${'😀'.repeat(30)}`;
    await insertAll(store, [
      counted('[CQ:face,id=1]', [100]),
      context(' hi  [CQ:at,qq=1]\tthere ', {
        answers: [
          answer('kw one', { count: 40, messages: ['[CQ:image,file=x.png]'] }),
          answer('[CQ:face,id=2]', { count: 30, messages: [] }),
          answer('long', { count: 20, messages: [long, 'second'] }),
          answer('reply', { count: 10, messages: ['[CQ:reply,id=5]好的'] }),
        ],
      }),
      context('all skipped', { answers: [answer('[CQ:face,id=3]', { count: 80, messages: ['  '] })] }),
      ...Array.from({ length: 100 }, (_, i) =>
        counted(`n${String(i).padStart(3, '0')}`, [60 - (i % 50), 1, 1, 1, 1, 1, 1, 1, 1, 1]),
      ),
    ]);
    const items = await aggregateLocalHotKeywords(store.corpus, { limit: 5, answersPerKeyword: 3 });
    assert.equal(items.length, 5);
    assert.deepEqual(items[0], {
      keywords: 'hi there',
      score: 100,
      answers: [
        { answer_keywords: 'kw one', message: 'kw one', count: 40 },
        { answer_keywords: 'long', message: `${'字'.repeat(100)}${'😀'.repeat(17)}…`, count: 20 },
      ],
    });
    assert.deepEqual(Object.keys(items[1] ?? {}), ['keywords', 'score', 'answers']);
    assert.deepEqual(Object.keys(items[1]?.answers[0] ?? {}), ['answer_keywords', 'message', 'count']);
    assert.deepEqual(
      items.slice(1).map((item) => [item.keywords, item.score]),
      [
        ['n000', 69],
        ['n050', 69],
        ['n001', 68],
        ['n051', 68],
      ],
    );
    const four = await aggregateLocalHotKeywords(store.corpus, { limit: 5, answersPerKeyword: 4 });
    assert.deepEqual(four[0]?.answers.at(-1), { answer_keywords: 'reply', message: '好的', count: 10 });
  });

  it('aggregateLocalHotKeywords clamps limit 5..80 (default 40) and answers 1..8 (default 3)', async (t) => {
    const store = await engine.open(t);
    await insertAll(
      store,
      Array.from({ length: 100 }, (_, i) =>
        counted(`k${String(i).padStart(3, '0')}`, [200 - i, 1, 1, 1, 1, 1, 1, 1, 1, 1]),
      ),
    );
    const sizes = async (options: Parameters<typeof aggregateLocalHotKeywords>[1]) => {
      const items = await aggregateLocalHotKeywords(store.corpus, options);
      return [items.length, Math.max(...items.map((item) => item.answers.length))];
    };
    assert.deepEqual(await sizes({}), [40, 3]);
    assert.deepEqual(await sizes({ limit: 1, answersPerKeyword: 0 }), [5, 1]);
    assert.deepEqual(await sizes({ limit: 1000, answersPerKeyword: 100 }), [80, 8]);
    assert.deepEqual(await sizes({ limit: Number.NaN, answersPerKeyword: 2.9 }), [40, 2]);
    assert.deepEqual(await sizes({ scope: 'weird', groupId: 1, limit: 6 }), [6, 3]);
    assert.deepEqual(await sizes({ scope: 'group', groupId: 1, limit: 7 }), [7, 3]);
    assert.deepEqual(await aggregateLocalHotKeywords(store.corpus, { scope: 'group', groupId: 2 }), []);
    const global = await aggregateLocalHotKeywords(store.corpus, { scope: 'group', groupId: null });
    assert.equal(global[0]?.keywords, 'k000');
  });
});

/**
 * The plan of a statement as text. PostgreSQL plans a tiny table with sequential scans, so those
 * are disabled for its EXPLAIN: what is checked is that the indexes can serve the statement.
 */
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
    const result = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement.sql}`, parameters);
    return result.rows.map((row) => row['QUERY PLAN']).join('\n');
  } finally {
    await client.end();
  }
}

function learnInput(keywords: string) {
  return {
    keywords,
    groupId: 1,
    answerKeywords: 'a0',
    answerTime: 100,
    message: 'm',
    appendOnExisting: false,
  };
}

/**
 * `n` contexts with answers in groups 1 and 2 (small counts, so many ties), loaded directly;
 * returns group 1's reference ranking (score desc, keywords by code point).
 */
async function bulkGroupCorpus(engine: StoreEngine, n: number): Promise<{ keywords: string; score: number }[]> {
  let state = 7;
  // A small deterministic generator (LCG), so the corpus is the same on every run.
  const random = () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state / 2 ** 32;
  };
  const prefixes = ['～', '😀', 'a', 'Z', '中', 'ｚ'];
  const keys = Array.from({ length: n }, (_, i) => `${prefixes[i % prefixes.length]}${Math.floor(random() * 50)}-${i}`);
  await bulkInsertContexts(
    engine,
    keys.map((keywords) => ({ keywords, time: 1, triggerCount: 1, clearTime: 0 })),
  );
  const ids = new Map<string, number>();
  for (const row of await engine.db.selectFrom('context').select(['id', 'keywords']).execute()) {
    ids.set(row.keywords, Number(row.id));
  }
  const scores = new Map<string, number>();
  const answers: {
    context_id: number;
    keywords: string;
    keywords_hash: string;
    group_id: number;
    count: number;
    time: number;
  }[] = [];
  for (const keywords of keys) {
    const contextId = ids.get(keywords);
    assert.ok(contextId !== undefined);
    const inGroup1 = random() < 0.5 ? 1 + Math.floor(random() * 3) : 0;
    for (let a = 0; a < inGroup1; a++) {
      const count = 1 + Math.floor(random() * 4);
      scores.set(keywords, (scores.get(keywords) ?? 0) + count);
      const answerKeywords = `g1-${a}`;
      answers.push({
        context_id: contextId,
        keywords: answerKeywords,
        keywords_hash: keywordsHash(answerKeywords),
        group_id: 1,
        count,
        time: 1,
      });
    }
    if (random() < 0.3) {
      answers.push({
        context_id: contextId,
        keywords: 'g2',
        keywords_hash: keywordsHash('g2'),
        group_id: 2,
        count: 50,
        time: 1,
      });
    }
  }
  for (let start = 0; start < answers.length; start += 1000) {
    await engine.db
      .insertInto('context_answer')
      .values(answers.slice(start, start + 1000))
      .execute();
  }
  return [...scores]
    .map(([keywords, score]) => ({ keywords, score }))
    .sort((a, b) => b.score - a.score || compareCodePoints(a.keywords, b.keywords));
}
