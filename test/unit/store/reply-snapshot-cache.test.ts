/** ReplySnapshotCache (docs/rules.md#cache-find, #cache-snapshot) with a fake clock and fake loaders. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { newContext, type Context } from '../../../src/domain/corpus.ts';
import { PoolTimeoutError } from '../../../src/common/errors.ts';
import { DB_FAILURE_NEGATIVE_CACHE_MS } from '../../../src/common/limits.ts';
import { ReplySnapshotCache, type ReplySnapshotCacheOptions } from '../../../src/store/reply-snapshot-cache.ts';

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A fake monotonic clock. It starts well above 0: lru-cache treats a start time of 0 as "no TTL". */
function fakeClock() {
  let now = 100_000;
  return {
    now: () => now,
    /** Advance, then let lru-cache's 1 ms memo of the clock reading lapse (it is real-time based). */
    async advance(ms: number) {
      now += ms;
      await sleep(5);
    },
  };
}

/** A loader that counts its calls and answers with `value(call)`. */
function loader(value: (call: number) => Promise<Context | null> | Context | null) {
  const counter = {
    calls: 0,
    load: async () => value(++counter.calls),
  };
  return counter;
}

/**
 * The cache's timeout timer is unref'd (a real load holds a socket that keeps the process alive);
 * a fake load holds nothing, so keep the event loop alive while waiting on it.
 */
async function keepingAlive<T>(promise: Promise<T>): Promise<T> {
  const timer = setInterval(() => undefined, 1000);
  try {
    return await promise;
  } finally {
    clearInterval(timer);
  }
}

function setup(options: Partial<ReplySnapshotCacheOptions> = {}) {
  const clock = fakeClock();
  const cache = new ReplySnapshotCache({ ttlMs: 5000, max: 100, queryTimeoutMs: 2000, now: clock.now, ...options });
  return { clock, cache };
}

