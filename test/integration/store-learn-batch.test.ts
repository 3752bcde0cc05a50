/**
 * The learn batch writer (docs/rules.md#learn-write) on SQLite and PostgreSQL: many pairs in one
 * unit of work with exactly the per-pair semantics of learn_answer. Each case compares the whole
 * corpus tables with what learning the same pairs one by one produces.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import type { LearnInput, LearnOutcome } from '../../src/domain/corpus.ts';
import type { StoreEngine } from '../../src/store/schema.ts';
import type { LocalStore } from '../../src/store/open-store.ts';
import { learn } from '../support/corpus-data.ts';
import { countingStore, forEachEngine, type EngineFixture } from '../support/engines.ts';
import type { TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { rows } from '../../src/sql/program.ts';

/** Every row of the corpus tables, surrogate ids replaced by what they point at; messages in id order. */
async function dump(engine: StoreEngine) {
  const contexts = await engine.db
    .selectFrom('context')
    .select(['keywords', 'keywords_hash', 'time', 'trigger_count', 'clear_time', 'answer_count_sum'])
    .orderBy('keywords_hash')
    .execute();
  const answers = await engine.db
    .selectFrom('context_answer as a')
    .innerJoin('context as c', 'c.id', 'a.context_id')
    .select(['c.keywords_hash as context', 'a.group_id', 'a.keywords', 'a.keywords_hash', 'a.count', 'a.time'])
    .orderBy('c.keywords_hash')
    .orderBy('a.group_id')
    .orderBy('a.keywords_hash')
    .execute();
  const messages = await engine.db
    .selectFrom('context_answer_message as m')
    .innerJoin('context_answer as a', 'a.id', 'm.answer_id')
    .innerJoin('context as c', 'c.id', 'a.context_id')
    .select(['c.keywords_hash as context', 'a.group_id', 'a.keywords_hash as answer', 'm.message'])
    .orderBy('c.keywords_hash')
    .orderBy('a.group_id')
    .orderBy('a.keywords_hash')
    .orderBy('m.id')
    .execute();
  const numbers = <T extends object>(row: T) =>
    Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v]));
  return { contexts: contexts.map(numbers), answers: answers.map(numbers), messages: messages.map(numbers) };
}

async function oneByOne(store: LocalStore, inputs: readonly LearnInput[]): Promise<LearnOutcome[]> {
  const outcomes: LearnOutcome[] = [];
  for (const input of inputs) outcomes.push((await store.corpus.learnAnswer(input)) ? 'created' : 'existing');
  return outcomes;
}

/** Two fresh stores: one learns one by one, the other in batches; tables and outcomes must agree. */
async function compareWithOneByOne(
  t: TestContext,
  engine: EngineFixture,
  seed: (store: LocalStore) => Promise<void>,
  batches: readonly (readonly LearnInput[])[],
) {
  const single = await engine.open(t);
  const batched = await engine.open(t);
  await seed(single);
  await seed(batched);
  const expected = await oneByOne(single, batches.flat());
  const outcomes: LearnOutcome[] = [];
  for (const batch of batches) {
    const result = await batched.corpus.learnAnswers(batch);
    assert.equal(result.retriedPairByPair, false);
    outcomes.push(...result.outcomes);
  }
  assert.deepEqual(outcomes, expected);
  assert.deepEqual(await dump(batched.engine), await dump(single.engine));
  return { single, batched, outcomes };
}

/** A deterministic mix: few keys (so pairs repeat), some groups, answers and append flags. */
function generated(count: number, seed: number): LearnInput[] {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
  return Array.from({ length: count }, (_, i) =>
    learn(`k${next(12)}`, `a${next(5)}`, {
      groupId: 1 + next(3),
      answerTime: 1000 + next(50),
      message: `m${i}`,
      appendOnExisting: next(3) !== 0,
    }),
  );
}

async function installPoison(engine: StoreEngine): Promise<void> {
  if (engine.kind === 'sqlite') {
    await sql`CREATE TRIGGER poison BEFORE INSERT ON context_answer_message WHEN NEW.message = 'poison'
      BEGIN SELECT RAISE(ABORT, 'poisoned message'); END`.execute(engine.db);
    return;
  }
  await sql`CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.message = 'poison' THEN RAISE EXCEPTION 'poisoned message'; END IF; RETURN NEW; END $$`.execute(
    engine.db,
  );
  await sql`CREATE TRIGGER poison BEFORE INSERT ON context_answer_message
      FOR EACH ROW EXECUTE FUNCTION poison()`.execute(engine.db);
}

