/**
 * Contract of the reply snapshot (find_by_keywords_for_reply; docs/rules.md#store-ops, #cache-snapshot)
 * and of pool pressure (docs/rules.md#store-pressure). Runs unchanged against SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Answer, Context } from '../../src/domain/corpus.ts';
import { rows } from '../../src/sql/program.ts';
import { answer, ban, context, learn, messages } from '../support/corpus-data.ts';
import { countingStore, forEachEngine, type TestStore } from '../support/engines.ts';

/** `n` answers of `perAnswer` messages each, with distinct counts/times in a scrambled order. */
function scrambledAnswers(n: number, perAnswer: number): Answer[] {
  return Array.from({ length: n }, (_, i) =>
    answer(`ans${i}`, {
      count: 1 + ((i * 37) % 11),
      time: 1000 + ((i * 53) % n),
      messages: messages(`a${i}`, perAnswer),
    }),
  );
}

/** What the snapshot must hold: top `answersCap` by count desc, time desc; newest `messagesCap` each. */
function expectedSnapshot(full: Context, answersCap: number, messagesCap: number): Answer[] {
  return [...full.answers]
    .sort((a, b) => b.count - a.count || b.time - a.time)
    .slice(0, answersCap)
    .map((a) => ({ ...a, messages: a.messages.slice(-messagesCap) }));
}

async function reply(store: TestStore, keywords: string): Promise<Context> {
  const found = await store.corpus.findByKeywordsForReply(keywords);
  assert.ok(found, `a reply snapshot for ${JSON.stringify(keywords)}`);
  return found;
}

