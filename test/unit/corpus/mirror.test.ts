/**
 * The mirror (write fan-out): scheduling and the single worker (docs/rules.md#mirror,
 * deidentify).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { oneAnswerContext } from '../../../src/corpus/composite-repository.ts';
import { MIRROR_QUEUE_MAX, MirrorQueue, type MirrorItem } from '../../../src/corpus/mirror-queue.ts';
import { RemoteBudget } from '../../../src/corpus/remote-budget.ts';
import { silentLog } from '../../../src/common/log.ts';
import { createMirrorWorker } from '../../../src/workers/mirror-worker.ts';
import { answer, ban, context, learn } from '../../support/corpus-data.ts';
import { deepCopy, FakeMirrorTarget, FakePressure, settle, waitFor } from '../../support/corpus-fakes.ts';

function mirrorQueue(options: { enabled?: boolean; capacity?: number; skip?: boolean } = {}) {
  const pressure = new FakePressure();
  let firstItems = 0;
  const queue = new MirrorQueue({
    pressure,
    contributionEnabled: () => options.enabled ?? true,
    ...(options.capacity !== undefined ? { capacity: options.capacity } : {}),
    ...(options.skip !== undefined ? { skipNonCritical: () => options.skip === true } : {}),
    onFirstItem: () => firstItems++,
  });
  return { queue, pressure, firstItems: () => firstItems };
}

describe('MirrorQueue', () => {
  it('has a capacity of 2048 by default', () => {
    assert.equal(MIRROR_QUEUE_MAX, 2048);
    assert.equal(mirrorQueue().queue.queue.capacity, 2048);
  });

  it('queues nothing and counts nothing when contribution is disabled', () => {
    const m = mirrorQueue({ enabled: false });
    m.queue.scheduleInsert(context('k'));
    m.queue.scheduleUpsert(learn('k', 'a'));
    assert.equal(m.queue.queue.size, 0);
    assert.deepEqual(m.queue.counters, { queued: 0, skippedPressure: 0, droppedFull: 0 });
    assert.equal(m.firstItems(), 0);
  });

  it('pool pressure >= 0.78 drops the item as skippedPressure; 0.77 queues it', () => {
    const m = mirrorQueue();
    m.pressure.value = 0.78;
    m.queue.scheduleUpsert(learn('k', 'a'));
    assert.equal(m.queue.queue.size, 0);
    assert.equal(m.queue.counters.skippedPressure, 1);
    m.pressure.value = 0.77;
    m.queue.scheduleUpsert(learn('k', 'a'));
    assert.equal(m.queue.queue.size, 1);
    assert.deepEqual(m.queue.counters, { queued: 1, skippedPressure: 1, droppedFull: 0 });
  });

  it('the non-critical-db skip signal drops the item as skippedPressure', () => {
    const m = mirrorQueue({ skip: true });
    m.queue.scheduleInsert(context('k'));
    assert.equal(m.queue.queue.size, 0);
    assert.equal(m.queue.counters.skippedPressure, 1);
  });

  it('a full queue drops and counts droppedFull', () => {
    const m = mirrorQueue({ capacity: 2 });
    for (let i = 0; i < 5; i++) m.queue.scheduleUpsert(learn(`k${i}`, 'a'));
    assert.equal(m.queue.queue.size, 2);
    assert.equal(m.queue.full, true);
    assert.deepEqual(m.queue.counters, { queued: 2, skippedPressure: 0, droppedFull: 3 });
  });

  it('onFirstItem is called once, on the first queued item', () => {
    const m = mirrorQueue({ capacity: 10 });
    m.pressure.value = 0.9;
    m.queue.scheduleUpsert(learn('k', 'a'));
    assert.equal(m.firstItems(), 0, 'a skipped item does not start the worker');
    m.pressure.value = 0;
    m.queue.scheduleUpsert(learn('k', 'a'));
    m.queue.scheduleInsert(context('k'));
    m.queue.scheduleUpsert(learn('k', 'b'));
    assert.equal(m.firstItems(), 1);
  });
});

function mirrorWorker(
  options: { target?: FakeMirrorTarget | null; maxConcurrent?: number; park?: (item: MirrorItem) => boolean } = {},
) {
  const pressure = new FakePressure();
  const queue = new MirrorQueue({ pressure, contributionEnabled: () => true });
  const budget = new RemoteBudget({ pressure, maxConcurrent: options.maxConcurrent ?? 3 });
  const target = options.target === undefined ? new FakeMirrorTarget() : options.target;
  const { worker, counters } = createMirrorWorker({
    queue,
    target: () => target,
    ...(options.park ? { park: options.park } : {}),
    budget,
    log: silentLog,
  });
  return { queue, budget, pressure, target, worker, counters };
}

describe('mirror worker', () => {
  it('an insert reaches the target with every answer in group 0 and no bans; the item is not mutated', async () => {
    const m = mirrorWorker();
    const original = context('k', {
      answers: [
        answer('a', { groupId: 12345, count: 3, time: 7, messages: ['m1', 'm2'] }),
        answer('b', { groupId: 678, messages: ['m3'] }),
      ],
      bans: [ban('b', { groupId: 12345, reason: '10001' })],
    });
    const before = deepCopy(original);
    m.queue.scheduleInsert(original);
    m.worker.start();
    await m.worker.stop(1000);
    assert.equal(m.target?.inserts.length, 1);
    assert.deepEqual(m.target?.inserts[0], {
      ...before,
      answers: [
        { keywords: 'a', groupId: 0, count: 3, time: 7, messages: ['m1', 'm2'] },
        { keywords: 'b', groupId: 0, count: 1, time: 100, messages: ['m3'] },
      ],
      bans: [],
    });
    assert.deepEqual(original, before, 'the queued context keeps its group ids');
    assert.equal(JSON.stringify(m.target?.inserts).includes('12345'), false, 'no group number leaves');
    assert.equal(m.counters.sent, 1);
  });

  it('a learning insert (one-answer context) carries group 0', async () => {
    const m = mirrorWorker();
    m.queue.scheduleInsert(oneAnswerContext(learn('k', 'a', { groupId: 12345 })));
    m.worker.start();
    await m.worker.stop(1000);
    assert.equal(m.target?.inserts[0]?.answers[0]?.groupId, 0);
  });

  it('an upsert reaches the target with group_id 0 and everything else unchanged', async () => {
    const m = mirrorWorker();
    const input = learn('k', 'a', { groupId: 12345, answerTime: 9, message: 'raw', appendOnExisting: false });
    m.queue.scheduleUpsert(input);
    m.worker.start();
    await m.worker.stop(1000);
    assert.deepEqual(m.target?.upserts, [{ ...input, groupId: 0 }]);
    assert.equal(input.groupId, 12345);
  });

  it('items are sent in order by exactly one worker', async () => {
    const m = mirrorWorker();
    m.queue.scheduleUpsert(learn('k1', 'a'));
    m.queue.scheduleInsert(context('k2', { answers: [answer('b')] }));
    m.queue.scheduleUpsert(learn('k3', 'c'));
    m.worker.start();
    await m.worker.stop(1000);
    assert.deepEqual(
      m.target?.upserts.map((u) => u.keywords),
      ['k1', 'k3'],
    );
    assert.deepEqual(
      m.target?.inserts.map((c) => c.keywords),
      ['k2'],
    );
    assert.equal(m.worker.counters.handled, 3);
  });

  it('waits for a budget permit (wait=true): a held permit delays the send, then it proceeds', async () => {
    const m = mirrorWorker({ maxConcurrent: 1 });
    const held = await m.budget.contributePermit();
    assert.ok(held);
    m.queue.scheduleUpsert(learn('k', 'a'));
    m.worker.start();
    await settle(10);
    assert.equal(m.target?.upserts.length, 0, 'still waiting for the permit');
    assert.equal(m.counters.skippedBudget, 0);
    assert.equal(m.budget.counters.skippedBusy, 0, 'a waiting acquire is not a busy skip');
    held();
    await waitFor(() => m.target?.upserts.length === 1);
    await m.worker.stop(1000);
    // The permit was given back after the send.
    const again = await m.budget.tryReadPermit();
    assert.ok(again);
  });

  it('background pressure (>= 0.55) skips the send and counts it', async () => {
    const m = mirrorWorker();
    m.pressure.value = 0.55;
    m.queue.scheduleUpsert(learn('k', 'a'));
    m.worker.start();
    await m.worker.stop(1000);
    assert.equal(m.target?.upserts.length, 0);
    assert.equal(m.counters.skippedBudget, 1);
    assert.equal(m.budget.counters.skippedPressure, 1);
  });

  it('a target error is counted and the worker goes on with the next item', async () => {
    const m = mirrorWorker({ maxConcurrent: 1 });
    m.target?.failures.push(new Error('hub said 500'));
    m.queue.scheduleUpsert(learn('k1', 'a'));
    m.queue.scheduleUpsert(learn('k2', 'b'));
    m.worker.start();
    await m.worker.stop(1000);
    assert.deepEqual(
      m.target?.upserts.map((u) => u.keywords),
      ['k2'],
    );
    assert.equal(m.worker.counters.failed, 1);
    assert.equal(m.worker.counters.handled, 1);
    assert.equal(m.counters.sent, 1);
    assert.ok(await m.budget.tryReadPermit(), 'the failed send released its permit');
  });

  it('without a target and nowhere to park, the item is counted as noTarget', async () => {
    const m = mirrorWorker({ target: null });
    m.queue.scheduleUpsert(learn('k', 'a'));
    m.queue.scheduleInsert(context('k', { answers: [answer('b')] }));
    m.worker.start();
    await m.worker.stop(1000);
    assert.equal(m.counters.noTarget, 2);
    assert.equal(m.counters.sent, 0);
  });

  it('without a target yet, the item is parked de-identified (what may not leave is never kept)', async () => {
    const parked: MirrorItem[] = [];
    const m = mirrorWorker({ target: null, park: (item) => parked.push(item) > 0 });
    m.queue.scheduleUpsert(learn('k', 'a', { groupId: 42, message: '好[CQ:at,qq=123456]' }));
    m.queue.scheduleUpsert(learn('k', 'b', { message: 'call 13812345678' }));
    m.worker.start();
    await m.worker.stop(1000);
    assert.deepEqual([m.counters.parked, m.counters.noTarget], [1, 0]);
    assert.deepEqual(
      parked.map((item) => (item.kind === 'upsert' ? [item.input.groupId, item.input.message] : null)),
      [[0, '好']],
    );
  });
});
