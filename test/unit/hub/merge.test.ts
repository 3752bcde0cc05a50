import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  collapseAnswers,
  contributionTime,
  insertTriggerCount,
  parseMessages,
  planInsert,
  unionMessages,
  upsertMessages,
  type AnswerInput,
} from '../../../src/hub/merge.ts';

const answer = (hash: string, count: number, messages: string[] = [], time = 10): AnswerInput => ({
  keywords: hash.toUpperCase(),
  hash,
  count,
  time,
  messages,
});

describe('hub merge rules', () => {
  it('unionMessages keeps the existing order, adds unseen ones, stops at the cap', () => {
    assert.deepEqual(unionMessages(['a', 'b'], ['b', 'c', 'a', 'd'], 10), ['a', 'b', 'c', 'd']);
    assert.deepEqual(unionMessages(['a', 'b'], ['c', 'd'], 3), ['a', 'b', 'c']);
    assert.deepEqual(unionMessages(['a', 'b', 'c'], ['d'], 2), ['a', 'b', 'c'], 'never drops what is stored');
  });

  it('upsertMessages: a new answer stores the message even without append; existing ones append when asked', () => {
    assert.deepEqual(upsertMessages(null, 'm', false, 32), ['m']);
    assert.deepEqual(upsertMessages(null, null, true, 32), []);
    assert.deepEqual(upsertMessages(['m'], 'm', true, 32), ['m']);
    assert.deepEqual(upsertMessages(['m'], 'n', true, 32), ['m', 'n']);
    assert.deepEqual(upsertMessages(['m'], 'n', false, 32), ['m']);
    assert.deepEqual(upsertMessages(['m'], null, true, 32), ['m']);
    assert.deepEqual(upsertMessages(['m'], 'n', true, 1), ['m']);
  });

  it('insertTriggerCount is max(old, max(1, answers))', () => {
    assert.equal(insertTriggerCount(null, 0), 1);
    assert.equal(insertTriggerCount(null, 4), 4);
    assert.equal(insertTriggerCount(7, 4), 7);
    assert.equal(insertTriggerCount(2, 4), 4);
  });

  it('contributionTime: missing, zero or negative is now; the future is clamped; fractions floored', () => {
    assert.equal(contributionTime(undefined, 1000), 1000);
    assert.equal(contributionTime(0, 1000), 1000);
    assert.equal(contributionTime(-5, 1000), 1000);
    assert.equal(contributionTime(Number.NaN, 1000), 1000);
    assert.equal(contributionTime(500.9, 1000), 500);
    assert.equal(contributionTime(5000, 1000), 1000);
  });

  it('collapseAnswers: the same keywords twice become one (later count and time, messages united)', () => {
    const collapsed = collapseAnswers([answer('a', 1, ['x'], 5), answer('b', 2), answer('a', 3, ['y', 'x'], 9)], 32);
    assert.deepEqual(collapsed, [answer('a', 3, ['x', 'y'], 9), answer('b', 2)]);
  });

  it('planInsert: new rows keep their count, existing ones take the given count and unite messages', () => {
    const stored = new Map([
      ['a', { count: 10, own: 10, messages: ['old'] }],
      ['c', { count: 1, own: 1, messages: [] }],
    ]);
    const { rows, countDelta } = planInsert([answer('a', 2, ['new', 'old']), answer('b', 5, ['b1'])], stored, 32);
    assert.deepEqual(rows, [
      { ...answer('a', 2, ['old', 'new']), exists: true, own: 2 },
      { ...answer('b', 5, ['b1']), exists: false, own: 5 },
    ]);
    assert.equal(countDelta, 2 - 10 + 5, 'an own count can go down; untouched answers do not move the sum');
  });

  it("planInsert replaces only the contributor's own share: others' counts never go down", () => {
    // 50 from other deployments, 3 of its own: an insert claiming 1 leaves the others' 50.
    const stored = new Map([['a', { count: 53, own: 3, messages: [] }]]);
    const { rows, countDelta } = planInsert([answer('a', 1)], stored, 32);
    assert.deepEqual([rows[0]?.count, rows[0]?.own, countDelta], [51, 1, -2]);
    const fresh = planInsert([answer('a', 1)], new Map([['a', { count: 50, own: 0, messages: [] }]]), 32);
    assert.deepEqual([fresh.rows[0]?.count, fresh.countDelta], [51, 1], 'a new contributor adds its share');
  });

  it('parseMessages reads a stored JSON list and treats anything else as empty', () => {
    assert.deepEqual(parseMessages('["a","b"]'), ['a', 'b']);
    assert.deepEqual(parseMessages('["a",1,null]'), ['a']);
    assert.deepEqual(parseMessages('{"a":1}'), []);
    assert.deepEqual(parseMessages('not json'), []);
  });
});
