/**
 * Composite writes (docs/rules.md#learn-write, #corpus-writes,
 * guard).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { oneAnswerContext } from '../../../src/corpus/composite-repository.ts';
import type { MirrorItem } from '../../../src/corpus/mirror-queue.ts';
import { answer, ban, context, learn } from '../../support/corpus-data.ts';
import { communityValues, GUARD, harness, type Harness } from '../../support/corpus-fakes.ts';

const POLLUTED = '晚安！希望每个庆典都能顺利举行';
const EXEMPT = '晚安！希望每个庆典都能顺利举行 —— 流媒体解析bot';

function mirrored(h: Harness): MirrorItem[] {
  const items: MirrorItem[] = [];
  for (let item = h.mirror.queue.take(); item !== undefined; item = h.mirror.queue.take()) items.push(item);
  return items;
}

describe('composite writes', () => {
  it('upsertAnswer writes local once and schedules exactly one mirror upsert', async () => {
    const h = harness({ values: communityValues('prefetch') });
    h.local.seed(context('k', { answers: [answer('a')] }));
    const input = learn('k', 'b', { groupId: 12345, message: 'hello' });
    await h.composite.upsertAnswer(input);
    assert.equal(h.local.writes().length, 1);
    assert.equal(h.local.count('upsertAnswer'), 1);
    assert.deepEqual(h.local.calls.find((c) => c.method === 'upsertAnswer')?.args, [input]);
    assert.deepEqual(mirrored(h), [{ kind: 'upsert', input }]);
  });

  it('learnAnswer on a new context mirrors an insert of a one-answer context', async () => {
    const h = harness({ values: communityValues('prefetch') });
    const input = learn('k', 'a', { groupId: 12345, answerTime: 321, message: 'raw a', appendOnExisting: false });
    assert.equal(await h.composite.learnAnswer(input), true);
    assert.equal(h.local.count('learnAnswer'), 1);
    assert.equal(h.local.writes().length, 1);
    const expected = {
      keywords: 'k',
      time: 321,
      triggerCount: 1,
      clearTime: 0,
      answers: [{ keywords: 'a', groupId: 12345, count: 1, time: 321, messages: ['raw a'] }],
      bans: [],
    };
    assert.deepEqual(oneAnswerContext(input), expected);
    assert.deepEqual(mirrored(h), [{ kind: 'insert', context: expected }]);
  });

  it('learnAnswer on an existing context mirrors an upsert', async () => {
    const h = harness({ values: communityValues('prefetch') });
    h.local.seed(context('k', { answers: [answer('a')] }));
    const input = learn('k', 'a');
    assert.equal(await h.composite.learnAnswer(input), false);
    assert.deepEqual(mirrored(h), [{ kind: 'upsert', input }]);
  });

  it('insert writes local and mirrors the context', async () => {
    const h = harness({ values: communityValues('prefetch') });
    const inserted = context('k', { answers: [answer('a'), answer('b')] });
    await h.composite.insert(inserted);
    assert.equal(h.local.count('insert'), 1);
    assert.deepEqual(mirrored(h), [{ kind: 'insert', context: inserted }]);
  });

  it('the guard rejects learnAnswer: false, nothing written, nothing mirrored', async () => {
    const h = harness({ values: communityValues('prefetch') });
    assert.equal(await h.composite.learnAnswer(learn('k', 'a', { message: POLLUTED })), false);
    assert.deepEqual(h.local.writes(), []);
    assert.equal(h.local.contexts.size, 0);
    assert.equal(h.mirror.queue.size, 0);
    assert.equal(h.composite.counters.guardRejected, 1);
  });

  it('the guard rejects upsertAnswer', async () => {
    const h = harness({ values: communityValues('prefetch') });
    h.local.seed(context('k', { answers: [answer('a')] }));
    await h.composite.upsertAnswer(learn('k', 'a', { message: `  ${POLLUTED}  ` }));
    assert.deepEqual(h.local.writes(), []);
    assert.equal(h.mirror.queue.size, 0);
    assert.equal(h.composite.counters.guardRejected, 1);
  });

  it('the guard rejects insert when any message of any answer is polluted', async () => {
    const h = harness({ values: communityValues('prefetch') });
    await h.composite.insert(
      context('k', { answers: [answer('clean', { messages: ['ok'] }), answer('bad', { messages: ['x', POLLUTED] })] }),
    );
    assert.deepEqual(h.local.writes(), []);
    assert.equal(h.mirror.queue.size, 0);
    assert.equal(h.composite.counters.guardRejected, 1);
  });

  it('exempt text passes the guard', async () => {
    const h = harness({ values: communityValues('prefetch') });
    assert.equal(await h.composite.learnAnswer(learn('k', 'a', { message: EXEMPT })), true);
    assert.deepEqual(h.local.contexts.get('k')?.answers[0]?.messages, [EXEMPT]);
    assert.equal(h.mirror.queue.size, 1);
    assert.equal(h.composite.counters.guardRejected, 0);
  });

  it('a disabled guard lets polluted text through', async () => {
    const h = harness({ values: communityValues('prefetch'), guard: { ...GUARD, enabled: false } });
    assert.equal(await h.composite.learnAnswer(learn('k', 'a', { message: POLLUTED })), true);
    await h.composite.upsertAnswer(learn('k', 'a', { message: POLLUTED }));
    await h.composite.insert(context('k2', { answers: [answer('a', { messages: [POLLUTED] })] }));
    assert.equal(h.local.writes().length, 3);
    assert.equal(h.mirror.queue.size, 3);
    assert.equal(h.composite.counters.guardRejected, 0);
  });

  it('guardRejects reports and counts a rejection without writing', () => {
    const h = harness({ values: communityValues('prefetch') });
    assert.equal(h.composite.guardRejects(POLLUTED), true);
    assert.equal(h.composite.guardRejects(EXEMPT), false);
    assert.equal(h.composite.guardRejects('好的'), false);
    assert.equal(h.composite.counters.guardRejected, 1);
    assert.deepEqual(h.local.calls, []);
  });

  it('save, replaceAnswers, appendBan, deleteExpired and findForCleanup go to local only, never mirrored', async () => {
    const h = harness({ values: communityValues('sync') });
    const saved = context('k', { time: 10, answers: [answer('a')] });
    await h.composite.save(saved);
    await h.composite.replaceAnswers('k', [answer('b', { count: 5 })], 123);
    await h.composite.appendBan('k', ban('b'));
    assert.deepEqual(await h.composite.findForCleanup(0, 50), [
      { ...saved, clearTime: 123, answers: [answer('b', { count: 5 })], bans: [ban('b')] },
    ]);
    assert.equal(await h.composite.deleteExpired(20, 3), 1);
    assert.deepEqual(
      h.local.calls.map((c) => c.method),
      ['save', 'replaceAnswers', 'appendBan', 'findForCleanup', 'deleteExpired'],
    );
    assert.equal(h.mirror.queue.size, 0);
    assert.equal(h.mirror.counters.queued, 0);
    assert.deepEqual(h.community.calls, []);
  });

  it('findBanReplyTarget and listAnswersForGroupSince delegate to local', async () => {
    const h = harness({ values: communityValues('sync') });
    h.local.seed(context('pre', { answers: [answer('reply', { groupId: 7, time: 500, messages: ['m'] })] }));
    assert.deepEqual(await h.composite.findBanReplyTarget(7, 'm'), {
      contextKeywords: 'pre',
      answerKeywords: 'reply',
    });
    assert.deepEqual(
      (await h.composite.listAnswersForGroupSince(7, 400)).map((a) => a.keywords),
      ['reply'],
    );
    assert.deepEqual(await h.composite.listAnswersForGroupSince(7, 501), []);
  });

  it('with contribution disabled, writes still reach local but nothing is mirrored', async () => {
    const h = harness({ values: communityValues('prefetch'), contribution: false });
    assert.equal(await h.composite.learnAnswer(learn('k', 'a')), true);
    assert.equal(h.local.contexts.size, 1);
    assert.equal(h.mirror.queue.size, 0);
  });
});