describe('ReplySnapshotCache', () => {
  it('counts misses and hits, and caches misses (null) as well as contexts', async () => {
    const { cache } = setup();
    const found = loader(() => newContext('a', 1));
    const missing = loader(() => null);
    const first = await cache.get('a', found.load);
    assert.equal(first?.keywords, 'a');
    assert.equal(await cache.get('a', found.load), first);
    assert.equal(await cache.get('none', missing.load), null);
    assert.equal(await cache.get('none', missing.load), null);
    assert.equal(found.calls, 1);
    assert.equal(missing.calls, 1);
    assert.equal(cache.size, 2);
    assert.deepEqual(cache.stats, { hits: 2, misses: 2, timeouts: 0, poolTimeouts: 0, failureSkips: 0 });
  });

  it('expires entries after the TTL', async () => {
    const { cache, clock } = setup({ ttlMs: 1000 });
    const load = loader((call) => newContext(`v${call}`, 1));
    assert.equal((await cache.get('k', load.load))?.keywords, 'v1');
    await clock.advance(999);
    assert.equal((await cache.get('k', load.load))?.keywords, 'v1');
    await clock.advance(2);
    assert.equal((await cache.get('k', load.load))?.keywords, 'v2');
    assert.equal(load.calls, 2);
  });

  it('evicts the least recently used entry beyond max', async () => {
    const { cache } = setup({ max: 2 });
    const loads = { a: loader(() => newContext('a', 1)), b: loader(() => newContext('b', 1)), c: loader(() => null) };
    await cache.get('a', loads.a.load);
    await cache.get('b', loads.b.load);
    await cache.get('a', loads.a.load); // a is now the most recently used
    await cache.get('c', loads.c.load); // evicts b
    assert.equal(cache.size, 2);
    await cache.get('a', loads.a.load);
    assert.equal(loads.a.calls, 1);
    await cache.get('b', loads.b.load);
    assert.equal(loads.b.calls, 2);
  });

  it('single flight: concurrent gets of one key share one load', async () => {
    const { cache } = setup();
    const gate = deferred<Context | null>();
    const load = loader(() => gate.promise);
    const first = cache.get('k', load.load);
    const second = cache.get('k', load.load);
    gate.resolve(newContext('k', 1));
    const [a, b] = await Promise.all([first, second]);
    assert.equal(load.calls, 1);
    assert.ok(a);
    assert.equal(a, b);
    assert.equal(await cache.get('k', load.load), a);
    assert.equal(load.calls, 1);
  });

  it('a load past the query timeout answers null, caches nothing, and the late result is not stored', async () => {
    const { cache } = setup({ queryTimeoutMs: 20 });
    const slow = deferred<Context | null>();
    const load = loader((call) => (call === 1 ? slow.promise : newContext('fresh', 1)));
    assert.equal(await keepingAlive(cache.get('k', load.load)), null);
    assert.equal(cache.stats.timeouts, 1);
    assert.equal(cache.size, 0);
    assert.equal((await cache.get('k', load.load))?.keywords, 'fresh');
    assert.equal(load.calls, 2);
    slow.resolve(newContext('late', 1));
    await sleep(1);
    assert.equal((await cache.get('k', load.load))?.keywords, 'fresh');
    assert.equal(load.calls, 2);
    assert.equal(cache.stats.poolTimeouts, 0);
    assert.equal(cache.stats.failureSkips, 0);
  });

  it('a pool timeout answers null and skips the key for 2 s without loading', async () => {
    const { cache, clock } = setup();
    const load = loader((call) => {
      if (call === 1) throw new PoolTimeoutError('pool exhausted');
      return newContext('k', 1);
    });
    assert.equal(await cache.get('k', load.load), null);
    assert.equal(await cache.get('k', load.load), null);
    assert.equal(load.calls, 1);
    assert.equal(cache.stats.poolTimeouts, 1);
    assert.equal(cache.stats.failureSkips, 1);
    assert.equal(cache.size, 0);
    await clock.advance(DB_FAILURE_NEGATIVE_CACHE_MS - 1);
    assert.equal(await cache.get('k', load.load), null);
    assert.equal(load.calls, 1);
    await clock.advance(2);
    assert.equal((await cache.get('k', load.load))?.keywords, 'k');
    assert.equal(load.calls, 2);
    // Other keys were never marked.
    assert.equal((await cache.get('other', load.load))?.keywords, 'k');
  });

  it('other errors propagate, uncached and unmarked', async () => {
    const { cache } = setup();
    const load = loader((call) => {
      if (call === 1) throw new Error('boom');
      return newContext('k', 1);
    });
    await assert.rejects(cache.get('k', load.load), /boom/);
    assert.equal(cache.size, 0);
    assert.equal((await cache.get('k', load.load))?.keywords, 'k');
    assert.equal(load.calls, 2);
    assert.equal(cache.stats.poolTimeouts, 0);
    assert.equal(cache.stats.failureSkips, 0);
  });

  it('invalidate(key) drops that entry and its failure mark; invalidate() drops everything', async () => {
    const { cache } = setup();
    const a = loader((call) => newContext(`a${call}`, 1));
    const b = loader((call) => newContext(`b${call}`, 1));
    await cache.get('a', a.load);
    await cache.get('b', b.load);
    cache.invalidate('a');
    assert.equal((await cache.get('a', a.load))?.keywords, 'a2');
    assert.equal((await cache.get('b', b.load))?.keywords, 'b1');
    cache.invalidate();
    assert.equal(cache.size, 0);
    assert.equal((await cache.get('a', a.load))?.keywords, 'a3');
    assert.equal((await cache.get('b', b.load))?.keywords, 'b2');

    const failing = loader((call) => {
      if (call === 1) throw new PoolTimeoutError('timeout');
      return newContext('c', 1);
    });
    assert.equal(await cache.get('c', failing.load), null);
    cache.invalidate('c');
    assert.equal((await cache.get('c', failing.load))?.keywords, 'c');
  });

  for (const [name, invalidate] of [
    ['invalidate(key)', (cache: ReplySnapshotCache) => cache.invalidate('k')],
    ['invalidate()', (cache: ReplySnapshotCache) => cache.invalidate()],
  ] as const) {
    it(`${name} drops an in-flight load: its result reaches its caller but is not stored`, async () => {
      const { cache } = setup();
      const gate = deferred<Context | null>();
      const load = loader((call) => (call === 1 ? gate.promise : newContext('after', 1)));
      const pending = cache.get('k', load.load);
      invalidate(cache);
      gate.resolve(newContext('before', 1));
      assert.equal((await pending)?.keywords, 'before');
      assert.equal(cache.size, 0);
      assert.equal((await cache.get('k', load.load))?.keywords, 'after');
      assert.equal(load.calls, 2);
    });
  }
});
