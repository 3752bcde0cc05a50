/**
 * LifecycleScope (src/common/lifecycle.ts): start in order, stop in reverse under one shared
 * deadline, a failed start rolled back, parts that run out of time reported and not waited for,
 * tracked tasks, nested scopes, and groups that follow a condition without racing a stop.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { LifecycleScope, stopWasClean } from '../../../src/common/lifecycle.ts';

function recorder() {
  const events: string[] = [];
  const errors: string[] = [];
  const scope = (name = 'root', active?: () => boolean) =>
    new LifecycleScope(name, {
      onTaskError: (label, error) => errors.push(`${label}: ${String(error)}`),
      stopDeadlineMs: 200,
      ...(active ? { active } : {}),
    });
  const part = (name: string, stop?: (deadlineMs: number) => unknown) => ({
    name,
    start: () => {
      events.push(`start ${name}`);
    },
    stop: (deadlineMs: number) => {
      events.push(`stop ${name}`);
      return stop?.(deadlineMs);
    },
  });
  return { events, errors, scope, part };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const never = () => new Promise<void>(() => undefined);

describe('LifecycleScope', () => {
  // The scope's own timers do not hold the process open (a service's sockets do): here this does.
  let alive: NodeJS.Timeout | undefined;
  beforeEach(() => {
    alive = setInterval(() => undefined, 1000);
  });
  afterEach(() => clearInterval(alive));

  it('starts in order and stops in reverse, reporting each part', async () => {
    const { events, scope, part } = recorder();
    const root = scope();
    root.add(part('store'));
    root.add(part('workers'));
    root.add(part('server'));
    await root.start();
    assert.equal(root.running, true);
    const report = await root.stop(1000);
    assert.deepEqual(events, [
      'start store',
      'start workers',
      'start server',
      'stop server',
      'stop workers',
      'stop store',
    ]);
    assert.deepEqual(report.stopped, ['server', 'workers', 'store']);
    assert.equal(stopWasClean(report), true);
    assert.equal(report.outOfTime, false);
    assert.equal(root.running, false);
  });

  it('one deadline shared by all: each stop is told what is left, or its budget of it', async () => {
    const { scope, part } = recorder();
    const root = scope();
    const told: Record<string, number> = {};
    root.add(part('last', (ms) => void (told.last = ms)));
    root.add(part('capped', (ms) => void (told.capped = ms)), { budget: (left) => Math.min(50, left) });
    root.add(part('slow', async (ms) => {
      told.slow = ms;
      await sleep(120);
    }));
    await root.start();
    const report = await root.stop(400);
    assert.ok(told.slow !== undefined && told.slow > 390, `slow told ${told.slow}`);
    assert.equal(told.capped, 50);
    // What the slow part used is gone for the parts after it.
    assert.ok(told.last !== undefined && told.last <= 400 - 110, `last told ${told.last}`);
    assert.deepEqual(report.stopped, ['slow', 'capped', 'last']);
  });

  it('a stop that runs out of time is reported and the rest still stop, within the deadline', async () => {
    const { events, scope, part } = recorder();
    const root = scope();
    root.add(part('store'));
    root.add(part('stuck', never));
    root.add(part('quick'));
    await root.start();
    const began = performance.now();
    const report = await root.stop(100);
    const took = performance.now() - began;
    assert.ok(took < 300, `stop took ${took} ms`);
    assert.deepEqual(report.stopped, ['quick', 'store']);
    assert.deepEqual(report.timedOut, ['stuck']);
    assert.equal(report.outOfTime, true);
    assert.equal(stopWasClean(report), false);
    assert.deepEqual(events.slice(-3), ['stop quick', 'stop stuck', 'stop store'], 'the store is still closed');
  });

  it('a failed stop is reported with its error; the others stop', async () => {
    const { scope, part } = recorder();
    const root = scope();
    root.add(part('a'));
    root.add(
      part('b', () => {
        throw new Error('close failed');
      }),
    );
    await root.start();
    const report = await root.stop(100);
    assert.deepEqual(report.failed, [{ part: 'b', error: 'close failed' }]);
    assert.deepEqual(report.stopped, ['a']);
  });

  it('a failure in start stops what had started, in reverse, and rethrows', async () => {
    const { events, scope, part } = recorder();
    const root = scope();
    root.add(part('store'));
    root.add(part('workers'));
    root.add({
      name: 'listen',
      start: () => Promise.reject(new Error('address in use')),
      stop: () => events.push('stop listen'),
    });
    root.add(part('never started'));
    await assert.rejects(root.start(), /address in use/);
    assert.deepEqual(events, ['start store', 'start workers', 'stop workers', 'stop store']);
    assert.equal(root.running, false);
  });

  it('an adopted part (opened while building) is stopped even when start never ran', async () => {
    const { events, scope, part } = recorder();
    const root = scope();
    root.adopt(part('store'));
    root.add(part('workers'));
    const report = await root.stop(100);
    assert.deepEqual(events, ['stop store']);
    assert.deepEqual(report.stopped, ['store']);
  });

  it('tracked tasks: failures reported with their label, drained on stop, left ones named', async () => {
    const { errors, scope } = recorder();
    const root = scope();
    await root.start();
    let finished = false;
    root.tasks.run('persist', async () => {
      await sleep(20);
      finished = true;
    });
    root.tasks.run('boom', () => Promise.reject(new Error('bad')));
    root.tasks.track('stuck task', never());
    const report = await root.stop(100);
    assert.equal(finished, true, 'stop waited for the running task');
    assert.deepEqual(errors, ['boom: Error: bad']);
    assert.deepEqual(report.tasksLeft, ['stuck task']);
    assert.equal(report.outOfTime, true);
  });

  it('nested scopes stop inside their parent and their report names them child/part', async () => {
    const { events, scope, part } = recorder();
    const root = scope();
    root.add(part('store'));
    const corpus = root.add(scope('corpus'));
    corpus.add(part('learn'));
    corpus.add(part('stuck', never));
    root.add(part('server'));
    await root.start();
    const report = await root.stop(300);
    assert.deepEqual(events.slice(0, 4), ['start store', 'start learn', 'start stuck', 'start server']);
    assert.deepEqual(report.stopped, ['server', 'corpus/learn', 'store']);
    assert.deepEqual(report.timedOut, ['corpus/stuck']);
  });

  it('a child told a budget gives up on its stuck part within it; the parent goes on', async () => {
    const { scope, part } = recorder();
    const root = scope();
    root.add(part('store'));
    const jobs = root.add(scope('jobs'), { budget: (left) => Math.min(50, left) });
    jobs.add(part('heartbeat', never));
    await root.start();
    const began = performance.now();
    const report = await root.stop(1000);
    assert.ok(performance.now() - began < 500);
    assert.deepEqual(report.timedOut, ['jobs/heartbeat']);
    assert.deepEqual(report.stopped, ['store']);
    assert.equal(report.outOfTime, false, 'the shared deadline itself was kept');
  });

  it('a group runs its parts only while its condition holds, and follows it', async () => {
    const { events, scope, part } = recorder();
    let primary = false;
    const singletons = scope('singletons', () => primary);
    singletons.add(part('backfill'));
    singletons.add(part('heartbeat'));
    await singletons.start();
    assert.deepEqual(events, [], 'a shard worker starts none');
    primary = true;
    await singletons.follow();
    assert.deepEqual(events, ['start backfill', 'start heartbeat']);
    await singletons.refresh('backfill');
    assert.equal(events.at(-1), 'start backfill');
    primary = false;
    await singletons.follow();
    assert.deepEqual(events.slice(-2), ['stop heartbeat', 'stop backfill']);
    const report = await singletons.stop(100);
    assert.deepEqual(report.stopped, [], 'nothing left to stop');
  });

  it('a restart under way when the scope stops never starts the part again', async () => {
    const { events, scope, part } = recorder();
    let release = () => {};
    const round = new Promise<void>((resolve) => (release = resolve));
    const group = scope('singletons');
    group.add(part('maintenance', () => round));
    await group.start();
    const restarting = group.restart('maintenance');
    await sleep(5);
    const stopping = group.stop(1000);
    release();
    await restarting;
    const report = await stopping;
    await sleep(5);
    assert.deepEqual(events, ['start maintenance', 'stop maintenance']);
    assert.equal(group.running, false);
    assert.deepEqual(report.timedOut, []);
  });

  it('follow after a stop starts nothing', async () => {
    const { events, scope, part } = recorder();
    const group = scope('workers', () => true);
    group.add(part('reload'));
    await group.stop(100);
    await group.follow();
    assert.deepEqual(events, []);
  });
});
