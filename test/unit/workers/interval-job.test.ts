import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import { silentLog } from '../../../src/common/log.ts';
import { IntervalJob } from '../../../src/workers/interval-job.ts';

/** Lets pending promise callbacks run (mock timers do not advance microtasks). */
async function settle(): Promise<void> {
  for (let index = 0; index < 5; index++) await Promise.resolve();
}

describe('IntervalJob', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));
  afterEach(() => mock.timers.reset());

  test('first run after the first delay, then every interval', async () => {
    let runs = 0;
    const job = new IntervalJob({
      label: 't',
      firstDelayMs: 120_000,
      intervalMs: 1_800_000,
      log: silentLog,
      run: async () => {
        runs++;
      },
    });
    job.start();
    mock.timers.tick(119_999);
    await settle();
    assert.equal(runs, 0);
    mock.timers.tick(1);
    await settle();
    assert.equal(runs, 1);
    mock.timers.tick(1_800_000);
    await settle();
    assert.equal(runs, 2);
    await job.stop();
    mock.timers.tick(10_000_000);
    await settle();
    assert.equal(runs, 2, 'no run after stop');
  });

  test('stopped from its own run and started again before the run ends: one schedule, not two', async () => {
    let runs = 0;
    let finish: () => void = () => {};
    const job: IntervalJob = new IntervalJob({
      label: 't',
      firstDelayMs: 100,
      intervalMs: 100,
      log: silentLog,
      run: () => {
        runs++;
        // The proactive check stops itself when nothing waits; a message may start it meanwhile.
        if (runs === 1) void job.stop();
        return new Promise<void>((resolve) => (finish = resolve));
      },
    });
    job.start();
    mock.timers.tick(100);
    await settle();
    assert.equal(runs, 1);
    job.start();
    finish();
    await settle();
    for (let tick = 0; tick < 5; tick++) {
      mock.timers.tick(100);
      await settle();
      finish();
      await settle();
    }
    assert.equal(runs, 6, 'one run per interval after the restart');
    assert.equal(job.counters.coalesced, 0, 'no second timer chain ticking into the same runs');
    await job.stop();
  });

  test('a tick during a run is coalesced, never overlapping', async () => {
    let active = 0;
    let maxActive = 0;
    let finish: () => void = () => {};
    const job = new IntervalJob({
      label: 't',
      firstDelayMs: 10,
      intervalMs: 10,
      log: silentLog,
      run: () => {
        active++;
        maxActive = Math.max(maxActive, active);
        return new Promise<void>((resolve) => {
          finish = () => {
            active--;
            resolve();
          };
        });
      },
    });
    job.start();
    mock.timers.tick(10);
    await settle();
    const joined = job.runNow();
    assert.equal(job.counters.coalesced, 1);
    finish();
    await joined;
    assert.equal(maxActive, 1);
    assert.equal(job.counters.runs, 1);
    await job.stop();
  });

  test('a failing run is counted and the schedule goes on', async () => {
    let calls = 0;
    const job = new IntervalJob({
      label: 't',
      firstDelayMs: 5,
      intervalMs: 5,
      log: silentLog,
      run: async () => {
        calls++;
        throw new Error('boom');
      },
    });
    job.start();
    mock.timers.tick(5);
    await settle();
    mock.timers.tick(5);
    await settle();
    assert.equal(calls, 2);
    assert.equal(job.counters.failures, 2);
    await job.stop();
  });

  test('reschedule applies new timings from now', async () => {
    let runs = 0;
    const job = new IntervalJob({
      label: 't',
      firstDelayMs: 1000,
      intervalMs: 1000,
      log: silentLog,
      run: async () => {
        runs++;
      },
    });
    job.start();
    mock.timers.tick(900);
    job.reschedule({ firstDelayMs: 50, intervalMs: 50 });
    mock.timers.tick(50);
    await settle();
    assert.equal(runs, 1);
    mock.timers.tick(50);
    await settle();
    assert.equal(runs, 2);
    await job.stop();
  });
});
