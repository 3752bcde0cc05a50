/**
 * The style hints of the model's prompt (src/agent/catchphrases/style-hints.ts): what the store
 * calls approved, bounded, kept briefly per group and account, forgotten at once when the console
 * resolves a phrase of the group, and no hints (not an error) when the store cannot answer.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CatchphraseHints, STYLE_HINTS } from '../../../src/agent/catchphrases/style-hints.ts';

function fakeBook(phrases: Record<number, string[]>) {
  const calls: [number, number, number][] = [];
  let failing = false;
  return {
    calls,
    fail: (value: boolean) => (failing = value),
    approved: async (groupId: number, selfId: number, limit: number) => {
      calls.push([groupId, selfId, limit]);
      if (failing) throw new Error('database down');
      return phrases[groupId] ?? [];
    },
  };
}

describe('catchphrase style hints', () => {
  it('answers the approved phrases, bounded, read once per ttl per group and account', async () => {
    const many = Array.from({ length: 30 }, (_, n) => `句${n}`);
    const book = fakeBook({ 1: many, 2: ['好耶'] });
    let now = 0;
    const hints = new CatchphraseHints({ book, nowMs: () => now, ttlMs: 1_000 });
    const first = await hints.approvedPhrases({ groupId: 1, selfId: 9 });
    assert.equal(first.length, STYLE_HINTS.limit);
    assert.deepEqual(book.calls, [[1, 9, STYLE_HINTS.limit]]);
    await hints.approvedPhrases({ groupId: 1, selfId: 9 });
    assert.equal(book.calls.length, 1, 'cached');
    assert.deepEqual(await hints.approvedPhrases({ groupId: 2, selfId: 9 }), ['好耶']);
    assert.equal(book.calls.length, 2, 'another group is read');
    now = 1_000;
    await hints.approvedPhrases({ groupId: 1, selfId: 9 });
    assert.equal(book.calls.length, 3, 'read again after the ttl');
  });

  it('forgets a group at once when the console resolves one of its phrases', async () => {
    const book = fakeBook({ 1: ['哈哈'], 11: ['别的'] });
    const hints = new CatchphraseHints({ book, nowMs: () => 0 });
    await hints.approvedPhrases({ groupId: 1, selfId: 9 });
    await hints.approvedPhrases({ groupId: 11, selfId: 9 });
    hints.forget(1);
    await hints.approvedPhrases({ groupId: 1, selfId: 9 });
    await hints.approvedPhrases({ groupId: 11, selfId: 9 });
    assert.deepEqual(
      book.calls.map(([group]) => group),
      [1, 11, 1],
      'group 11 (not a prefix match of 1) kept',
    );
  });

  it('a failed read gives no hints, is told, and is not kept', async () => {
    const book = fakeBook({ 1: ['哈哈'] });
    const errors: unknown[] = [];
    const hints = new CatchphraseHints({ book, nowMs: () => 0, onError: (error) => errors.push(error) });
    book.fail(true);
    assert.deepEqual(await hints.approvedPhrases({ groupId: 1, selfId: 9 }), []);
    assert.equal(errors.length, 1);
    book.fail(false);
    assert.deepEqual(await hints.approvedPhrases({ groupId: 1, selfId: 9 }), ['哈哈']);
  });
});
