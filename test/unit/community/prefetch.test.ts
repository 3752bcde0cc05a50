/**
 * Prefetch (docs/rules.md#prefetch): every scheduling gate in order with its
 * counter, the per-key work and import, and the workers' start/restart by mode.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PREFETCH, PrefetchQueue, PrefetchRunner } from '../../../src/community/prefetch.ts';
import type { RemoteFindMode } from '../../../src/config/index.ts';
import { RemoteBudget } from '../../../src/corpus/remote-budget.ts';
import type { Context } from '../../../src/domain/corpus.ts';
import { FakeClock } from '../../../src/common/clock.ts';
import { silentLog } from '../../../src/common/log.ts';
import { PrefetchWorkers } from '../../../src/workers/prefetch-worker.ts';
import { FakeLocal, FakePressure, FakeRemote, settle, waitFor } from '../../support/corpus-fakes.ts';

function scheduler(mode: RemoteFindMode = 'prefetch') {
  const clock = new FakeClock();
  const pressure = new FakePressure();
  const state = { mode, learn: 0 };
  const queue = new PrefetchQueue({
    mode: () => state.mode,
    pressure,
    learnQueuePressure: () => state.learn,
    now: () => clock.monotonicMs(),
  });
  const taken = () => {
    const keys: string[] = [];
    for (let key = queue.queue.take(); key !== undefined; key = queue.queue.take()) keys.push(key);
    return keys;
  };
  return { queue, clock, pressure, state, taken };
}

function remoteContext(keywords: string, answers: Context['answers']): Context {
  return { keywords, time: 5, triggerCount: 3, clearTime: 0, answers, bans: [] };
}

describe('prefetch scheduling gates', () => {
  it('mode other than prefetch: no-op', () => {
    for (const mode of ['off', 'sync'] as const) {
      const { queue } = scheduler(mode);
      queue.schedule('a long key here');
      assert.equal(queue.queue.size, 0);
      assert.equal(queue.counters.skippedMode, 1);
    }
  });

  it('global pressure: pool at 0.15, the learning queue under pressure, 64 keys queued', () => {
    const s = scheduler();
    s.pressure.value = 0.15;
    s.queue.schedule('a long key here');
    assert.equal(s.queue.counters.skippedPoolPressure, 1);
    s.pressure.value = 0.149;
    s.state.learn = 1;
    s.queue.schedule('a long key here');
    assert.equal(s.queue.counters.skippedLearnQueue, 1);
    s.state.learn = 0.99;
    for (let i = 0; i < PREFETCH.queuePressureLevel; i++) s.queue.schedule(`long key number ${i}`);
    assert.equal(s.queue.queue.size, 64);
    s.queue.schedule('one more long key');
    assert.equal(s.queue.counters.skippedQueueLevel, 1);
    assert.equal(s.queue.counters.queued, 64);
  });

  it('empty keys and keys already queued or running are skipped', () => {
    const s = scheduler();
    s.queue.schedule('   ');
    assert.equal(s.queue.counters.skippedEmpty, 1);
    s.queue.schedule('a long key here');
    s.queue.schedule('a long key here');
    assert.equal(s.queue.counters.skippedAlreadyQueued, 1);
    assert.deepEqual(s.taken(), ['a long key here']);
    s.queue.schedule('a long key here');
    assert.equal(s.queue.counters.skippedAlreadyQueued, 2, 'still running until finished');
    assert.equal(s.queue.isScheduled('a long key here'), true);
  });

  it('short keys (<= 6 characters) need two misses within 45 s; long keys go at once', () => {
    const s = scheduler();
    s.queue.schedule('你好');
    assert.equal(s.queue.queue.size, 0);
    assert.equal(s.queue.counters.deferredShortKey, 1);
    s.queue.schedule('你好');
    assert.equal(s.queue.queue.size, 1);
    s.queue.schedule('seven c');
    assert.equal(s.queue.queue.size, 2, '7 characters: at once');
    s.queue.schedule('😀😀😀😀😀😀');
    assert.equal(s.queue.queue.size, 2, 'six emoji are six characters (code points)');
    s.clock.advance(45_000);
    s.queue.schedule('😀😀😀😀😀😀');
    assert.equal(s.queue.queue.size, 2, 'the window expired: the count starts over');
    s.clock.advance(44_999);
    s.queue.schedule('😀😀😀😀😀😀');
    assert.equal(s.queue.queue.size, 3);
  });

  it('a key finished less than 90 s ago is in cool-down', () => {
    const s = scheduler();
    s.queue.schedule('a long key here');
    s.taken();
    s.queue.finish('a long key here');
    s.clock.advance(89_999);
    s.queue.schedule('a long key here');
    assert.equal(s.queue.counters.skippedRecentlyFinished, 1);
    s.clock.advance(1);
    s.queue.schedule('a long key here');
    assert.equal(s.queue.queue.size, 1);
  });

  it('a full queue drops and counts (never blocks)', () => {
    const s = scheduler();
    // Fill past the pressure level directly, as a stuck worker would leave it.
    for (let i = 0; i < PREFETCH.queueMax; i++) s.queue.queue.offer(`k${i}`);
    s.queue.schedule('a long key here');
    assert.equal(s.queue.counters.skippedQueueLevel, 1, 'the pressure level gate comes first');
    assert.equal(s.queue.queue.dropped, 0);
  });

  it('bounded maps: the short-key counter map is purged at its cap', () => {
    const s = scheduler();
    for (let i = 0; i < PREFETCH.shortKeyMapMax; i++) s.queue.schedule(`s${i}`);
    s.clock.advance(45_000);
    s.queue.schedule('new');
    assert.equal(s.queue.counters.mapsPurged, 1);
  });

  it('reset forgets queued keys and bookkeeping', () => {
    const s = scheduler();
    s.queue.schedule('a long key here');
    s.queue.schedule('你好');
    s.queue.reset();
    assert.equal(s.queue.queue.size, 0);
    assert.equal(s.queue.isScheduled('a long key here'), false);
    s.queue.schedule('你好');
    assert.equal(s.queue.queue.size, 0, 'the short-key count started over');
  });
});

function runner(options: { remote?: FakeRemote | null; maxConcurrent?: number; now?: () => number } = {}) {
  const local = new FakeLocal();
  const remote = options.remote === undefined ? new FakeRemote() : options.remote;
  const pressure = new FakePressure();
  const budget = new RemoteBudget({ pressure, maxConcurrent: options.maxConcurrent ?? 3 });
  const invalidated: string[] = [];
  const run = new PrefetchRunner({
    local,
    remote: () => remote,
    budget,
    invalidate: (key) => invalidated.push(key),
    rejects: (message) => message.includes('POLLUTED'),
    answerThreshold: () => 3,
    ...(options.now ? { now: options.now } : {}),
  });
  return { run, local, remote, pressure, budget, invalidated };
}

describe('prefetch work and import', () => {
  it('local missing: one insert of the whole context, group ids as sent, one invalidation', async () => {
    const r = runner();
    r.remote?.seed(remoteContext('早上好', [{ keywords: '早', groupId: 0, count: 4, time: 5, messages: ['早啊'] }]));
    assert.equal(await r.run.run('早上好'), 'imported');
    assert.deepEqual(
      r.local.writes().map((call) => call.method),
      ['insert'],
    );
    assert.equal(r.local.contexts.get('早上好')?.answers[0]?.groupId, 0);
    assert.equal(r.local.contexts.get('早上好')?.answers[0]?.count, 4);
    assert.deepEqual(r.invalidated, ['早上好']);
    assert.equal(r.run.counters.importedInserts, 1);
  });

  it('local present: community answers merged with their counts, the larger count kept; twice changes nothing', async () => {
    const r = runner();
    r.local.seed(
      remoteContext('k', [
        { keywords: '嗯', groupId: 101, count: 1, time: 3, messages: ['嗯'] },
        { keywords: 'a', groupId: 0, count: 2, time: 2, messages: ['m0'] },
      ]),
    );
    r.remote?.seed(
      remoteContext('k', [
        { keywords: 'a', groupId: 0, count: 1, time: 7, messages: [' m1 ', '  ', 'm2'] },
        { keywords: 'b', groupId: 0, count: 9, time: 8, messages: ['n1'] },
      ]),
    );
    assert.equal(await r.run.run('k'), 'imported', 'a weak local hit (counts 1 and 2 < 3) is filled');
    const merged = () =>
      r.local.contexts
        .get('k')
        ?.answers.map((a) => [a.keywords, a.groupId, a.count, [...a.messages].sort()])
        .sort((x, y) => String(x[0]).localeCompare(String(y[0])));
    const once = merged();
    assert.deepEqual(once, [
      ['a', 0, 2, ['m0', 'm1', 'm2']],
      ['b', 0, 9, ['n1']],
      ['嗯', 101, 1, ['嗯']],
    ]);
    // Now reply-ready: the next run is a local hit; importing the same context again changes nothing.
    assert.equal(await r.run.run('k'), 'local_hit');
    await r.run.import('k', r.remote!.contexts.get('k')!);
    assert.deepEqual(merged(), once);
  });

  it('local already has a reply-ready answer: skipped without a remote read', async () => {
    const r = runner();
    r.local.seed(remoteContext('k', [{ keywords: 'a', groupId: 1, count: 3, time: 1, messages: ['x'] }]));
    assert.equal(await r.run.run('k'), 'local_hit');
    assert.deepEqual(r.remote?.calls, []);
  });

  it('remote miss, remote error, no source, pressure, busy budget', async () => {
    const r = runner();
    assert.equal(await r.run.run('k'), 'remote_miss');
    r.remote?.seed(remoteContext('empty', []));
    assert.equal(await r.run.run('empty'), 'remote_miss', 'a context without answers is a miss');
    r.remote!.behaviour = 'throwing';
    assert.equal(await r.run.run('k'), 'remote_error');
    assert.equal(await r.run.run('k'), 'backing_off', 'a failing hub is not asked again at once');
    assert.equal(await runner({ remote: null }).run.run('k'), 'no_source');
    const pressed = runner();
    pressed.pressure.value = 0.55;
    assert.equal(await pressed.run.run('k'), 'skipped_pressure');
    const busy = runner({ maxConcurrent: 1 });
    const held = await busy.budget.tryReadPermit();
    assert.equal(await busy.run.run('k'), 'skipped_budget');
    held?.();
    assert.deepEqual(r.run.counters, {
      pulled: 3,
      skippedPressure: 0,
      skippedNoSource: 0,
      skippedLocalHit: 0,
      skippedBudget: 0,
      remoteMisses: 2,
      remoteErrors: 1,
      skippedBackoff: 1,
      importedInserts: 0,
      importedUpserts: 0,
      guardRejected: 0,
    });
    assert.deepEqual(r.local.writes(), []);
  });

  it('backs off from a failing hub: 1 s, then 2 s, …; a good pull resets it', async () => {
    let now = 0;
    const r = runner({ now: () => now });
    r.remote!.behaviour = 'throwing';
    assert.equal(await r.run.run('a'), 'remote_error');
    now = 999;
    assert.equal(await r.run.run('b'), 'backing_off');
    now = 1_000;
    assert.equal(await r.run.run('c'), 'remote_error');
    now = 2_999;
    assert.equal(await r.run.run('d'), 'backing_off');
    now = 3_000;
    r.remote!.behaviour = 'healthy';
    assert.equal(await r.run.run('e'), 'remote_miss');
    r.remote!.behaviour = 'throwing';
    assert.equal(await r.run.run('f'), 'remote_error');
    now = 4_000;
    assert.equal(await r.run.run('g'), 'remote_error', 'after a good pull the pause starts at 1 s again');
    assert.equal(r.run.counters.skippedBackoff, 2);
  });

  it('messages the contamination guard rejects are not imported', async () => {
    const r = runner();
    r.remote?.seed(
      remoteContext('k', [
        { keywords: 'a', groupId: 0, count: 1, time: 1, messages: ['POLLUTED text'] },
        { keywords: 'b', groupId: 0, count: 1, time: 1, messages: ['fine', 'POLLUTED too'] },
      ]),
    );
    assert.equal(await r.run.run('k'), 'imported');
    assert.deepEqual(r.local.contexts.get('k')?.answers, [
      { keywords: 'b', groupId: 0, count: 1, time: 1, messages: ['fine'] },
    ]);
    assert.equal(r.run.counters.guardRejected, 2);
  });
});

describe('prefetch workers', () => {
  it('start only in prefetch mode; each key ends in cool-down; restart follows the mode', async () => {
    const s = scheduler();
    const r = runner();
    r.remote?.seed(
      remoteContext('a long key here', [{ keywords: 'x', groupId: 0, count: 1, time: 1, messages: ['m'] }]),
    );
    const workers = new PrefetchWorkers({
      queue: s.queue,
      runner: r.run,
      mode: () => s.state.mode,
      concurrency: () => 1,
      log: silentLog,
    });
    s.state.mode = 'off';
    assert.equal(workers.start(), false);
    s.state.mode = 'prefetch';
    assert.equal((await workers.restart()).detail, 'prefetch workers restarted');
    assert.equal(workers.running, true);
    s.queue.schedule('a long key here');
    await waitFor(() => r.local.contexts.has('a long key here'));
    await settle();
    assert.equal(s.queue.isScheduled('a long key here'), false);
    s.queue.schedule('a long key here');
    assert.equal(s.queue.counters.skippedRecentlyFinished, 1);
    s.state.mode = 'off';
    assert.match((await workers.restart()).detail, /stopped/);
    assert.equal(workers.running, false);
    assert.equal(workers.counters().handled, 1);
    assert.equal(workers.counters().restarts, 2);
    await workers.stop(100);
  });
});
