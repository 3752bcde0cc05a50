/**
 * The composite corpus over the real store, on SQLite and PostgreSQL: the learning path end to end
 * (LearningQueue → learn worker → composite → store), prefetch scheduling and cache invalidation
 * with a fake community source, and de-identified mirroring to a fake community target.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { configFromValues, type ConfigSnapshot } from '../../src/config/index.ts';
import type { RemoteSources } from '../../src/corpus/composite-repository.ts';
import { CorpusRuntime } from '../../src/corpus/corpus-runtime.ts';
import type { LearnStrategy } from '../../src/corpus/learner.ts';
import type { LearnableMessage } from '../../src/corpus/learning-queue.ts';
import type { MirrorTarget } from '../../src/ports/remote-corpus.ts';
import { FakeClock } from '../../src/common/clock.ts';
import { silentLog } from '../../src/common/log.ts';
import type { CorpusStore } from '../../src/store/corpus-store.ts';
import { createLearnWorker } from '../../src/workers/learn-worker.ts';
import { createMirrorWorker } from '../../src/workers/mirror-worker.ts';
import { FakeMirrorTarget, FakePrefetch, FakePressure, FakeRemote } from '../support/corpus-fakes.ts';
import { countRows, learn } from '../support/corpus-data.ts';
import { forEachEngine } from '../support/engines.ts';

const PHRASE = '希望每个庆典';
const POLLUTED = '晚安！希望每个庆典都能顺利举行';
const GUARD_VALUES = { LLM_CORPUS_LEARN_GUARD_PHRASES: PHRASE, LLM_CORPUS_LEARN_GUARD_EXEMPT: '流媒体解析bot' };
const MANUAL = {
  CHORUS_CORPUS_COMMUNITY_ENABLED: 'true',
  CHORUS_CORPUS_COMMUNITY_API_BASE: 'https://hub.example/v1/corpus',
  CHORUS_CORPUS_COMMUNITY_TOKEN: 'manual-token',
};

interface Setup {
  values: Record<string, unknown>;
  sources?: RemoteSources;
  target?: MirrorTarget | null;
  strategy?: LearnStrategy;
}

/** The corpus as `serve` wires it, over the given store, with fakes at the remote edges. */
function corpus(local: CorpusStore, setup: Setup) {
  const config: ConfigSnapshot = configFromValues(setup.values);
  const clock = new FakeClock();
  const pressure = new FakePressure(0);
  const prefetch = new FakePrefetch();
  const mirrorStart: { start?: () => void } = {};
  const runtime = new CorpusRuntime({
    local,
    pressure,
    config: () => config,
    enrollment: () => null,
    sources: () => setup.sources ?? {},
    prefetch,
    onFirstMirrorItem: () => mirrorStart.start?.(),
    clock,
    log: silentLog,
    ...(setup.strategy ? { learnStrategy: setup.strategy } : {}),
  });
  const learnWorker = createLearnWorker({
    queue: runtime.learning,
    learner: runtime.learner,
    pressure,
    now: () => clock.monotonicMs(),
    log: silentLog,
  });
  const mirror = createMirrorWorker({
    queue: runtime.mirror,
    target: () => setup.target ?? null,
    budget: runtime.budget,
    log: silentLog,
  });
  mirrorStart.start = () => mirror.worker.start();
  learnWorker.start();
  return {
    runtime,
    prefetch,
    learnWorker,
    mirror,
    /** The shutdown order of `serve`: learning drains first, then the mirror it fed. */
    async stop() {
      await learnWorker.stop(5000);
      await mirror.worker.stop(5000);
    },
  };
}

/** A group chat: each message is offered for learning with the previous one as predecessor. */
function chat(c: ReturnType<typeof corpus>, groupId: number) {
  let previous: LearnableMessage | null = null;
  let time = 1000;
  return (rawMessage: string, keywords: string, isPlainText = true) => {
    const current: LearnableMessage = { groupId, rawMessage, keywords, time: time++, isPlainText };
    const outcome = c.runtime.learning.enqueue({ predecessor: previous, current });
    previous = current;
    return outcome;
  };
}

