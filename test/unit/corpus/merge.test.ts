/** merge_contexts (docs/rules.md#corpus-merge). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeContexts } from '../../../src/domain/merge.ts';
import { answer, ban, context } from '../../support/corpus-data.ts';

describe('mergeContexts', () => {
  it('merge(base, null) returns the base object itself', () => {
    const base = context('k', { answers: [answer('x')] });
    assert.equal(mergeContexts(base, null, 'local_first'), base);
    assert.equal(mergeContexts(base, null, 'merge_counts'), base);
  });

  it('merge(null, extra) returns a deep copy of extra, bans included', () => {
    const extra = context('k', { answers: [answer('x', { messages: ['m'] })], bans: [ban('b')] });
    const merged = mergeContexts(null, extra, 'local_first');
    assert.notEqual(merged, extra);
    assert.deepEqual(merged, extra);
    merged?.answers[0]?.messages.push('changed');
    merged?.bans.push(ban('c'));
    assert.deepEqual(extra.answers[0]?.messages, ['m']);
    assert.equal(extra.bans.length, 1);
    assert.equal(mergeContexts(null, null, 'merge_counts'), null);
  });

  it('local_first keeps the base answer for a duplicate key, appends new answers, sums trigger counts', () => {
    const base = context('k', {
      triggerCount: 1,
      answers: [answer('x', { groupId: 1, count: 5, time: 1, messages: ['a'] })],
    });
    const extra = context('k', {
      triggerCount: 3,
      answers: [
        answer('x', { groupId: 1, count: 4, time: 3, messages: ['b'] }),
        answer('y', { groupId: 0, count: 2, messages: ['y1'] }),
      ],
    });
    const merged = mergeContexts(base, extra, 'local_first');
    assert.ok(merged);
    assert.equal(merged.triggerCount, 4);
    assert.deepEqual(
      merged.answers.map((a) => [a.keywords, a.groupId, a.count, a.messages]),
      [
        ['x', 1, 5, ['a']],
        ['y', 0, 2, ['y1']],
      ],
    );
    // The inputs are not modified.
    assert.equal(base.answers.length, 1);
    assert.equal(base.answers[0]?.count, 5);
  });

  it('merge_counts sums a duplicate answer: count 5 + 4 = 9, time max 3, messages a then b', () => {
    const base = context('k', { answers: [answer('x', { count: 5, time: 1, messages: ['a'] })] });
    const extra = context('k', { answers: [answer('x', { count: 4, time: 3, messages: ['b', 'a'] })] });
    const merged = mergeContexts(base, extra, 'merge_counts');
    assert.ok(merged);
    assert.equal(merged.answers.length, 1);
    assert.deepEqual(merged.answers[0], { ...answer('x'), count: 9, time: 3, messages: ['a', 'b'] });
    assert.deepEqual(base.answers[0]?.messages, ['a'], 'base answer not mutated');
    assert.equal(base.answers[0]?.count, 5);
  });

  it('the same answer keywords in another group is a different answer', () => {
    const base = context('k', { answers: [answer('x', { groupId: 1, count: 2 })] });
    const extra = context('k', { answers: [answer('x', { groupId: 0, count: 3 })] });
    const merged = mergeContexts(base, extra, 'merge_counts');
    assert.deepEqual(
      merged?.answers.map((a) => [a.groupId, a.count]),
      [
        [1, 2],
        [0, 3],
      ],
    );
  });

  it('bans come from base only; keywords from base; time and clear_time are the maximum', () => {
    const base = context('k', { time: 10, clearTime: 50, bans: [ban('base-ban')] });
    const extra = context('k', { time: 20, clearTime: 40, bans: [ban('extra-ban')] });
    const merged = mergeContexts(base, extra, 'merge_counts');
    assert.ok(merged);
    assert.deepEqual(
      merged.bans.map((b) => b.keywords),
      ['base-ban'],
    );
    assert.notEqual(merged.bans[0], base.bans[0], 'bans are copies');
    assert.equal(merged.keywords, 'k');
    assert.equal(merged.time, 20);
    assert.equal(merged.clearTime, 50);
    const other = mergeContexts(context('k', { clearTime: 5 }), context('k', { clearTime: 70 }), 'local_first');
    assert.equal(other?.clearTime, 70);
  });
});
