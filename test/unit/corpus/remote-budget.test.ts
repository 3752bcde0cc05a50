/** The remote budget (docs/rules.md#remote-budget). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RemoteBudget } from '../../../src/corpus/remote-budget.ts';
import { FakePressure, settle } from '../../support/corpus-fakes.ts';

function budget(limit = 2, pressureValue = 0, skip?: () => boolean) {
  const pressure = new FakePressure(pressureValue);
  return {
    pressure,
    budget: new RemoteBudget({ pressure, maxConcurrent: limit, ...(skip ? { skipNonCritical: skip } : {}) }),
  };
}

describe('RemoteBudget', () => {
  it('under pressure: shouldSkip(hot) is true and the budget is skipped', async () => {
    const { budget: b } = budget(2, 0.9);
    assert.equal(b.shouldSkip(true), true);
    assert.equal(await b.tryReadPermit(), null);
    assert.equal(await b.contributePermit(), null);
    assert.equal(b.counters.skippedPressure, 3);
    assert.equal(b.counters.skippedBusy, 0);
  });

  it('the hot-path gate is 0.70 and the background gate 0.55, both inclusive', () => {
    const { budget: b, pressure } = budget();
    pressure.value = 0.69;
    assert.equal(b.shouldSkip(true), false);
    pressure.value = 0.7;
    assert.equal(b.shouldSkip(true), true);
    pressure.value = 0.54;
    assert.equal(b.shouldSkip(false), false);
    pressure.value = 0.55;
    assert.equal(b.shouldSkip(false), true);
    pressure.value = 0.6;
    assert.equal(b.shouldSkip(true), false, 'the background path is the stricter one');
    assert.equal(b.shouldSkip(false), true);
    assert.equal(b.counters.skippedPressure, 3);
  });

  it('the background check reads the pressure exactly once', () => {
    const { budget: b, pressure } = budget(2, 0.55);
    assert.equal(b.shouldSkip(false), true);
    assert.equal(pressure.calls, 1);
  });

  it('the non-critical-db skip signal skips both paths, counted as pressure', async () => {
    let unhealthy = true;
    const { budget: b } = budget(2, 0, () => unhealthy);
    assert.equal(await b.tryReadPermit(), null);
    assert.equal(await b.contributePermit(), null);
    assert.equal(b.counters.skippedPressure, 2);
    unhealthy = false;
    assert.ok(await b.tryReadPermit());
  });

  it('healthy with limit 2: a wait=true budget is not skipped', async () => {
    const { budget: b } = budget(2);
    const release = await b.contributePermit();
    assert.equal(typeof release, 'function');
    release?.();
    assert.deepEqual(b.counters, { skippedPressure: 0, skippedBusy: 0 });
  });

  it('wait=false acquires when a permit is free', async () => {
    const { budget: b } = budget(2);
    const first = await b.tryReadPermit();
    const second = await b.tryReadPermit();
    assert.ok(first);
    assert.ok(second);
    assert.equal(await b.tryReadPermit(), null, 'the third exceeds the limit of 2');
    assert.equal(b.counters.skippedBusy, 1);
  });

  it('with limit 1 held, a second wait=false budget is skipped and counts skippedBusy', async () => {
    const { budget: b } = budget(1);
    const held = await b.contributePermit();
    assert.ok(held);
    assert.equal(await b.tryReadPermit(), null);
    assert.equal(b.counters.skippedBusy, 1);
    held();
    const next = await b.tryReadPermit();
    assert.ok(next, 'free again once released');
  });

  it('wait=true waits for a held permit, then succeeds', async () => {
    const { budget: b } = budget(1);
    const held = await b.tryReadPermit();
    assert.ok(held);
    let granted = false;
    const waiting = b.contributePermit().then((release) => {
      granted = true;
      return release;
    });
    await settle();
    assert.equal(granted, false, 'still waiting');
    held();
    const release = await waiting;
    assert.equal(granted, true);
    assert.ok(release);
    assert.equal(b.counters.skippedBusy, 0);
  });

  it('setLimit: a larger limit admits more concurrent calls at once', async () => {
    const { budget: b } = budget(1);
    assert.ok(await b.tryReadPermit());
    assert.equal(await b.tryReadPermit(), null);
    b.setLimit(3);
    assert.equal(b.limit, 3);
    const permits = [await b.tryReadPermit(), await b.tryReadPermit(), await b.tryReadPermit()];
    assert.ok(permits.every((p) => p !== null));
    assert.equal(await b.tryReadPermit(), null);
    b.setLimit(3);
    assert.equal(await b.tryReadPermit(), null, 'the same limit keeps the semaphore and its permits');
  });

  it('drainCounters returns the counts and resets them', async () => {
    const { budget: b, pressure } = budget(1);
    const held = await b.tryReadPermit();
    await b.tryReadPermit();
    pressure.value = 1;
    b.shouldSkip(true);
    assert.deepEqual(b.drainCounters(), { skippedPressure: 1, skippedBusy: 1 });
    assert.deepEqual(b.counters, { skippedPressure: 0, skippedBusy: 0 });
    held?.();
  });
});
