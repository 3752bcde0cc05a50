/**
 * The learning queue and the learner (docs/rules.md#learn-write, #cache-exists, #learn-queue).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Learner } from '../../../src/corpus/learner.ts';
import { LEARN_QUEUE_MAX, LearningQueue, type LearnRequest } from '../../../src/corpus/learning-queue.ts';
import { FakeClock } from '../../../src/common/clock.ts';
import { CORPUS_TEXT_LIMITS } from '../../../src/common/limits.ts';
import { context, learn } from '../../support/corpus-data.ts';
import { communityValues, harness } from '../../support/corpus-fakes.ts';

function request(fields: { pre?: string | null; preKeywords?: string; raw?: string; plain?: boolean } = {}) {
  const pre = fields.pre === undefined ? '你好呀' : fields.pre;
  const value: LearnRequest = {
    predecessor: pre === null ? null : { rawMessage: pre, keywords: fields.preKeywords ?? '你好' },
    current: {
      groupId: 42,
      rawMessage: fields.raw ?? '早上好',
      keywords: '早上 好',
      time: 1234,
      isPlainText: fields.plain ?? true,
    },
  };
  return value;
}

function learningQueue(capacity?: number) {
  const clock = new FakeClock(5000);
  const queue = new LearningQueue(() => clock.monotonicMs(), capacity);
  return { queue, clock };
}

describe('LearningQueue', () => {
  it('excludes a message without predecessor, a repeat, and a quoted reply (counted excluded)', () => {
    const { queue } = learningQueue();
    assert.equal(queue.enqueue(request({ pre: null })), 'excluded');
    assert.equal(queue.enqueue(request({ pre: 'same', raw: 'same' })), 'excluded');
    assert.equal(queue.enqueue(request({ raw: '[CQ:reply,id=99]对的' })), 'excluded');
    assert.equal(queue.queue.size, 0);
    assert.deepEqual(queue.counters, { queued: 0, excluded: 3, tooLong: 0, skippedPressure: 0, droppedFull: 0 });
    // The other reply form is not excluded (docs/rules.md#learn-predecessor).
    assert.equal(queue.enqueue(request({ raw: '[reply:id=99]对的' })), 'queued');
  });

  it('an answer or keywords over the corpus text limits are not learned (counted too long)', () => {
    const { queue } = learningQueue();
    const limits = CORPUS_TEXT_LIMITS;
    assert.equal(queue.enqueue(request({ raw: 'a'.repeat(limits.answerMaxChars + 1) })), 'too_long');
    assert.equal(queue.enqueue(request({ preKeywords: 'k'.repeat(limits.keywordsMaxChars + 1) })), 'too_long');
    assert.equal(queue.enqueue(request({ raw: 'a'.repeat(limits.answerMaxChars) })), 'queued');
    assert.equal(queue.queue.size, 1);
    assert.equal(queue.counters.tooLong, 2);
  });

  it('the job: keywords = predecessor keywords, answerKeywords = current keywords, append = isPlainText', () => {
    const { queue, clock } = learningQueue();
    clock.advance(250);
    assert.equal(queue.enqueue(request({ preKeywords: '前 词', plain: false, raw: '[CQ:face,id=1]' })), 'queued');
    assert.deepEqual(queue.queue.take(), {
      input: {
        keywords: '前 词',
        groupId: 42,
        answerKeywords: '早上 好',
        answerTime: 1234,
        message: '[CQ:face,id=1]',
        appendOnExisting: false,
      },
      queuedAtMs: 5250,
    });
    queue.enqueue(request({ plain: true }));
    assert.equal(queue.queue.take()?.input.appendOnExisting, true);
    assert.equal(queue.counters.queued, 2);
  });

  it('a queue at its pressure level max(64, capacity/4) skips as pressure (512 for 2048)', () => {
    assert.equal(LEARN_QUEUE_MAX, 2048);
    const { queue } = learningQueue();
    for (let i = 0; i < 512; i++) assert.equal(queue.enqueue(request()), 'queued');
    assert.equal(queue.queuePressure, 1);
    assert.equal(queue.enqueue(request()), 'skipped_pressure');
    assert.equal(queue.queue.size, 512);
    assert.equal(queue.counters.skippedPressure, 1);
    queue.queue.take();
    assert.equal(queue.enqueue(request()), 'queued');
  });

  it('the pressure level is at least 64 (capacity 200 → 64)', () => {
    const { queue } = learningQueue(200);
    for (let i = 0; i < 64; i++) queue.enqueue(request());
    assert.equal(queue.queuePressure, 1);
    assert.equal(queue.enqueue(request()), 'skipped_pressure');
    assert.equal(queue.queue.size, 64);
    const half = learningQueue(200);
    for (let i = 0; i < 32; i++) half.queue.enqueue(request());
    assert.equal(half.queue.queuePressure, 0.5);
  });

  it('a full queue (below its pressure level) drops and counts dropped_full', () => {
    const { queue } = learningQueue(3);
    for (let i = 0; i < 3; i++) assert.equal(queue.enqueue(request()), 'queued');
    assert.equal(queue.enqueue(request()), 'dropped_full');
    assert.deepEqual(queue.counters, { queued: 3, excluded: 0, tooLong: 0, skippedPressure: 0, droppedFull: 1 });
  });
});

const POLLUTED = '希望每个庆典都顺利';

describe('Learner', () => {
  it('atomic: calls learnAnswer only', async () => {
    const h = harness({ values: communityValues('prefetch') });
    const learner = new Learner(h.composite, 'atomic', () => h.clock.monotonicMs());
    assert.equal(await learner.learn(learn('k', 'a')), true);
    assert.equal(await learner.learn(learn('k', 'a')), true);
    assert.deepEqual(
      h.local.calls.map((c) => c.method),
      ['learnAnswer', 'learnAnswer'],
    );
    assert.equal(h.local.contexts.get('k')?.answers[0]?.count, 2);
  });

  it('check-then-write: insert of a one-answer context, then upsertAnswer; one existence check', async () => {
    const h = harness({ values: communityValues('prefetch') });
    const learner = new Learner(h.composite, 'check-then-write', () => h.clock.monotonicMs());
    const first = learn('k', 'a', { groupId: 9, answerTime: 50, message: 'm1' });
    await learner.learn(first);
    await learner.learn(learn('k', 'b', { groupId: 9, answerTime: 60, message: 'm2' }));
    assert.deepEqual(
      h.local.calls.map((c) => c.method),
      ['contextExistsByKeywords', 'insert', 'upsertAnswer'],
    );
    assert.deepEqual(h.local.calls[1]?.args, [
      {
        keywords: 'k',
        time: 50,
        triggerCount: 1,
        clearTime: 0,
        answers: [{ keywords: 'a', groupId: 9, count: 1, time: 50, messages: ['m1'] }],
        bans: [],
      },
    ]);
    assert.deepEqual(
      h.local.contexts.get('k')?.answers.map((a) => a.keywords),
      ['a', 'b'],
    );
    // Mirrored like the atomic path: an insert, then an upsert.
    assert.deepEqual([h.mirror.queue.take()?.kind, h.mirror.queue.take()?.kind], ['insert', 'upsert']);
  });

  it('check-then-write: an existing context is upserted after one check', async () => {
    const h = harness({ values: communityValues('prefetch') });
    h.local.seed(context('k'));
    h.local.calls.length = 0;
    const learner = new Learner(h.composite, 'check-then-write', () => h.clock.monotonicMs());
    await learner.learn(learn('k', 'a'));
    await learner.learn(learn('k', 'a'));
    assert.deepEqual(
      h.local.calls.map((c) => c.method),
      ['contextExistsByKeywords', 'upsertAnswer', 'upsertAnswer'],
    );
  });

  it('the existence entry noted after a write expires after 45 s', async () => {
    const h = harness({ values: communityValues('prefetch') });
    const learner = new Learner(h.composite, 'check-then-write', () => h.clock.monotonicMs());
    await learner.learn(learn('k', 'a'));
    h.clock.advance(44_999);
    await learner.learn(learn('k', 'a'));
    assert.equal(h.local.count('contextExistsByKeywords'), 1);
    // The second write noted it again: 45 s from now.
    h.clock.advance(45_001);
    await learner.learn(learn('k', 'a'));
    assert.equal(h.local.count('contextExistsByKeywords'), 2);
    assert.equal(h.local.count('upsertAnswer'), 2);
  });

  it('a cached "missing" answer is replaced by the note after the insert', async () => {
    const h = harness({ values: communityValues('prefetch') });
    const learner = new Learner(h.composite, 'check-then-write', () => h.clock.monotonicMs());
    await learner.learn(learn('k', 'a'));
    assert.deepEqual(await learner.existence.get('k', async () => null), { exists: true });
  });

  it('a guard-rejected learn writes nothing and does not mark the context as existing', async () => {
    const h = harness({ values: communityValues('prefetch') });
    const learner = new Learner(h.composite, 'check-then-write', () => h.clock.monotonicMs());
    assert.equal(await learner.learn(learn('k', 'a', { message: POLLUTED })), false);
    assert.deepEqual(h.local.writes(), []);
    assert.equal(h.composite.counters.guardRejected, 1);
    // The next clean learn of the same key must create the context, not upsert into nothing.
    assert.equal(await learner.learn(learn('k', 'b', { message: 'clean' })), true);
    assert.equal(h.local.count('insert'), 1);
    assert.deepEqual(
      h.local.contexts.get('k')?.answers.map((a) => a.messages),
      [['clean']],
    );
  });

  it('atomic: a guard-rejected learn returns false and writes nothing', async () => {
    const h = harness({ values: communityValues('prefetch') });
    const learner = new Learner(h.composite, 'atomic');
    assert.equal(await learner.learn(learn('k', 'a', { message: POLLUTED })), false);
    assert.deepEqual(h.local.calls, []);
    assert.equal(h.mirror.queue.size, 0);
  });
});