forEachEngine((engine) => {
  for (const strategy of ['atomic', 'check-then-write'] as const) {
    it(`learning path end to end (${strategy}): pairs learned, repeats, quoted replies and polluted text not`, async (t) => {
      const store = await engine.open(t);
      const c = corpus(store.corpus, { values: GUARD_VALUES, strategy });
      const say = chat(c, 1);
      assert.equal(say('你好', '你好'), 'excluded', 'no predecessor');
      assert.equal(say('早上好', '早上'), 'queued');
      assert.equal(say('早上好', '早上'), 'excluded', 'a repeat');
      assert.equal(say('[CQ:reply,id=7]同意', '同意', false), 'excluded', 'a quoted reply');
      assert.equal(say('你好', '你好'), 'queued');
      assert.equal(say('早上好', '早上'), 'queued');
      assert.equal(say(POLLUTED, '晚安'), 'queued', 'the guard runs in the worker, not at enqueue');
      assert.equal(say('你好', '你好'), 'queued');
      assert.equal(say('[CQ:face,id=1]', '[CQ:face,id=1]', false), 'queued');
      await c.stop();
      assert.equal(c.learnWorker.counters.handled, 6);
      assert.equal(c.learnWorker.counters.failed, 0);

      const hello = await store.corpus.findByKeywords('你好');
      assert.ok(hello, 'the context of the predecessor exists');
      assert.equal(hello.triggerCount, 3);
      const byKey = new Map(hello.answers.map((a) => [a.keywords, a]));
      assert.deepEqual(byKey.get('早上'), {
        keywords: '早上',
        groupId: 1,
        count: 2,
        time: 1005,
        messages: ['早上好', '早上好'],
      });
      assert.deepEqual(byKey.get('[CQ:face,id=1]')?.messages, ['[CQ:face,id=1]']);
      assert.equal(hello.answers.length, 2);
      // Every pair with 早上 before it was a repeat, a quoted reply or polluted: none was learned.
      assert.equal(await store.corpus.contextExistsByKeywords('早上'), false);
      // A quoted reply is never learned as an answer, but it can precede one.
      assert.deepEqual(
        (await store.corpus.findByKeywords('同意'))?.answers.map((a) => [a.keywords, a.count]),
        [['你好', 1]],
      );
      // The polluted message only appears as the predecessor key, never as a stored message.
      const evening = await store.corpus.findByKeywords('晚安');
      assert.deepEqual(
        evening?.answers.map((a) => a.messages),
        [['你好']],
      );
      assert.equal(c.runtime.composite.counters.guardRejected, 1);
      assert.equal(await countRows(store.engine, 'context_answer_message'), 5);
      assert.equal(c.mirror.worker.running, false, 'community off: the mirror worker never started');
    });
  }

  it('prefetch mode: a local miss schedules a prefetch; a later local write shows after invalidation', async (t) => {
    const store = await engine.open(t);
    const community = new FakeRemote();
    const c = corpus(store.corpus, {
      values: { ...MANUAL, ...GUARD_VALUES, CHORUS_CORPUS_REMOTE_FIND_ENABLED: 'prefetch' },
      sources: { community },
    });
    t.after(() => c.stop());
    assert.equal(c.runtime.composite.wrapping(), true);
    assert.equal(await c.runtime.composite.findByKeywordsForReply('你好'), null);
    assert.deepEqual(c.prefetch.scheduled, ['你好']);
    assert.deepEqual(community.calls, [], 'prefetch mode never reads the remote on the hot path');

    // A write straight into the store (as a prefetch import does) is hidden by the cached miss...
    await store.corpus.learnAnswer(learn('你好', '早上', { groupId: 0, message: '早上好' }));
    assert.equal(await c.runtime.composite.findByKeywordsForReply('你好'), null);
    // The scheduler hears about every miss, cached or not: its own gates count repeated misses.
    assert.deepEqual(c.prefetch.scheduled, ['你好', '你好'], 'the cached miss is reported again');
    // ...until the key is invalidated.
    c.runtime.composite.invalidateFindCache('你好');
    const found = await c.runtime.composite.findByKeywordsForReply('你好');
    assert.deepEqual(
      found?.answers.map((a) => [a.keywords, a.groupId, a.messages]),
      [['早上', 0, ['早上好']]],
    );

    // A write through the composite invalidates by itself.
    assert.equal(await c.runtime.composite.findByKeywordsForReply('晚安'), null);
    assert.equal(await c.runtime.composite.learnAnswer(learn('晚安', '好梦', { message: '好梦' })), true);
    assert.equal((await c.runtime.composite.findByKeywordsForReply('晚安'))?.answers[0]?.keywords, '好梦');
    // A context whose answers are all below the threshold (count 1) is a weak hit: it is worth a
    // prefetch as well.
    assert.deepEqual(c.prefetch.scheduled, ['你好', '你好', '你好', '晚安', '晚安']);
    assert.deepEqual(community.calls, []);
  });

  it('sync mode merges the community answer into the local one (merge_counts)', async (t) => {
    const store = await engine.open(t);
    const community = new FakeRemote();
    community.seed({
      keywords: '你好',
      time: 5,
      triggerCount: 4,
      clearTime: 0,
      answers: [
        { keywords: '早上', groupId: 0, count: 3, time: 5, messages: ['早上好'] },
        { keywords: '嗨', groupId: 0, count: 1, time: 5, messages: ['嗨'] },
      ],
      bans: [],
    });
    const c = corpus(store.corpus, {
      values: { ...MANUAL, CHORUS_CORPUS_REMOTE_FIND_ENABLED: 'sync', CHORUS_CORPUS_MERGE_STRATEGY: 'merge_counts' },
      sources: { community },
    });
    t.after(() => c.stop());
    await store.corpus.learnAnswer(learn('你好', '早上', { groupId: 0, message: '早上好' }));
    await store.corpus.learnAnswer(learn('你好', '早上', { groupId: 0, message: '早上好呀' }));
    const merged = await c.runtime.composite.findByKeywordsForReply('你好');
    assert.deepEqual(
      merged?.answers.map((a) => [a.keywords, a.count]),
      [
        ['早上', 5],
        ['嗨', 1],
      ],
    );
    assert.deepEqual(community.calls, ['你好']);
  });

  it('community on with manual credentials: learning is mirrored de-identified, and stop drains the mirror', async (t) => {
    const store = await engine.open(t);
    const target = new FakeMirrorTarget();
    const c = corpus(store.corpus, { values: { ...MANUAL, ...GUARD_VALUES }, target });
    const say = chat(c, 777);
    say('你好', '你好');
    say('早上好', '早上');
    say('你好', '你好');
    say('早上好', '早上');
    say(POLLUTED, '晚安');
    await c.stop();

    // The database keeps the real group...
    const hello = await store.corpus.findByKeywords('你好');
    assert.deepEqual(
      hello?.answers.map((a) => [a.keywords, a.groupId, a.count]),
      [['早上', 777, 2]],
    );
    // ...the community sees group 0 only: an insert for the new context, then an upsert.
    assert.deepEqual(
      target.inserts.map((ctx) => [ctx.keywords, ctx.answers.map((a) => [a.keywords, a.groupId, a.messages])]),
      [
        ['你好', [['早上', 0, ['早上好']]]],
        ['早上', [['你好', 0, ['你好']]]],
      ],
    );
    assert.deepEqual(target.upserts, [
      {
        keywords: '你好',
        groupId: 0,
        answerKeywords: '早上',
        answerTime: 1003,
        message: '早上好',
        appendOnExisting: true,
      },
    ]);
    assert.equal(JSON.stringify([target.inserts, target.upserts]).includes('777'), false);
    assert.equal(JSON.stringify([target.inserts, target.upserts]).includes(PHRASE), false, 'polluted never mirrored');
    assert.equal(c.mirror.counters.sent, 3);
    assert.equal(c.mirror.worker.counters.abandonedAtStop, 0);
    assert.equal(c.runtime.mirror.queue.size, 0);
    assert.equal(c.mirror.worker.running, false);
  });
});
