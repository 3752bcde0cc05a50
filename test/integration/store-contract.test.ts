/**
 * Contract of the local corpus store, part 1: CRUD, learn_answer, upsert_answer, concurrency and
 * replace_answers (docs/rules.md#store-ops). Runs unchanged against SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';
import type { Context } from '../../src/domain/corpus.ts';
import { answer, ban, byKeywords, context, countRows, learn, messages } from '../support/corpus-data.ts';
import { countingStore, forEachEngine, type TestStore } from '../support/engines.ts';

async function found(store: TestStore, keywords: string): Promise<Context> {
  const loaded = await store.corpus.findByKeywords(keywords);
  assert.ok(loaded, `context ${JSON.stringify(keywords)} exists`);
  return loaded;
}

forEachEngine((engine) => {
  it('exists is false before insert and true after; a missing key finds null; keys match exactly', async (t) => {
    const store = await engine.open(t);
    assert.equal(await store.corpus.contextExistsByKeywords('k'), false);
    assert.equal(await store.corpus.findByKeywords('k'), null);
    const inserted = context('k', {
      time: 50,
      triggerCount: 3,
      clearTime: 7,
      answers: [answer('a', { count: 2, time: 60, messages: ['m1', 'm2'] }), answer('b', { groupId: 0 })],
      bans: [ban('x', { reason: 'recall by 1' }), ban('y', { groupId: 114514 })],
    });
    await store.corpus.insert(inserted);
    assert.equal(await store.corpus.contextExistsByKeywords('k'), true);
    assert.equal(await store.corpus.contextExistsByKeywords('K'), false);
    assert.equal(await store.corpus.contextExistsByKeywords('k '), false);
    assert.deepEqual(await store.corpus.findByKeywords('k'), inserted);
  });

  it('insert of an existing key is a no-op', async (t) => {
    const store = await engine.open(t);
    const original = context('k', { triggerCount: 2, answers: [answer('a', { messages: ['first'] })] });
    await store.corpus.insert(original);
    await store.corpus.insert(context('k', { triggerCount: 9, answers: [answer('other')], bans: [ban('b')] }));
    assert.deepEqual(await store.corpus.findByKeywords('k'), original);
    assert.equal(await countRows(store.engine, 'context_answer'), 1);
  });

  it('save creates a missing context, then overwrites trigger_count and replaces answers and bans', async (t) => {
    const store = await engine.open(t);
    const first = context('k', { answers: [answer('a'), answer('b')], bans: [ban('b')] });
    await store.corpus.save(first);
    assert.deepEqual(await store.corpus.findByKeywords('k'), first);
    const second = context('k', {
      time: 300,
      triggerCount: 8,
      clearTime: 250,
      answers: [answer('c', { count: 4, messages: ['c1', 'c2'] })],
      bans: [ban('z', { reason: 'ActionFailed' })],
    });
    await store.corpus.save(second);
    assert.deepEqual(await store.corpus.findByKeywords('k'), second);
    assert.equal(await countRows(store.engine, 'context'), 1);
    assert.equal(await countRows(store.engine, 'context_answer_message'), 2);
  });

  it('a second openStore on the same database reuses the data (migrations are idempotent)', async (t) => {
    const store = await engine.open(t);
    const saved = context('kept', { answers: [answer('a', { messages: ['m'] })], bans: [ban('b')] });
    await store.corpus.insert(saved);
    await store.close();
    const again = await store.reopen();
    assert.deepEqual(await again.corpus.findByKeywords('kept'), saved);
    const third = await store.reopen();
    await third.corpus.learnAnswer(learn('kept', 'a', { answerTime: 200 }));
    assert.equal((await again.corpus.findByKeywords('kept'))?.triggerCount, 2);
  });

  it('learn_answer creates the context when missing', async (t) => {
    const store = await engine.open(t);
    const created = await store.corpus.learnAnswer(learn('k', 'a', { answerTime: 100, message: 'msg', groupId: 7 }));
    assert.equal(created, true);
    assert.deepEqual(
      await store.corpus.findByKeywords('k'),
      context('k', {
        time: 100,
        triggerCount: 1,
        clearTime: 0,
        answers: [answer('a', { groupId: 7, count: 1, time: 100, messages: ['msg'] })],
      }),
    );
  });

  it('learn_answer on an existing context returns false, counts, and honours appendOnExisting', async (t) => {
    const store = await engine.open(t);
    assert.equal(await store.corpus.learnAnswer(learn('k', 'a', { answerTime: 100, message: 'msg' })), true);
    assert.equal(await store.corpus.learnAnswer(learn('k', 'a', { answerTime: 150, message: 'm2' })), false);
    const input = learn('k', 'a', { answerTime: 200, message: 'not appended', appendOnExisting: false });
    assert.equal(await store.corpus.learnAnswer(input), false);
    const loaded = await found(store, 'k');
    assert.equal(loaded.triggerCount, 3);
    assert.equal(loaded.time, 200);
    assert.deepEqual(loaded.answers, [answer('a', { count: 3, time: 200, messages: ['msg', 'm2'] })]);
  });

  it('learn_answer twice with append false: count 2, time 200, second message absent', async (t) => {
    const store = await engine.open(t);
    await store.corpus.learnAnswer(learn('k', 'a', { answerTime: 100, message: 'msg', appendOnExisting: false }));
    await store.corpus.learnAnswer(learn('k', 'a', { answerTime: 200, message: 'msg2', appendOnExisting: false }));
    const loaded = await found(store, 'k');
    assert.equal(loaded.triggerCount, 2);
    assert.deepEqual(loaded.answers, [answer('a', { count: 2, time: 200, messages: ['msg'] })]);
  });

  it('upsert_answer on a missing context creates nothing', async (t) => {
    const store = await engine.open(t);
    await store.corpus.upsertAnswer(learn('missing', 'a'));
    assert.equal(await store.corpus.contextExistsByKeywords('missing'), false);
    assert.equal(await countRows(store.engine, 'context_answer'), 0);
    assert.equal(await countRows(store.engine, 'context_answer_message'), 0);
  });

  it('upsert_answer counts an existing answer and appends its message only when asked', async (t) => {
    const store = await engine.open(t);
    await store.corpus.insert(context('k', { answers: [answer('a', { count: 3, time: 100, messages: ['m1'] })] }));
    await store.corpus.upsertAnswer(learn('k', 'a', { answerTime: 200, message: 'm2' }));
    let loaded = await found(store, 'k');
    assert.deepEqual(loaded.answers, [answer('a', { count: 4, time: 200, messages: ['m1', 'm2'] })]);
    assert.equal(loaded.triggerCount, 2);
    assert.equal(loaded.time, 200);
    await store.corpus.upsertAnswer(learn('k', 'a', { answerTime: 300, message: 'm3', appendOnExisting: false }));
    loaded = await found(store, 'k');
    assert.deepEqual(loaded.answers, [answer('a', { count: 5, time: 300, messages: ['m1', 'm2'] })]);
    assert.equal(loaded.triggerCount, 3);
  });

  it('upsert_answer creates a missing answer with its message even when append is false', async (t) => {
    const store = await engine.open(t);
    await store.corpus.insert(context('k', { answers: [answer('a')] }));
    await store.corpus.upsertAnswer(learn('k', 'b', { answerTime: 250, message: 'hi', appendOnExisting: false }));
    const loaded = await found(store, 'k');
    assert.equal(loaded.triggerCount, 2);
    assert.deepEqual(byKeywords(loaded.answers), [answer('a'), answer('b', { time: 250, messages: ['hi'] })]);
  });

  it('the same answer keywords in two groups are two answers', async (t) => {
    const store = await engine.open(t);
    await store.corpus.insert(context('k'));
    await store.corpus.upsertAnswer(learn('k', 'a', { groupId: 1, message: 'from 1' }));
    await store.corpus.upsertAnswer(learn('k', 'a', { groupId: 2, message: 'from 2' }));
    const answers = (await found(store, 'k')).answers;
    assert.equal(answers.length, 2);
    assert.deepEqual(answers.map((a) => [a.groupId, a.count, a.messages]).sort(), [
      [1, 1, ['from 1']],
      [2, 1, ['from 2']],
    ]);
  });

  it('10 sequential upserts: count 10, 10 messages, trigger_count 11', async (t) => {
    const store = await engine.open(t);
    await store.corpus.insert(context('k'));
    for (let i = 0; i < 10; i++)
      await store.corpus.upsertAnswer(learn('k', 'a', { answerTime: 100 + i, message: `m-${i}` }));
    const loaded = await found(store, 'k');
    assert.equal(loaded.triggerCount, 11);
    assert.deepEqual(loaded.answers, [answer('a', { count: 10, time: 109, messages: messages('m', 10) })]);
  });

  it('50 concurrent upserts of one answer: 1 answer, count 50, 50 messages, trigger_count 51', async (t) => {
    const store = await engine.open(t);
    await store.corpus.insert(context('hot'));
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.corpus.upsertAnswer(learn('hot', 'a', { message: `m${i}` }))),
    );
    const loaded = await found(store, 'hot');
    assert.equal(loaded.triggerCount, 51);
    assert.equal(loaded.answers.length, 1);
    assert.equal(loaded.answers[0]?.count, 50);
    assert.deepEqual(
      [...(loaded.answers[0]?.messages ?? [])].sort(),
      Array.from({ length: 50 }, (_, i) => `m${i}`).sort(),
    );
  });

  it('50 concurrent learn_answer on a fresh key: one creation, trigger_count 50, count 50', async (t) => {
    const store = await engine.open(t);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.corpus.learnAnswer(learn('fresh', 'a', { message: `m${i}` }))),
    );
    assert.equal(results.filter(Boolean).length, 1);
    const loaded = await found(store, 'fresh');
    assert.equal(loaded.triggerCount, 50);
    assert.equal(loaded.answers.length, 1);
    assert.equal(loaded.answers[0]?.count, 50);
    assert.equal(loaded.answers[0]?.messages.length, 50);
    assert.equal(await countRows(store.engine, 'context'), 1);
  });

  if (engine.kind === 'postgres') {
    it('two processes learning on one key lose no update', { timeout: 60_000 }, async (t) => {
      const store = await engine.open(t);
      const { schema, databaseUrl } = store.location;
      assert.ok(schema);
      const writer = fileURLToPath(new URL('../support/pg-writer.ts', import.meta.url));
      const child = spawn(process.execPath, ['--import', 'tsx', writer, databaseUrl, schema, 'shared', '200'], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      const ready = await lines.next();
      assert.equal(ready.value, 'ready', 'the writer opened its store');
      let parentCreated = 0;
      await Promise.all(
        Array.from({ length: 4 }, async (_, worker) => {
          for (let i = 0; i < 50; i++) {
            const input = learn('shared', 'a', { answerTime: 1000 + i, message: `parent-${worker}-${i}` });
            if (await store.corpus.learnAnswer(input)) parentCreated++;
          }
        }),
      );
      const report = await lines.next();
      assert.equal(await exited, 0, 'the writer exited cleanly');
      const childCreated = (JSON.parse(String(report.value)) as { created: number }).created;
      assert.equal(parentCreated + childCreated, 1, 'exactly one learn created the context');
      const loaded = await found(store, 'shared');
      assert.equal(loaded.triggerCount, 400);
      assert.equal(loaded.answers.length, 1);
      assert.equal(loaded.answers[0]?.count, 400);
      assert.equal(loaded.answers[0]?.messages.length, 400);
    });
  }

  it('replace_answers updates kept answers, adds new ones, deletes the rest, sets clear_time', async (t) => {
    const store = await engine.open(t);
    const bans = [ban('gone')];
    await store.corpus.insert(
      context('k', {
        triggerCount: 7,
        time: 90,
        bans,
        answers: [
          answer('keep', { count: 2, messages: ['old1', 'old2'] }),
          answer('drop1', { messages: ['d1'] }),
          answer('drop2', { groupId: 2, messages: ['d2'] }),
        ],
      }),
    );
    const kept = answer('keep', { count: 5, time: 300, messages: ['new1', 'new2', 'new3'] });
    const added = answer('add', { groupId: 3, count: 1, time: 310, messages: ['a1'] });
    await store.corpus.replaceAnswers('k', [kept, added], 123);
    const loaded = await found(store, 'k');
    assert.deepEqual(byKeywords(loaded.answers), [added, kept]);
    assert.equal(loaded.clearTime, 123);
    assert.equal(loaded.triggerCount, 7);
    assert.equal(loaded.time, 90);
    assert.deepEqual(loaded.bans, bans);
    assert.equal(await countRows(store.engine, 'context_answer_message'), 4);
  });

  it('replace_answers on a missing context is a no-op', async (t) => {
    const store = await engine.open(t);
    await store.corpus.replaceAnswers('missing', [answer('a')], 5);
    assert.equal(await store.corpus.findByKeywords('missing'), null);
    assert.equal(await countRows(store.engine, 'context'), 0);
    assert.equal(await countRows(store.engine, 'context_answer'), 0);
  });

  it('replace_answers of 2500 answers by [] deletes the orphans in 1000/1000/500-id statements', async (t) => {
    const store = await engine.open(t);
    const many = Array.from({ length: 2500 }, (_, i) => answer(`a${i}`, { messages: [`m${i}`] }));
    await store.corpus.insert(context('big', { triggerCount: 4, answers: many }));
    assert.equal((await found(store, 'big')).answers.length, 2500);
    const counting = countingStore(store);
    await counting.corpus.replaceAnswers('big', [], 999);
    const orphanDeletes = counting.engine.steps.filter((step) =>
      /^delete from "context_answer" where "id" in/i.test(step.sql),
    );
    assert.deepEqual(
      orphanDeletes.map((step) => step.parameters.length),
      [1000, 1000, 500],
    );
    assert.ok(orphanDeletes.every((step) => step.kind === 'exec' && step.write));
    const loaded = await found(store, 'big');
    assert.deepEqual(loaded.answers, []);
    assert.equal(loaded.clearTime, 999);
    assert.equal(loaded.triggerCount, 4);
    assert.equal(await countRows(store.engine, 'context_answer_message'), 0);
  });

  it('replace_answers with more answers than one step keeps exactly the given list', async (t) => {
    const store = await engine.open(t);
    const old = Array.from({ length: 900 }, (_, i) => answer(`a${i}`, { count: 1, messages: [`old${i}`] }));
    await store.corpus.insert(context('big', { answers: old }));
    // 300 kept (every third old answer, recounted) and 300 new ones.
    const replacement = [
      ...Array.from({ length: 300 }, (_, i) => answer(`a${i * 3}`, { count: 10 + i, time: 500, messages: [`n${i}`] })),
      ...Array.from({ length: 300 }, (_, i) =>
        answer(`new${i}`, { count: 2, time: 600, messages: [`x${i}`, `y${i}`] }),
      ),
    ];
    await store.corpus.replaceAnswers('big', replacement, 42);
    const loaded = await found(store, 'big');
    assert.deepEqual(byKeywords(loaded.answers), byKeywords(replacement));
    assert.equal(loaded.clearTime, 42);
    assert.equal(await countRows(store.engine, 'context_answer_message'), 900);
  });

  it('concurrent replace_answers and learns on one context all complete', { timeout: 60_000 }, async (t) => {
    const store = await engine.open(t);
    await store.corpus.insert(context('busy', { answers: [answer('a', { messages: ['m'] }), answer('b')] }));
    for (let round = 0; round < 10; round++) {
      const learns = Array.from({ length: 20 }, (_, i) =>
        store.corpus.learnAnswer(learn('busy', i % 2 ? 'a' : 'b', { message: `r${round}-${i}` })),
      );
      const replace = store.corpus.replaceAnswers(
        'busy',
        [answer('a', { count: 1, messages: ['m'] }), answer('b')],
        round,
      );
      await Promise.all([...learns, replace]);
    }
    const loaded = await found(store, 'busy');
    assert.equal(loaded.triggerCount, 1 + 200);
    assert.equal(loaded.clearTime, 9);
    assert.deepEqual(loaded.answers.map((a) => a.keywords).sort(), ['a', 'b']);
  });
});
