/** The learn worker's batches and QueueWorker's batch mode (docs/rules.md#learn-write, #learn-queue). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Learner } from '../../../src/corpus/learner.ts';
import { LearningQueue } from '../../../src/corpus/learning-queue.ts';
import type { LearnBatchResult, LearnInput } from '../../../src/domain/corpus.ts';
import { BoundedQueue } from '../../../src/common/bounded-queue.ts';
import { silentLog, type Log } from '../../../src/common/log.ts';
import { createLearnWorker, type LearnWorkerOptions } from '../../../src/workers/learn-worker.ts';
import { QueueWorker } from '../../../src/workers/queue-worker.ts';
import { deferred, harness, settle, waitFor } from '../../support/corpus-fakes.ts';

function batchWorker(handle: (items: number[]) => Promise<number>, max: number, lingerMs = 0, log: Log = silentLog) {
  const queue = new BoundedQueue<number>(100);
  const worker = new QueueWorker<number>({
    label: 'test',
    queue,
    handle: async () => {
      throw new Error('batch mode never handles one item');
    },
    batch: { max, lingerMs, handle },
    log,
  });
  return { queue, worker };
}

describe('QueueWorker batch mode', () => {
  it('a backlog of synchronous batches lets the event loop turn every few batches', async () => {
    // Each batch busy-waits 2 ms and resolves at once, as a batch on SQLite does. What is counted
    // is how many batches run between two turns of the event loop, not milliseconds: a busy
    // machine that deschedules the process stretches the time but not the count.
    let handled = 0;
    const { queue, worker } = batchWorker(async () => {
      const until = performance.now() + 2;
      while (performance.now() < until);
      handled++;
      return 0;
    }, 1);
    for (let item = 0; item < 50; item++) queue.offer(item);
    const handledAtTurns: number[] = [];
    const tick = () => {
      handledAtTurns.push(handled);
      if (queue.size > 0) setImmediate(tick);
    };
    setImmediate(tick);
    worker.start();
    await worker.stop(5000);
    handledAtTurns.push(handled);
    // 50 batches: without turns between them the loop would turn once, after all 50.
    assert.equal(handled, 50);
    assert.ok(handledAtTurns.length >= 5, `the event loop turned ${handledAtTurns.length} times`);
    const between = handledAtTurns.slice(1).map((at, index) => at - (handledAtTurns[index] as number));
    assert.ok(Math.max(...between) <= 5, `at most ${Math.max(...between)} batches ran between two turns`);
  });

  it('takes what is queued up to the bound; counts handled and failed per item', async () => {
    const batches: number[][] = [];
    const { queue, worker } = batchWorker(async (items) => {
      batches.push(items);
      return items.includes(4) ? 1 : 0;
    }, 2);
    for (const item of [1, 2, 3, 4, 5]) queue.offer(item);
    worker.start();
    await worker.stop(1000);
    assert.deepEqual(batches, [[1, 2], [3, 4], [5]]);
    assert.deepEqual(worker.counters, { handled: 4, failed: 1, abandonedAtStop: 0 });
  });

  it('a batch smaller than the bound waits lingerMs for more', async () => {
    const batches: number[][] = [];
    const { queue, worker } = batchWorker(
      async (items) => {
        batches.push(items);
        return 0;
      },
      10,
      40,
    );
    worker.start();
    queue.offer(1);
    await new Promise((resolve) => setTimeout(resolve, 10));
    queue.offer(2);
    queue.offer(3);
    await waitFor(() => batches.length === 1);
    assert.deepEqual(batches, [[1, 2, 3]]);
    await worker.stop(1000);
  });

  it('a batch that throws counts every item failed, is logged, and the worker goes on', async () => {
    const warnings: unknown[] = [];
    const log = { ...silentLog, warn: (fields: unknown) => void warnings.push(fields) } as Log;
    const seen: number[][] = [];
    const { queue, worker } = batchWorker(
      async (items) => {
        seen.push(items);
        if (items.includes(1)) throw new Error('boom');
        return 0;
      },
      2,
      0,
      log,
    );
    for (const item of [1, 2, 3]) queue.offer(item);
    worker.start();
    await worker.stop(1000);
    assert.deepEqual(seen, [[1, 2], [3]]);
    assert.deepEqual(worker.counters, { handled: 1, failed: 2, abandonedAtStop: 0 });
    assert.equal(warnings.length, 1);
  });
});

function learnRequest(i: number, fields: { key?: string; raw?: string } = {}) {
  return {
    predecessor: { rawMessage: `pre${i}`, keywords: fields.key ?? `k${i}` },
    current: { groupId: 1, rawMessage: fields.raw ?? `m${i}`, keywords: `a${i}`, time: 100 + i, isPlainText: true },
  };
}

function learnSetup(more: Partial<LearnWorkerOptions> = {}) {
  const h = harness();
  const queue = new LearningQueue(() => h.clock.monotonicMs());
  const lags: number[] = [];
  const worker = createLearnWorker({
    queue,
    learner: new Learner(h.composite, 'atomic'),
    pressure: h.pressure,
    now: () => h.clock.monotonicMs(),
    log: silentLog,
    batchLingerMs: 0,
    onLearned: (lag) => lags.push(lag),
    ...more,
  });
  const changed: (string | undefined)[] = [];
  h.composite.onKeyChanged((key) => changed.push(key));
  const batchSizes = () =>
    h.local.calls.filter((call) => call.method === 'learnAnswers').map((call) => (call.args[0] as LearnInput[]).length);
  return { h, queue, worker, lags, changed, batchSizes };
}

describe('learn worker batches', () => {
  it('writes what is queued in batches up to the bound; lag told per pair', async () => {
    const { h, queue, worker, lags, batchSizes } = learnSetup({ batchMax: 2 });
    for (let i = 0; i < 5; i++) assert.equal(queue.enqueue(learnRequest(i)), 'queued');
    h.clock.advance(30);
    worker.start();
    await worker.stop(2000);
    assert.deepEqual(batchSizes(), [2, 2, 1]);
    assert.equal(h.local.contexts.size, 5);
    assert.deepEqual(lags, [30, 30, 30, 30, 30]);
    assert.deepEqual(worker.counters, { handled: 5, failed: 0, abandonedAtStop: 0 });
    assert.deepEqual(worker.batchCounters, { batches: 3, batchesRetried: 0, largestBatch: 2 });
  });

  it('caches are dropped and the mirror queued only after the batch committed', async () => {
    const { h, queue, worker, changed } = learnSetup();
    const commit = deferred();
    let written: LearnInput[] = [];
    h.local.override.learnAnswers = async (inputs: readonly LearnInput[]): Promise<LearnBatchResult> => {
      written = [...inputs];
      await commit.promise;
      return { outcomes: ['created', 'existing', 'created'], retriedPairByPair: false };
    };
    queue.enqueue(learnRequest(1, { key: 'x' }));
    queue.enqueue(learnRequest(2, { key: 'x' }));
    queue.enqueue(learnRequest(3, { key: 'y' }));
    worker.start();
    await waitFor(() => written.length === 3);
    await settle();
    assert.deepEqual(changed, [], 'nothing dropped before the commit');
    assert.equal(h.mirror.queue.size, 0);
    commit.resolve();
    await worker.stop(1000);
    assert.deepEqual(changed, ['x', 'y'], 'each key once, after the commit');
    assert.deepEqual(
      [h.mirror.queue.take()?.kind, h.mirror.queue.take()?.kind, h.mirror.queue.take()?.kind],
      ['insert', 'upsert', 'insert'],
    );
  });

  it('failed pairs are counted and neither dropped, mirrored nor lagged; a retried batch is counted', async () => {
    const { h, queue, worker, changed, lags } = learnSetup();
    h.local.override.learnAnswers = async (): Promise<LearnBatchResult> => ({
      outcomes: ['existing', 'failed', 'created'],
      retriedPairByPair: true,
      error: 'boom',
    });
    for (const i of [1, 2, 3]) queue.enqueue(learnRequest(i));
    worker.start();
    await worker.stop(1000);
    assert.deepEqual(worker.counters, { handled: 2, failed: 1, abandonedAtStop: 0 });
    assert.deepEqual(worker.batchCounters, { batches: 1, batchesRetried: 1, largestBatch: 3 });
    assert.deepEqual(changed, ['k1', 'k3']);
    assert.equal(h.mirror.queue.size, 2);
    assert.equal(lags.length, 2);
  });

  it('each committed batch tells its written context keys once (the fleet), without failed or rejected pairs', async () => {
    const told: string[][] = [];
    const { h, queue, worker } = learnSetup({ onBatchLearned: (keys) => told.push([...keys]) });
    h.local.override.learnAnswers = async (): Promise<LearnBatchResult> => ({
      outcomes: ['created', 'existing', 'failed', 'rejected', 'existing'],
      retriedPairByPair: true,
    });
    for (const [i, key] of [
      [1, 'x'],
      [2, 'x'],
      [3, 'y'],
      [4, 'z'],
      [5, 'w'],
    ] as const)
      queue.enqueue(learnRequest(i, { key }));
    worker.start();
    await worker.stop(1000);
    assert.deepEqual(told, [['x', 'w']]);
  });

  it('a guard rejection inside a batch: that pair is not written, the others are', async () => {
    const { h, queue, worker } = learnSetup();
    queue.enqueue(learnRequest(1));
    queue.enqueue(learnRequest(2, { raw: '晚安！希望每个庆典都能顺利举行' }));
    queue.enqueue(learnRequest(3));
    worker.start();
    await worker.stop(1000);
    const sent = h.local.calls.find((call) => call.method === 'learnAnswers')?.args[0] as LearnInput[];
    assert.deepEqual(
      sent.map((input) => input.keywords),
      ['k1', 'k3'],
    );
    assert.deepEqual([...h.local.contexts.keys()], ['k1', 'k3']);
    assert.equal(h.composite.counters.guardRejected, 1);
    assert.deepEqual(worker.counters, { handled: 3, failed: 0, abandonedAtStop: 0 });
  });

  it('under pressure the worker waits, until the backlog reaches half the level where pairs would be skipped', async () => {
    const { h, queue, worker, batchSizes } = learnSetup({ batchMax: 512 });
    h.pressure.value = 0.9;
    worker.start();
    for (let i = 0; i < 255; i++) queue.enqueue(learnRequest(i));
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.deepEqual(batchSizes(), [], 'a small backlog waits out the pressure');
    queue.enqueue(learnRequest(255));
    await waitFor(() => batchSizes().length === 1);
    assert.deepEqual(batchSizes(), [256], 'half of the 512 level: written despite the pressure');
    assert.equal(queue.counters.skippedPressure, 0);
    await worker.stop(2000);
  });

  it('stop drains the queue in batches even while pressure keeps the worker waiting', async () => {
    const { h, queue, worker, batchSizes } = learnSetup({ batchMax: 4 });
    for (let i = 0; i < 10; i++) queue.enqueue(learnRequest(i));
    h.pressure.value = 0.9;
    worker.start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(batchSizes(), [], 'waiting under pressure');
    await worker.stop(2000);
    assert.deepEqual(batchSizes(), [4, 4, 2]);
    assert.equal(queue.queue.size, 0);
    assert.equal(worker.counters.handled, 10);
  });
});
