/**
 * Contamination cleanup (docs/rules.md#cleanup): CorpusStore.deletePollutedMessages and
 * runContaminationCleanup, on SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { runContaminationCleanup } from '../../src/corpus/contamination-cleanup.ts';
import type { StoreEngine } from '../../src/store/schema.ts';
import { keywordsHash } from '../../src/domain/keywords-hash.ts';
import { answer, context, countRows, groupMessage } from '../support/corpus-data.ts';
import { countingStore, forEachEngine, type TestStore } from '../support/engines.ts';

const PHRASES = ['希望每个庆典'];
const EXEMPT = ['流媒体解析bot'];
const rule = { phrases: PHRASES, exempt: EXEMPT, maxDelete: 20_000 };

/** Every context's stored answer_count_sum equals the sum of its answers' counts. */
async function assertSumsExact(engine: StoreEngine): Promise<void> {
  const result = await sql<{ keywords: string; stored: number; actual: number }>`SELECT c.keywords,
      c.answer_count_sum AS stored,
      (SELECT COALESCE(SUM(a.count), 0) FROM context_answer a WHERE a.context_id = c.id) AS actual
    FROM context c`.execute(engine.db);
  for (const row of result.rows) {
    assert.equal(Number(row.stored), Number(row.actual), `answer_count_sum of ${row.keywords}`);
  }
}

async function logTexts(store: TestStore, groupId = 1): Promise<string[]> {
  return (await store.messages.recent(groupId, 10_000)).map((m) => m.rawMessage);
}