forEachEngine((engine) => {
  it('mixed new and existing contexts, the same key and answer twice: as one by one', async (t) => {
    const existing = [
      learn('old', 'x', { groupId: 1, answerTime: 10, message: 'old-x' }),
      learn('old2', 'y', { groupId: 2, answerTime: 11, message: 'old2-y' }),
    ];
    const batch = [
      learn('new', 'a', { answerTime: 20, message: 'n1', appendOnExisting: false }),
      learn('old', 'x', { groupId: 1, answerTime: 21, message: 'o1', appendOnExisting: false }),
      learn('new', 'a', { answerTime: 22, message: 'n2', appendOnExisting: false }),
      learn('new', 'a', { answerTime: 19, message: 'n3', appendOnExisting: true }),
      learn('old', 'z', { groupId: 1, answerTime: 23, message: 'o2', appendOnExisting: false }),
      learn('old2', 'y', { groupId: 2, answerTime: 24, message: 'o3', appendOnExisting: true }),
      learn('new', 'b', { groupId: 3, answerTime: 25, message: 'n4', appendOnExisting: false }),
      learn('other', 'a', { answerTime: 26, message: 'x1' }),
    ];
    const { batched, outcomes } = await compareWithOneByOne(
      t,
      engine,
      async (store) => void (await oneByOne(store, existing)),
      [batch],
    );
    assert.deepEqual(outcomes, ['created', 'existing', 'existing', 'existing', 'existing', 'existing', 'existing', 'created']);
    // The key learned three times in the batch: counts 3, the last pair's time (19, not the max),
    // the first message (a new answer) and the appended one; not n2 (append off on an existing answer).
    const found = await batched.corpus.findByKeywords('new');
    assert.equal(found?.triggerCount, 4);
    assert.equal(found?.time, 25);
    const a = found?.answers.find((answer) => answer.keywords === 'a');
    assert.deepEqual([a?.count, a?.time, a?.messages], [3, 19, ['n1', 'n3']]);
  });

  it('generated batches of many sizes give the tables one-by-one learning gives', async (t) => {
    const inputs = generated(400, 7);
    const batches: LearnInput[][] = [];
    for (let from = 0, size = 1; from < inputs.length; from += size, size = (size * 3) % 97 || 1) {
      batches.push(inputs.slice(from, from + size));
    }
    await compareWithOneByOne(t, engine, async () => undefined, batches);
  });

  it('a batch is one unit of work of a few statements; a learned key is answerable at once', async (t) => {
    const store = await engine.open(t);
    const { corpus, engine: counting } = countingStore(store);
    await corpus.learnAnswers([learn('hot', 'a', { message: 'seed' })]);
    // A snapshot taken now is cached...
    assert.equal((await corpus.findByKeywordsForReply('hot'))?.answers.length, 1);
    counting.reset();
    const batch = generated(100, 3).map((input) => ({ ...input, keywords: input.keywords === 'k0' ? 'hot' : input.keywords }));
    await corpus.learnAnswers([learn('hot', 'b', { message: 'fresh' }), ...batch]);
    assert.equal(counting.runs, 1, 'one unit of work');
    assert.ok(counting.steps.every((step) => step.write));
    if (engine.kind === 'postgres') assert.equal(counting.steps.length, 3, 'three statements on PostgreSQL');
    // ...and dropped once the batch committed.
    const answers = (await corpus.findByKeywordsForReply('hot'))?.answers.map((answer) => answer.keywords);
    assert.ok(answers?.includes('b'));
  });

  it('a failing pair: the batch is retried pair by pair, the others are kept', async (t) => {
    const inputs = generated(30, 11);
    const good = [...inputs.slice(0, 10), ...inputs.slice(10)];
    const poisoned = [...inputs.slice(0, 10), learn('k-poison', 'p', { message: 'poison' }), ...inputs.slice(10)];
    const single = await engine.open(t);
    const batched = await engine.open(t);
    await installPoison(batched.engine);
    const expected = await oneByOne(single, good);
    const result = await batched.corpus.learnAnswers(poisoned);
    assert.equal(result.retriedPairByPair, true);
    assert.match(result.error ?? '', /poisoned message/);
    assert.deepEqual(result.outcomes, [...expected.slice(0, 10), 'failed', ...expected.slice(10)]);
    assert.deepEqual(await dump(batched.engine), await dump(single.engine));
    // A batch of one is not retried: it fails alone.
    const alone = await batched.corpus.learnAnswers([learn('k-poison', 'p', { message: 'poison' })]);
    assert.deepEqual(alone, { outcomes: ['failed'], retriedPairByPair: false, error: alone.error });
    assert.equal(await batched.corpus.findByKeywords('k-poison'), null);
  });

  it('NUL characters are stripped as learn_answer strips them', async (t) => {
    const batch = [learn('n\u0000ul', 'a\u0000', { message: 'm\u0000' }), learn('nul', 'a', { message: 'again' })];
    const { outcomes } = await compareWithOneByOne(t, engine, async () => undefined, [batch]);
    assert.deepEqual(outcomes, ['created', 'existing']);
  });

  it('concurrent batches from two store instances on one database lose no update', { timeout: 60_000 }, async (t) => {
    const first = await engine.open(t);
    const second = await first.reopen();
    const keys = Array.from({ length: 20 }, (_, i) => `shared-${i}`);
    const perWriter = 600;
    const pairs = (writer: number) =>
      Array.from({ length: perWriter }, (_, i) =>
        learn(keys[(i * 7 + writer) % keys.length] as string, `a${i % 3}`, {
          groupId: 1 + (i % 2),
          answerTime: 5000 + i,
          message: `w${writer}-${i}`,
          appendOnExisting: true,
        }),
      );
    const run = async (store: LocalStore, writer: number) => {
      const all = pairs(writer);
      const outcomes: LearnOutcome[] = [];
      // Batches of different sizes in each writer, interleaving with the other's.
      const size = writer === 0 ? 37 : 53;
      for (let from = 0; from < all.length; from += size) {
        const result = await store.corpus.learnAnswers(all.slice(from, from + size));
        assert.equal(result.retriedPairByPair, false, result.error);
        outcomes.push(...result.outcomes);
      }
      return outcomes;
    };
    const [a, b] = await Promise.all([run(first, 0), run(second, 1)]);
    const outcomes = [...a, ...b];
    assert.equal(outcomes.filter((o) => o === 'created').length, keys.length, 'each key created exactly once');
    assert.equal(outcomes.filter((o) => o === 'failed').length, 0);

    // The same pairs learned one by one (in any order: with append on, only times depend on it).
    const reference = await engine.open(t);
    await oneByOne(reference, [...pairs(0), ...pairs(1)]);
    const withoutTimes = (tables: Awaited<ReturnType<typeof dump>>) => ({
      contexts: tables.contexts.map(({ time: _time, ...rest }) => rest),
      answers: tables.answers.map(({ time: _time, ...rest }) => rest),
      messages: tables.messages.map((row) => JSON.stringify(row)).sort(),
    });
    assert.deepEqual(withoutTimes(await dump(first.engine)), withoutTimes(await dump(reference.engine)));
  });

  if (engine.kind === 'postgres') {
    it('pool pressure leaves out connections held by background units of work; waiting callers count', async (t) => {
      const store = await engine.open(t, { poolMax: 2 });
      const sleepFor = (seconds: number) => () => rows({ sql: `SELECT pg_sleep(${seconds})`, parameters: [] });
      const waitUntil = async (condition: () => boolean) => {
        const deadline = Date.now() + 2000;
        while (!condition() && Date.now() < deadline) await sleep(5);
      };
      let started = 0;
      const background = [1, 2].map(() =>
        store.engine.run(function* () {
          started++;
          return yield* sleepFor(0.4)();
        }, { write: true, background: true }),
      );
      await waitUntil(() => started === 2);
      assert.equal(store.engine.pressure(), 0, 'both connections held by background work');
      // A foreground caller now waits for a connection: that is real saturation.
      const foreground = store.engine.run(sleepFor(0));
      await waitUntil(() => store.engine.pressure() > 0);
      assert.equal(store.engine.pressure(), 0.5);
      await Promise.all([...background, foreground]);
      assert.equal(store.engine.pressure(), 0);
      const held = store.engine.run(sleepFor(0.3));
      await waitUntil(() => store.engine.pressure() > 0);
      assert.equal(store.engine.pressure(), 0.5, 'a foreground connection counts');
      await held;
    });
  } else {
    it('busy time of background units of work is not pressure; other work is', async (t) => {
      const store = await engine.open(t);
      for (let i = 0; i < 30; i++) {
        await store.corpus.learnAnswers(generated(50, i));
      }
      assert.equal(store.engine.pressure(), 0, 'learn batches alone');
      for (let i = 0; i < 300; i++) await store.corpus.learnAnswer(learn(`k${i % 10}`, `a${i}`, { message: `m${i}` }));
      assert.ok(store.engine.pressure() > 0);
    });
  }
});
