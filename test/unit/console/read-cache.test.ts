/** The console read cache with a fake clock: TTL, stale window, single flight, invalidation. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReadCache } from '../../../src/console/read-cache.ts';
import { FakeClock } from '../../../src/common/clock.ts';
import { deferred, settle } from '../../support/corpus-fakes.ts';

const FRESH = { ttlMs: 15_000, staleMs: 90_000 };

function setup(maxEntries = 100) {
  const clock = new FakeClock();
  const refreshErrors: string[] = [];
  const cache = new ReadCache({
    now: () => clock.monotonicMs(),
    maxEntries,
    onRefreshError: (key, error) => refreshErrors.push(`${key}: ${(error as Error).message}`),
  });
  let loads = 0;
  const loader = (value: string) => () => {
    loads++;
    return value;
  };
  return { clock, cache, refreshErrors, loads: () => loads, loader };
}

describe('ReadCache', () => {
  it('serves a loaded value until the TTL ends', async () => {
    const { clock, cache, loads, loader } = setup();
    assert.equal(await cache.get('k', FRESH, loader('a')), 'a');
    clock.advance(14_999);
    assert.equal(await cache.get('k', FRESH, loader('b')), 'a');
    assert.equal(loads(), 1);
  });

  it('in the stale window serves the old value at once while one refresh runs', async () => {
    const { clock, cache, loads } = setup();
    await cache.get('k', FRESH, () => 'old');
    clock.advance(20_000);
    const gate = deferred<string>();
    let refreshes = 0;
    const slow = () => {
      refreshes++;
      return gate.promise;
    };
    assert.equal(await cache.get('k', FRESH, slow), 'old');
    assert.equal(await cache.get('k', FRESH, slow), 'old', 'still old while the refresh runs');
    assert.equal(refreshes, 1, 'one refresh (single flight)');
    gate.resolve('new');
    await settle();
    assert.equal(await cache.get('k', FRESH, slow), 'new');
    assert.equal(loads(), 0);
  });

  it('past the TTL and the stale window, callers wait for the load', async () => {
    const { clock, cache } = setup();
    await cache.get('k', FRESH, () => 'old');
    clock.advance(FRESH.ttlMs + FRESH.staleMs);
    assert.equal(await cache.get('k', FRESH, () => 'new'), 'new');
  });

  it('counts the TTL from when the load finished, not when it started', async () => {
    const { clock, cache } = setup();
    const gate = deferred<string>();
    const first = cache.get('k', FRESH, () => gate.promise);
    clock.advance(10_000);
    gate.resolve('slow');
    assert.equal(await first, 'slow');
    clock.advance(14_000);
    let reloaded = false;
    assert.equal(
      await cache.get('k', FRESH, () => {
        reloaded = true;
        return 'again';
      }),
      'slow',
    );
    assert.equal(reloaded, false, 'still fresh 14 s after the load finished (24 s after it started)');
  });

  it('concurrent misses share one load; a failing load is not cached', async () => {
    const { cache } = setup();
    const gate = deferred<string>();
    let calls = 0;
    const load = () => {
      calls++;
      return gate.promise;
    };
    const both = Promise.all([cache.get('k', FRESH, load), cache.get('k', FRESH, load)]);
    gate.resolve('v');
    assert.deepEqual(await both, ['v', 'v']);
    assert.equal(calls, 1);
    await assert.rejects(
      cache.get('x', FRESH, () => Promise.reject(new Error('down'))),
      /down/,
    );
    assert.equal(await cache.get('x', FRESH, () => 'up'), 'up');
  });

  it('a failed background refresh keeps the stale value and is reported', async () => {
    const { clock, cache, refreshErrors } = setup();
    await cache.get('k', FRESH, () => 'old');
    clock.advance(20_000);
    assert.equal(await cache.get('k', FRESH, () => Promise.reject(new Error('hub down'))), 'old');
    await settle();
    assert.deepEqual(refreshErrors, ['k: hub down']);
    assert.equal(await cache.get('k', FRESH, () => 'fresh again'), 'old', 'the next caller triggers another refresh');
  });

  it('invalidation by prefix drops entries and ignores loads that were running', async () => {
    const { cache } = setup();
    await cache.get('hot:a', FRESH, () => 1);
    await cache.get('hot:b', FRESH, () => 2);
    await cache.get('status', FRESH, () => 3);
    const gate = deferred<number>();
    const running = cache.get('hot:c', FRESH, () => gate.promise);
    cache.invalidate('hot:');
    gate.resolve(9);
    assert.equal(await running, 9, 'the waiting caller still gets its answer');
    assert.equal(await cache.get('hot:c', FRESH, () => 10), 10, 'but it was not stored');
    assert.equal(await cache.get('hot:a', FRESH, () => 11), 11);
    assert.equal(await cache.get('status', FRESH, () => 12), 3);
    cache.invalidate();
    assert.equal(cache.size, 0);
  });

  it('keeps at most maxEntries, dropping the least recently loaded', async () => {
    const { cache } = setup(2);
    await cache.get('a', FRESH, () => 'a');
    await cache.get('b', FRESH, () => 'b');
    await cache.get('c', FRESH, () => 'c');
    assert.equal(cache.size, 2);
    assert.equal(await cache.get('a', FRESH, () => 'a2'), 'a2');
    assert.equal(await cache.get('c', FRESH, () => 'c2'), 'c');
  });
});