forEachEngine((engine) => {
  it('deletes polluted messages, keeps exempt ones, deletes answers left empty, recounts sums', async (t) => {
    const store = await engine.open(t);
    await store.corpus.insert(
      context('k', {
        answers: [
          answer('mixed', { count: 4, messages: ['希望每个庆典都开心', 'normal', '今天也希望每个庆典'] }),
          answer('polluted', { count: 3, messages: ['希望每个庆典!'] }),
          answer('exempt', { count: 2, messages: ['流媒体解析bot：希望每个庆典'] }),
          answer('clean', { count: 1, messages: ['hello'] }),
          answer('already empty', { count: 5, messages: [] }),
        ],
      }),
    );
    await store.corpus.insert(context('other', { answers: [answer('x', { count: 7, messages: ['fine'] })] }));
    await store.messages.append([
      groupMessage({ rawMessage: '希望每个庆典快乐' }),
      groupMessage({ rawMessage: 'plain chat' }),
      groupMessage({ rawMessage: '流媒体解析bot 希望每个庆典' }),
    ]);
    const before = await store.corpus.findByKeywordsForReply('k');
    assert.equal(before?.answers.length, 5);

    const deleted = await store.corpus.deletePollutedMessages(rule);
    assert.deepEqual(deleted, { answerMessages: 3, emptyAnswers: 1, logMessages: 1 });

    const loaded = await store.corpus.findByKeywords('k');
    assert.deepEqual(
      loaded?.answers.map((a) => [a.keywords, a.count, a.messages]),
      [
        ['mixed', 4, ['normal']],
        ['exempt', 2, ['流媒体解析bot：希望每个庆典']],
        ['clean', 1, ['hello']],
        // Empty before the cleanup: not this round's doing, so left alone.
        ['already empty', 5, []],
      ],
    );
    assert.deepEqual((await store.corpus.findByKeywords('other'))?.answers[0]?.messages, ['fine']);
    assert.deepEqual(await logTexts(store), ['plain chat', '流媒体解析bot 希望每个庆典']);
    await assertSumsExact(store.engine);
    const hot = await store.corpus.hotKeywords({ scope: 'global', limit: 5, answersPerKeyword: 1 });
    assert.deepEqual(
      hot.map((row) => [row.keywords, row.score]),
      [
        ['k', 12],
        ['other', 7],
      ],
    );
    // The reply snapshot cache was cleared: the next reply lookup sees the cleaned context.
    const after = await store.corpus.findByKeywordsForReply('k');
    assert.equal(after?.answers.length, 4);

    assert.deepEqual(await store.corpus.deletePollutedMessages(rule), {
      answerMessages: 0,
      emptyAnswers: 0,
      logMessages: 0,
    });
  });

  it('honours the cap per call: 250 polluted rows with cap 120 delete exactly 120, then 120, then 10', async (t) => {
    const store = await engine.open(t);
    const polluted = Array.from({ length: 250 }, (_, i) => `${i} 希望每个庆典`);
    await store.messages.append([
      ...polluted.map((rawMessage) => groupMessage({ rawMessage })),
      groupMessage({ rawMessage: 'kept' }),
    ]);
    await store.corpus.insert(
      context('k', { answers: [answer('a', { count: 9, messages: [...polluted, 'kept'] }), answer('b')] }),
    );
    const capped = { ...rule, maxDelete: 120 };
    assert.deepEqual(await store.corpus.deletePollutedMessages(capped), {
      answerMessages: 120,
      emptyAnswers: 0,
      logMessages: 120,
    });
    assert.equal(await countRows(store.engine, 'message'), 131);
    assert.equal(await countRows(store.engine, 'context_answer_message'), 132);
    assert.deepEqual(await store.corpus.deletePollutedMessages(capped), {
      answerMessages: 120,
      emptyAnswers: 0,
      logMessages: 120,
    });
    assert.deepEqual(await store.corpus.deletePollutedMessages(capped), {
      answerMessages: 10,
      emptyAnswers: 0,
      logMessages: 10,
    });
    assert.deepEqual(await logTexts(store), ['kept']);
    assert.deepEqual((await store.corpus.findByKeywords('k'))?.answers[0]?.messages, ['kept']);
    await assertSumsExact(store.engine);
  });

  it('phrases match literally and case-sensitively (no LIKE wildcards); empty lists or cap delete nothing', async (t) => {
    const store = await engine.open(t);
    const texts = ['1000', '100% sure', 'axb', 'a_b!', 'bot', 'Bot here', 'back\\slash', 'x'];
    await store.corpus.insert(
      context('k', { answers: texts.map((text, i) => answer(`a${i}`, { count: 1 + i, messages: [text] })) }),
    );
    await store.messages.append(texts.map((rawMessage) => groupMessage({ rawMessage })));
    const nothing = { answerMessages: 0, emptyAnswers: 0, logMessages: 0 };
    assert.deepEqual(await store.corpus.deletePollutedMessages({ phrases: [], exempt: [], maxDelete: 100 }), nothing);
    assert.deepEqual(await store.corpus.deletePollutedMessages({ phrases: [''], exempt: [], maxDelete: 100 }), nothing);
    assert.deepEqual(await store.corpus.deletePollutedMessages({ phrases: ['x'], exempt: [], maxDelete: 0 }), nothing);
    const deleted = await store.corpus.deletePollutedMessages({
      phrases: ['100%', 'a_b', 'Bot', 'k\\s', ''],
      exempt: [''],
      maxDelete: 100,
    });
    assert.deepEqual(deleted, { answerMessages: 4, emptyAnswers: 4, logMessages: 4 });
    assert.deepEqual(await logTexts(store), ['1000', 'axb', 'bot', 'x']);
    assert.deepEqual(
      (await store.corpus.findByKeywords('k'))?.answers.flatMap((a) => a.messages),
      ['1000', 'axb', 'bot', 'x'],
    );
    await assertSumsExact(store.engine);
  });

  it('works through 12,000 messages in id windows and short transactions', { timeout: 120_000 }, async (t) => {
    const store = await engine.open(t);
    const expectedLeft = await bulkMessages(store.engine, 12_000);
    const { corpus, engine: counting } = countingStore(store);
    const deleted = await corpus.deletePollutedMessages(rule);
    assert.equal(deleted.answerMessages, 12_000 - expectedLeft.messages);
    assert.equal(deleted.emptyAnswers, expectedLeft.emptiedAnswers);
    assert.equal(deleted.logMessages, 0);
    assert.equal(await countRows(store.engine, 'context_answer_message'), expectedLeft.messages);
    const windows = counting.steps.filter((step) => /instr|strpos/.test(step.sql)).length;
    assert.ok(windows >= 3, `scanned in ${windows} windows`);
    await assertSumsExact(store.engine);
  });

  it('runContaminationCleanup does nothing when the guard is off or has no phrase', async (t) => {
    const store = await engine.open(t);
    await store.corpus.insert(context('k', { answers: [answer('a', { messages: ['希望每个庆典'] })] }));
    const calls: unknown[] = [];
    const spy = {
      deletePollutedMessages: async (options: Parameters<typeof store.corpus.deletePollutedMessages>[0]) => {
        calls.push(options);
        return store.corpus.deletePollutedMessages(options);
      },
    };
    const zero = { answerMessages: 0, emptyAnswers: 0, logMessages: 0 };
    const off = { enabled: false, phrases: PHRASES, exempt: EXEMPT };
    assert.deepEqual(await runContaminationCleanup(spy, off, { maxDeletePerRound: 100 }), zero);
    const empty = { enabled: true, phrases: ['', ''], exempt: EXEMPT };
    assert.deepEqual(await runContaminationCleanup(spy, empty, { maxDeletePerRound: 100 }), zero);
    assert.equal(calls.length, 0);
    const on = { enabled: true, phrases: ['', ...PHRASES], exempt: EXEMPT };
    assert.deepEqual(await runContaminationCleanup(spy, on, { maxDeletePerRound: 100 }), {
      answerMessages: 1,
      emptyAnswers: 1,
      logMessages: 0,
    });
    assert.deepEqual(calls, [{ phrases: PHRASES, exempt: EXEMPT, maxDelete: 100 }]);
    assert.deepEqual((await store.corpus.findByKeywords('k'))?.answers, []);
  });
});