forEachEngine((engine) => {
  it('messages cap 8 on the 2-character key "kw": the newest 6 messages, ascending', async (t) => {
    const store = await engine.open(t, { reply: { replyMessagesCap: 8 } });
    await store.corpus.insert(context('kw', { answers: [answer('a', { messages: messages('m', 20) })] }));
    const full = await store.corpus.findByKeywords('kw');
    assert.equal(full?.answers[0]?.messages.length, 20);
    const snapshot = await reply(store, 'kw');
    assert.deepEqual(snapshot.answers[0]?.messages, ['m-14', 'm-15', 'm-16', 'm-17', 'm-18', 'm-19']);
    assert.ok(snapshot.answers[0]?.messages.every((m) => full?.answers[0]?.messages.includes(m)));
  });

  it('answers cap 64: the top answers by count then time, each with its own newest messages', async (t) => {
    const store = await engine.open(t, { reply: { replyAnswersCap: 64 } });
    const answers = scrambledAnswers(80, 3);
    answers[5] = { ...answers[5]!, count: 50, messages: messages('a5', 30) };
    await store.corpus.insert(context('many answers', { answers }));
    const full = await store.corpus.findByKeywords('many answers');
    assert.ok(full);
    const snapshot = await reply(store, 'many answers');
    assert.equal(snapshot.answers.length, 64);
    assert.deepEqual(snapshot.answers, expectedSnapshot(full, 64, 16));
    assert.equal(snapshot.answers[0]?.keywords, 'ans5');
  });

  it('short keys tighten the caps by character length: 6/48 up to 2, 8/64 at 3, none at 4', async (t) => {
    const store = await engine.open(t);
    const cases = [
      { key: 'hi', answers: 48, messages: 6 },
      { key: '你好', answers: 48, messages: 6 },
      { key: '😀😀', answers: 48, messages: 6 },
      { key: 'abc', answers: 64, messages: 8 },
      { key: 'abcd', answers: 70, messages: 10 },
    ];
    for (const { key } of cases) await store.corpus.insert(context(key, { answers: scrambledAnswers(70, 10) }));
    for (const expected of cases) {
      const snapshot = await reply(store, expected.key);
      const full = await store.corpus.findByKeywords(expected.key);
      assert.ok(full);
      assert.equal(snapshot.answers.length, expected.answers, `answers for ${expected.key}`);
      assert.ok(
        snapshot.answers.every((a) => a.messages.length === expected.messages),
        `messages for ${expected.key}`,
      );
      assert.deepEqual(snapshot.answers, expectedSnapshot(full, expected.answers, expected.messages));
    }
  });

  it('an answer-less context keeps trigger_count, clear_time and bans, with answers []', async (t) => {
    const store = await engine.open(t);
    const bans = [ban('x', { reason: 'r1' }), ban('y', { groupId: 114514, time: 5 })];
    await store.corpus.insert(context('bare', { triggerCount: 42, clearTime: 77, time: 66, bans }));
    assert.deepEqual(await reply(store, 'bare'), context('bare', { triggerCount: 42, clearTime: 77, time: 66, bans }));
  });

  it('a hit on an uncached key takes 2 read statements, a miss 1, a cached key none', async (t) => {
    const store = await engine.open(t);
    await store.corpus.insert(context('k', { answers: [answer('a'), answer('b')], bans: [ban('c')] }));
    const { corpus, engine: counting } = countingStore(store);
    assert.ok(await corpus.findByKeywordsForReply('k'));
    assert.equal(counting.steps.length, 2);
    assert.ok(counting.steps.every((step) => step.kind === 'rows' && !step.write));
    assert.ok(counting.steps.every((step) => /^\s*(select|with)\b/i.test(step.sql)));
    counting.reset();
    assert.equal(await corpus.findByKeywordsForReply('missing'), null);
    assert.equal(counting.steps.length, 1);
    counting.reset();
    assert.ok(await corpus.findByKeywordsForReply('k'));
    assert.equal(await corpus.findByKeywordsForReply('missing'), null);
    assert.equal(counting.steps.length, 0);
    assert.equal(corpus.stats().hits, 2);
    assert.equal(corpus.stats().misses, 2);
  });

  it('an empty or whitespace key answers null without a statement', async (t) => {
    const store = await engine.open(t);
    await store.corpus.insert(context(' ', { answers: [answer('a')] }));
    const { corpus, engine: counting } = countingStore(store);
    for (const key of ['', ' ', '  \t', '\u0000', ' \u0000 '])
      assert.equal(await corpus.findByKeywordsForReply(key), null);
    assert.equal(counting.runs, 0);
  });

  it('the snapshot is frozen', async (t) => {
    const store = await engine.open(t);
    await store.corpus.insert(context('k', { answers: [answer('a')], bans: [ban('b')] }));
    const snapshot = await reply(store, 'k');
    for (const part of [
      snapshot,
      snapshot.answers,
      snapshot.answers[0],
      snapshot.answers[0]?.messages,
      snapshot.bans,
      snapshot.bans[0],
    ]) {
      assert.ok(Object.isFrozen(part));
    }
    assert.throws(() => (snapshot.answers[0] as Answer).messages.push('x'), TypeError);
  });

  it('learn_answer refreshes the key at once; a hot upsert keeps the snapshot until invalidated', async (t) => {
    const store = await engine.open(t);
    await store.corpus.insert(context('hot', { answers: [answer('a', { messages: ['first'] })] }));
    assert.deepEqual((await reply(store, 'hot')).answers[0]?.messages, ['first']);
    // A learned key answers at once: the learn drops the key's snapshot.
    assert.equal(await store.corpus.learnAnswer(learn('hot', 'a', { message: 'second' })), false);
    assert.deepEqual((await reply(store, 'hot')).answers, [answer('a', { count: 2, messages: ['first', 'second'] })]);
    await store.corpus.upsertAnswer(learn('hot', 'b', { message: 'third' }));
    const stale = await reply(store, 'hot');
    assert.deepEqual(stale.answers, [answer('a', { count: 2, messages: ['first', 'second'] })]);
    assert.equal(stale.triggerCount, 2);
    store.corpus.invalidateSnapshots('hot');
    const fresh = await reply(store, 'hot');
    assert.deepEqual(fresh.answers, [
      answer('a', { count: 2, messages: ['first', 'second'] }),
      answer('b', { messages: ['third'] }),
    ]);
    assert.equal(fresh.triggerCount, 3);
  });

  it('a cached miss is broken by insert, by a creating learn_answer and by save', async (t) => {
    const store = await engine.open(t);
    for (const key of ['ins', 'lrn', 'sav']) assert.equal(await store.corpus.findByKeywordsForReply(key), null);
    await store.corpus.insert(context('ins', { answers: [answer('a')] }));
    assert.equal(await store.corpus.learnAnswer(learn('lrn', 'b')), true);
    await store.corpus.save(context('sav', { answers: [answer('c')] }));
    assert.deepEqual((await reply(store, 'ins')).answers, [answer('a')]);
    assert.deepEqual((await reply(store, 'lrn')).answers, [answer('b', { messages: ['msg'] })]);
    assert.deepEqual((await reply(store, 'sav')).answers, [answer('c')]);
  });

  it('append_ban and replace_answers refresh the snapshot', async (t) => {
    const store = await engine.open(t);
    await store.corpus.insert(context('k', { answers: [answer('a'), answer('b')] }));
    assert.deepEqual((await reply(store, 'k')).bans, []);
    await store.corpus.appendBan('k', ban('a', { reason: '123' }));
    assert.deepEqual((await reply(store, 'k')).bans, [ban('a', { reason: '123' })]);
    await store.corpus.replaceAnswers('k', [answer('b', { count: 9 })], 55);
    const replaced = await reply(store, 'k');
    assert.deepEqual(replaced.answers, [answer('b', { count: 9 })]);
    assert.equal(replaced.clearTime, 55);
  });

  it('delete_expired that deletes something clears every snapshot; one that deletes nothing keeps them', async (t) => {
    const store = await engine.open(t);
    await store.corpus.insert(context('old', { time: 10, answers: [answer('a')] }));
    await store.corpus.insert(context('recent', { time: 1000, answers: [answer('a')] }));
    await reply(store, 'old');
    await reply(store, 'recent');
    await store.corpus.upsertAnswer(learn('recent', 'a', { answerTime: 1000, message: 'unseen' }));
    assert.equal(await store.corpus.deleteExpired(5, 100), 0);
    assert.equal(store.corpus.stats().snapshotSize, 2);
    assert.equal((await reply(store, 'recent')).answers[0]?.count, 1);
    assert.equal(await store.corpus.deleteExpired(500, 100), 1);
    assert.equal(store.corpus.stats().snapshotSize, 0);
    assert.equal(await store.corpus.findByKeywordsForReply('old'), null);
    assert.deepEqual((await reply(store, 'recent')).answers[0]?.messages, ['a said', 'unseen']);
  });

  if (engine.kind === 'postgres') {
    it('pool pressure: a full pool skips reply lookups without querying, then recovers', async (t) => {
      const store = await engine.open(t, { poolMax: 2 });
      await store.corpus.insert(context('k', { answers: [answer('a')] }));
      const { corpus, engine: counting } = countingStore(store);
      assert.equal(store.engine.pressure(), 0);
      const hold = () => store.engine.run(() => rows({ sql: 'SELECT pg_sleep(0.4)', parameters: [] }));
      const holders = Promise.all([hold(), hold()]);
      const deadline = Date.now() + 2000;
      while (store.engine.pressure() < 0.55 && Date.now() < deadline) await sleep(5);
      assert.ok(store.engine.pressure() >= 0.55, `pressure ${store.engine.pressure()} while both connections are held`);
      // Not a miss: the lookup is refused as transient, so no cache takes it for "no context".
      await assert.rejects(corpus.findByKeywordsForReply('k'), { name: 'TransientLookupError', reason: 'pressure' });
      assert.equal(counting.runs, 0);
      assert.equal(corpus.stats().skippedPressure, 1);
      assert.equal(corpus.stats().misses, 0);
      await holders;
      assert.equal(store.engine.pressure(), 0);
      assert.ok(await corpus.findByKeywordsForReply('k'));
      assert.equal(corpus.stats().skippedPressure, 1);
    });
  } else {
    it('pool pressure: 0 on an idle store, above 0 after a burst of writes', async (t) => {
      const store = await engine.open(t);
      assert.equal(store.engine.pressure(), 0);
      for (let i = 0; i < 300; i++) await store.corpus.learnAnswer(learn(`k${i % 10}`, `a${i}`, { message: `m${i}` }));
      const pressure = store.engine.pressure();
      assert.ok(pressure > 0 && pressure <= 1, `pressure ${pressure}`);
    });
  }
});
