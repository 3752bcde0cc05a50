/**
 * The bundle cache (docs/rules.md#cache-bundle): timeout, positive reuse, a miss
 * shared by the bots of a group, coalesced loads, pool timeouts, errors, bounds.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BundleCache, type BundleKey, type BundleTimings } from '../../../src/repeater/bundle-cache.ts';
import { FakeClock } from '../../../src/common/clock.ts';
import { PoolTimeoutError } from '../../../src/common/errors.ts';
import { deferred } from '../../support/corpus-fakes.ts';

interface Value {
  text: string;
}

const TIMINGS: BundleTimings = { positiveMs: 8000, negativeMs: 20_000, timeoutMs: 0 };

function key(botId = 1, overrides: Partial<BundleKey> = {}): BundleKey {
  return { groupId: 5, botId, rawMessage: '早上好', keywords: '早上好', salt: 0, ...overrides };
}

function setup() {
  const clock = new FakeClock();
  const cache = new BundleCache<Value>(() => clock.monotonicMs());
  let loads = 0;
  const found = (text: string | null) => async () => {
    loads++;
    return { value: text === null ? null : { text }, cacheable: true };
  };
  return { clock, cache, found, loads: () => loads };
}

describe('BundleCache', () => {
  it('a found bundle is reused for the positive TTL, then loaded again', async () => {
    const { clock, cache, found, loads } = setup();
    assert.deepEqual(await cache.get(key(), TIMINGS, found('早')), { value: { text: '早' }, source: 'loaded' });
    assert.deepEqual(await cache.get(key(), TIMINGS, found('x')), { value: { text: '早' }, source: 'hit' });
    assert.equal(loads(), 1);
    clock.advance(8000);
    assert.equal((await cache.get(key(), TIMINGS, found('晚'))).value?.text, '晚');
    assert.equal(loads(), 2);
  });

  it('a miss is shared by every bot of the group: three bots, one lookup', async () => {
    const { cache, found, loads } = setup();
    for (const bot of [1, 2, 3]) assert.equal((await cache.get(key(bot), TIMINGS, found(null))).value, null);
    assert.equal(loads(), 1);
    assert.equal(cache.counters.negativeHits, 2);
    // Another group is not affected.
    await cache.get(key(1, { groupId: 6 }), TIMINGS, found(null));
    assert.equal(loads(), 2);
  });

  it('a found bundle is per bot (each bot has its own recent replies)', async () => {
    const { cache, found, loads } = setup();
    await cache.get(key(1), TIMINGS, found('早'));
    await cache.get(key(2), TIMINGS, found('早'));
    assert.equal(loads(), 2);
  });

  it('concurrent identical lookups share one load', async () => {
    const { cache } = setup();
    const gate = deferred();
    let loads = 0;
    const load = async () => {
      loads++;
      await gate.promise;
      return { value: { text: '早' }, cacheable: true };
    };
    const all = Promise.all([cache.get(key(), TIMINGS, load), cache.get(key(), TIMINGS, load)]);
    gate.resolve();
    const [first, second] = await all;
    assert.equal(loads, 1);
    assert.equal(first.value?.text, '早');
    assert.equal(second.value?.text, '早');
    assert.equal(cache.counters.joined, 1);
  });

  it('a lookup slower than the timeout answers null but caches no miss; the load still stores its find', async () => {
    const { cache, found } = setup();
    const gate = deferred();
    const slow = async () => {
      await gate.promise;
      return { value: { text: '迟' }, cacheable: true };
    };
    const result = await cache.get(key(), { ...TIMINGS, timeoutMs: 20 }, slow);
    assert.deepEqual(result, { value: null, source: 'timeout' });
    assert.equal((await cache.get(key(2), TIMINGS, found('x'))).source, 'loaded', 'a timeout is not a miss');
    gate.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(await cache.get(key(), TIMINGS, found('x')), { value: { text: '迟' }, source: 'hit' });
  });

  it('neither a pool timeout nor another error is cached as a miss', async () => {
    const { cache, found, loads } = setup();
    const poolTimeout = async (): Promise<never> => {
      throw new PoolTimeoutError('pool exhausted');
    };
    assert.deepEqual(await cache.get(key(), TIMINGS, poolTimeout), { value: null, source: 'pool-timeout' });
    assert.equal((await cache.get(key(), TIMINGS, found('x'))).source, 'loaded');
    const broken = async (): Promise<never> => {
      throw new Error('boom');
    };
    const other = key(1, { rawMessage: '晚安', keywords: '晚安' });
    const failed = await cache.get(other, TIMINGS, broken);
    assert.equal(failed.source, 'error');
    assert.equal((await cache.get(other, TIMINGS, found('晚'))).source, 'loaded');
    assert.equal(loads(), 2);
  });

  it('an uncacheable miss (pool pressure) stores nothing; TTL 0 disables', async () => {
    const { cache, found, loads } = setup();
    assert.equal(
      (await cache.get(key(), TIMINGS, async () => ({ value: null, cacheable: false }))).source,
      'not-cached',
    );
    await cache.get(key(), TIMINGS, found(null));
    assert.equal(loads(), 1);
    const off = { positiveMs: 0, negativeMs: 0, timeoutMs: 0 };
    const other = key(1, { keywords: '另' });
    await cache.get(other, off, found('a'));
    await cache.get(other, off, found('a'));
    assert.equal(loads(), 3);
  });

  it('a new salt (after a ban) makes earlier entries unreachable', async () => {
    const { cache, found, loads } = setup();
    await cache.get(key(), TIMINGS, found('早'));
    await cache.get(key(1, { salt: 1 }), TIMINGS, found('早'));
    assert.equal(loads(), 2);
  });

  it('is bounded: expired entries go first, then the oldest quarter', async () => {
    const clock = new FakeClock();
    const cache = new BundleCache<Value>(() => clock.monotonicMs(), 8);
    const load = async () => ({ value: { text: 'v' }, cacheable: true });
    for (let i = 0; i < 4; i++) await cache.get(key(1, { keywords: `old${i}` }), { ...TIMINGS, positiveMs: 10 }, load);
    clock.advance(20);
    for (let i = 0; i < 4; i++) await cache.get(key(1, { keywords: `new${i}` }), TIMINGS, load);
    assert.equal(cache.size, 8);
    await cache.get(key(1, { keywords: 'more' }), TIMINGS, load);
    assert.equal(cache.size, 5, 'the four expired entries were dropped');
    for (let i = 0; i < 3; i++) await cache.get(key(1, { keywords: `fill${i}` }), TIMINGS, load);
    await cache.get(key(1, { keywords: 'over' }), TIMINGS, load);
    assert.ok(cache.size <= 8);
    assert.equal((await cache.get(key(1, { keywords: 'new0' }), TIMINGS, load)).source, 'loaded', 'oldest dropped');
  });
  it('forgetting a key drops its misses for every bot and group, and only its own', async () => {
    const { cache, found, loads } = setup();
    await cache.get(key(1), TIMINGS, found(null));
    await cache.get(key(2, { groupId: 6 }), TIMINGS, found(null));
    await cache.get(key(1, { keywords: '晚安', rawMessage: '晚安' }), TIMINGS, found(null));
    assert.equal(loads(), 3);
    assert.equal((await cache.get(key(3), TIMINGS, found('x'))).source, 'negative-hit', 'shared by the group');

    cache.forgetMisses('早上好');
    assert.deepEqual(await cache.get(key(1), TIMINGS, found('早')), { value: { text: '早' }, source: 'loaded' });
    assert.equal((await cache.get(key(2, { groupId: 6 }), TIMINGS, found('早'))).source, 'loaded');
    assert.equal((await cache.get(key(3), TIMINGS, found('x'))).source, 'loaded', 'the group-shared miss went too');
    assert.equal(
      (await cache.get(key(1, { keywords: '晚安', rawMessage: '晚安' }), TIMINGS, found('x'))).source,
      'negative-hit',
      'another key keeps its miss',
    );
  });

  it('a lookup under way when its key is forgotten does not store its miss', async () => {
    const { cache } = setup();
    const pending = deferred<{ value: Value | null; cacheable: boolean }>();
    const first = cache.get(key(), TIMINGS, () => pending.promise);
    cache.forgetMisses('早上好');
    pending.resolve({ value: null, cacheable: true });
    assert.equal((await first).source, 'loaded');
    assert.equal(
      (await cache.get(key(), TIMINGS, async () => ({ value: { text: '早' }, cacheable: true }))).source,
      'loaded',
    );
  });
});