/**
 * `n` answer messages over 1,000 contexts of 3 answers, loaded directly; every 7th message is
 * polluted. Returns what the cleanup must leave: messages, and how many answers it empties.
 */
async function bulkMessages(engine: StoreEngine, n: number): Promise<{ messages: number; emptiedAnswers: number }> {
  const contexts = Array.from({ length: 1000 }, (_, i) => ({
    keywords: `k${i}`,
    keywords_hash: keywordsHash(`k${i}`),
    time: 1,
    trigger_count: 1,
    clear_time: 0,
    answer_count_sum: 6,
  }));
  const contextIds: number[] = [];
  for (let start = 0; start < contexts.length; start += 500) {
    const rows = await engine.db
      .insertInto('context')
      .values(contexts.slice(start, start + 500))
      .returning('id')
      .execute();
    contextIds.push(...rows.map((row) => Number(row.id)));
  }
  const answers = contextIds.flatMap((contextId) =>
    [1, 2, 3].map((count) => ({
      context_id: contextId,
      keywords: `a${count}`,
      keywords_hash: keywordsHash(`a${count}`),
      group_id: 1,
      count,
      time: 1,
    })),
  );
  const answerIds: number[] = [];
  for (let start = 0; start < answers.length; start += 500) {
    const rows = await engine.db
      .insertInto('context_answer')
      .values(answers.slice(start, start + 500))
      .returning('id')
      .execute();
    answerIds.push(...rows.map((row) => Number(row.id)));
  }
  const messages = Array.from({ length: n }, (_, i) => ({
    answer_id: answerIds[i % answerIds.length] ?? 0,
    message: i % 7 === 0 ? `${i} 希望每个庆典` : `m${i}`,
  }));
  for (let start = 0; start < messages.length; start += 1000) {
    await engine.db
      .insertInto('context_answer_message')
      .values(messages.slice(start, start + 1000))
      .execute();
  }
  const clean = new Map<number, number>();
  const touched = new Set<number>();
  for (const message of messages) {
    if (message.message.endsWith('希望每个庆典')) touched.add(message.answer_id);
    else clean.set(message.answer_id, (clean.get(message.answer_id) ?? 0) + 1);
  }
  const emptiedAnswers = [...touched].filter((id) => !clean.has(id)).length;
  return { messages: [...clean.values()].reduce((a, b) => a + b, 0), emptiedAnswers };
}
