/** QueueWorker and the learn worker (docs/rules.md#learn-write, #learn-queue worker wait). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Learner } from '../../../src/corpus/learner.ts';
import { LearningQueue } from '../../../src/corpus/learning-queue.ts';
import { BoundedQueue } from '../../../src/common/bounded-queue.ts';
import { silentLog } from '../../../src/common/log.ts';
import { createLearnWorker } from '../../../src/workers/learn-worker.ts';
import { QueueWorker } from '../../../src/workers/queue-worker.ts';
import { communityValues, deferred, harness, settle, waitFor } from '../../support/corpus-fakes.ts';

function worker(handle: (item: number) => Promise<void>, concurrency = 1) {
  const queue = new BoundedQueue<number>(100);
  const w = new QueueWorker<number>({ label: 'test', queue, handle, concurrency, log: silentLog });
  return { queue, worker: w };
}

describe('QueueWorker', () => {
  it('processes items in order, including items queued while it waits', async () => {
    const seen: number[] = [];
    const { queue, worker: w } = worker(async (item) => {
      seen.push(item);
    });
    for (const item of [1, 2, 3]) queue.offer(item);
    w.start();
    assert.equal(w.running, true);
    await waitFor(() => seen.length === 3);
    queue.offer(4);
    queue.offer(5);
    await waitFor(() => seen.length === 5);
    assert.deepEqual(seen, [1, 2, 3, 4, 5]);
    await w.stop(1000);
    assert.equal(w.running, false);
    assert.equal(w.counters.handled, 5);
  });

  it('stop drains what is queued before its deadline', async () => {
    const seen: number[] = [];
    const { queue, worker: w } = worker(async (item) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      seen.push(item);
    });
    w.start();
    for (let i = 0; i < 6; i++) queue.offer(i);
    await w.stop(2000);
    assert.deepEqual(seen, [0, 1, 2, 3, 4, 5]);
    assert.equal(queue.size, 0);
    assert.deepEqual(w.counters, { handled: 6, failed: 0, abandonedAtStop: 0 });
  });

  it('stop with a handler that never finishes abandons and counts what is still queued', async () => {
    const started: number[] = [];
    const { queue, worker: w } = worker(async (item) => {
      started.push(item);
      await new Promise(() => undefined);
    });
    for (const item of [1, 2, 3]) queue.offer(item);
    w.start();
    await settle();
    // stop's deadline timer is unref'd (it never holds the process): keep the loop alive meanwhile.
    const keepAlive = setTimeout(() => undefined, 5000);
    const before = Date.now();
    await w.stop(50);
    clearTimeout(keepAlive);
    assert.ok(Date.now() - before < 1000, 'stop returns at its deadline');
    assert.deepEqual(started, [1]);
    assert.equal(w.counters.abandonedAtStop, 2);
    assert.equal(queue.size, 0);
    assert.equal(w.running, false);
  });

  it('a failing item is counted and the worker goes on', async () => {
    const seen: number[] = [];
    const { queue, worker: w } = worker(async (item) => {
      if (item === 2) throw new Error('boom');
      seen.push(item);
    });
    for (const item of [1, 2, 3]) queue.offer(item);
    w.start();
    await w.stop(1000);
    assert.deepEqual(seen, [1, 3]);
    assert.deepEqual(w.counters, { handled: 2, failed: 1, abandonedAtStop: 0 });
  });

  it('with concurrency 2, two items are handled at once', async () => {
    let inFlight = 0;
    let peak = 0;
    const gate = deferred();
    const { queue, worker: w } = worker(async () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await gate.promise;
      inFlight--;
    }, 2);
    for (let i = 0; i < 4; i++) queue.offer(i);
    w.start();
    await settle();
    assert.equal(peak, 2);
    gate.resolve();
    await w.stop(1000);
    assert.equal(w.counters.handled, 4);
  });

  it('stop on a worker that never started returns at once; start twice runs one set of loops', async () => {
    const seen: number[] = [];
    const { queue, worker: w } = worker(async (item) => {
      seen.push(item);
    });
    await w.stop(10);
    w.start();
    w.start();
    queue.offer(1);
    await w.stop(1000);
    assert.deepEqual(seen, [1]);
  });
});

describe('learn worker', () => {
  it('waits while pool pressure is >= 0.25 and proceeds when it drops', async () => {
    const h = harness({ values: communityValues('prefetch') });
    const queue = new LearningQueue(() => h.clock.monotonicMs());
    const learner = new Learner(h.composite, 'atomic');
    const lags: number[] = [];
    const w = createLearnWorker({
      queue,
      learner,
      pressure: h.pressure,
      now: () => h.clock.monotonicMs(),
      log: silentLog,
      onLearned: (lag) => lags.push(lag),
    });
    assert.equal(
      queue.enqueue({
        predecessor: { rawMessage: 'hi', keywords: 'hi' },
        current: { groupId: 1, rawMessage: 'yo', keywords: 'yo', time: 10, isPlainText: true },
      }),
      'queued',
    );
    h.pressure.value = 0.25;
    w.start();
    await new Promise((resolve) => setTimeout(resolve, 450));
    assert.equal(h.local.count('learnAnswer'), 0, 'nothing written under pressure');
    assert.ok(h.pressure.calls >= 2, 'pressure re-checked while waiting');
    h.clock.advance(700);
    h.pressure.value = 0.24;
    await waitFor(() => h.local.count('learnAnswer') === 1, 2000);
    assert.deepEqual(h.local.contexts.get('hi')?.answers[0]?.messages, ['yo']);
    assert.deepEqual(lags, [700]);
    await w.stop(1000);
    assert.equal(w.counters.handled, 1);
  });
});
