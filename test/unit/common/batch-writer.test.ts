/** BatchWriter: entries add up by key, one write per flush, bounded with drops counted, failures counted. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatchWriter } from '../../../src/common/batch-writer.ts';

function writer(options: { maxPending?: number; fail?: boolean } = {}) {
  const writes: { key: string; n: number }[][] = [];
  const failures: number[] = [];
  const w = new BatchWriter<{ key: string; n: number }>({
    write: async (batch) => {
      if (options.fail) throw new Error('database down');
      writes.push(batch.map((entry) => ({ ...entry })));
    },
    flushEveryMs: 60_000,
    maxPending: options.maxPending ?? 100,
    failed: (entries) => failures.push(entries),
  });
  const add = (key: string) =>
    w.add(
      key,
      () => ({ key, n: 0 }),
      (entry) => entry.n++,
    );
  return { w, add, writes, failures };
}

describe('BatchWriter', () => {
  it('adds up entries of one key and writes them in one call on flush', async () => {
    const { w, add, writes } = writer();
    add('a');
    add('a');
    add('b');
    assert.deepEqual(w.pending(), [
      { key: 'a', n: 2 },
      { key: 'b', n: 1 },
    ]);
    await w.flush();
    assert.deepEqual(writes, [
      [
        { key: 'a', n: 2 },
        { key: 'b', n: 1 },
      ],
    ]);
    assert.deepEqual(w.pending(), []);
    assert.deepEqual(w.counters, { recorded: 3, written: 2, dropped: 0, write_failed: 0 });
    await w.flush();
    assert.equal(writes.length, 1, 'nothing pending: no write');
  });

  it('drops a new key when full, but still adds to a known one', () => {
    const { w, add } = writer({ maxPending: 2 });
    assert.equal(add('a'), true);
    assert.equal(add('b'), true);
    assert.equal(add('c'), false);
    assert.equal(add('a'), true);
    assert.deepEqual(w.counters, { recorded: 3, written: 0, dropped: 1, write_failed: 0 });
  });

  it('a failed write is counted and reported, never thrown; stop writes what is pending', async () => {
    const failing = writer({ fail: true });
    failing.add('a');
    await failing.w.stop();
    assert.deepEqual(failing.failures, [1]);
    assert.equal(failing.w.counters.write_failed, 1);
    const ok = writer();
    ok.add('x');
    await ok.w.stop();
    assert.deepEqual(ok.writes, [[{ key: 'x', n: 1 }]]);
  });
});
