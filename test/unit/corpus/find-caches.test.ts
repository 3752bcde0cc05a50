/**
 * The composite's find caches (docs/rules.md#cache-find, #style-hotpath).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FindCaches } from '../../../src/corpus/find-caches.ts';
import type { Context } from '../../../src/domain/corpus.ts';
import { FakeClock } from '../../../src/common/clock.ts';
import { PoolTimeoutError } from '../../../src/common/errors.ts';
import { answer, context, learn } from '../../support/corpus-data.ts';
import { communityValues, deferred, harness, settle } from '../../support/corpus-fakes.ts';

function caches(clock = new FakeClock()) {
  return { clock, caches: new FindCaches({ ttlMs: 45_000, max: 50_000 }, () => clock.monotonicMs()) };
}

for (const which of ['merged', 'reply'] as const) {
  describe(`${which} find cache`, () => {
    it('a second call for a hit and for a miss does not load again (2 loads for 4 lookups)', async () => {
      const { caches: c } = caches();
      const hit = context('hit', { answers: [answer('a')] });
      let loads = 0;
      const loader = (value: Context | null) => async () => {
        loads++;
        return value;
      };
      assert.deepEqual(await c[which].get('hit', loader(hit)), hit);
      assert.equal(await c[which].get('miss', loader(null)), null);
      assert.deepEqual(await c[which].get('hit', loader(null)), hit);
      assert.equal(await c[which].get('miss', loader(hit)), null);
      assert.equal(loads, 2);
    });

    it('concurrent misses for one key share one load', async () => {
      const { caches: c } = caches();
      const gate = deferred<Context | null>();
      let loads = 0;
      const load = () => {
        loads++;
        return gate.promise;
      };
      const first = c[which].get('k', load);
      const second = c[which].get('k', load);
      await settle();
      const value = context('k', { answers: [answer('a')] });
      gate.resolve(value);
      assert.deepEqual(await first, value);
      assert.deepEqual(await second, value);
      assert.equal(loads, 1);
    });

    it('a pool timeout gives null twice with one load, then loads again after 2 s', async () => {
      const { clock, caches: c } = caches();
      let loads = 0;
      const failing = async (): Promise<Context | null> => {
        loads++;
        throw new PoolTimeoutError('pool exhausted');
      };
      assert.equal(await c[which].get('k', failing), null);
      assert.equal(await c[which].get('k', failing), null);
      assert.equal(loads, 1);
      clock.advance(1999);
      assert.equal(await c[which].get('k', failing), null);
      assert.equal(loads, 1, 'still inside the 2 s failure mark');
      clock.advance(1);
      const value = context('k', { answers: [answer('a')] });
      assert.deepEqual(
        await c[which].get('k', async () => {
          loads++;
          return value;
        }),
        value,
      );
      assert.equal(loads, 2);
    });

    it('another error propagates and caches nothing', async () => {
      const { caches: c } = caches();
      let loads = 0;
      const failing = async (): Promise<Context | null> => {
        loads++;
        throw new Error('syntax error');
      };
      await assert.rejects(c[which].get('k', failing), /syntax error/);
      await assert.rejects(c[which].get('k', failing), /syntax error/);
      assert.equal(loads, 2);
    });

    it('entries (hits and misses) expire after the TTL of 45 s', async () => {
      const { clock, caches: c } = caches();
      let loads = 0;
      const load = async () => {
        loads++;
        return null;
      };
      await c[which].get('k', load);
      clock.advance(44_999);
      await c[which].get('k', load);
      assert.equal(loads, 1);
      clock.advance(2);
      await c[which].get('k', load);
      assert.equal(loads, 2);
    });
  });
}

describe('FindCaches.invalidate', () => {
  it('one key clears that key in both caches (entry and failure mark) and nothing else', async () => {
    const { caches: c } = caches();
    let loads = 0;
    const load = async () => {
      loads++;
      return null;
    };
    for (const key of ['a', 'b']) {
      await c.merged.get(key, load);
      await c.reply.get(key, load);
    }
    await c.reply.get('t', async () => {
      throw new PoolTimeoutError('busy');
    });
    assert.equal(loads, 4);
    c.invalidate('a');
    c.invalidate('t');
    for (const key of ['a', 'b', 't']) {
      await c.merged.get(key, load);
      await c.reply.get(key, load);
    }
    // a: reloaded in both; b: cached in both; t: merged never loaded, reply failure mark cleared.
    assert.equal(loads, 4 + 2 + 2);
  });

  it('no key clears everything', async () => {
    const { caches: c } = caches();
    let loads = 0;
    const load = async () => {
      loads++;
      return null;
    };
    await c.merged.get('a', load);
    await c.reply.get('b', load);
    c.invalidate();
    await c.merged.get('a', load);
    await c.reply.get('b', load);
    assert.equal(loads, 4);
  });

  it('an invalidation during a load keeps the stale result out of the cache', async () => {
    const { caches: c } = caches();
    const gate = deferred<Context | null>();
    const pending = c.reply.get('k', () => gate.promise);
    await settle();
    c.invalidate('k');
    gate.resolve(null);
    assert.equal(await pending, null);
    const fresh = context('k', { answers: [answer('a')] });
    assert.deepEqual(await c.reply.get('k', async () => fresh), fresh);
  });
});

describe('composite caching', () => {
  it('a cached reply miss stays cached until the key is invalidated; other keys are kept', async () => {
    const h = harness({ values: communityValues('prefetch') });
    assert.equal(await h.composite.findByKeywordsForReply('k'), null);
    assert.equal(await h.composite.findByKeywordsForReply('other'), null);
    h.local.seed(context('k', { answers: [answer('a')] }));
    h.local.seed(context('other', { answers: [answer('b')] }));
    assert.equal(await h.composite.findByKeywordsForReply('k'), null, 'cached miss');
    h.composite.invalidateFindCache(' k ');
    assert.equal((await h.composite.findByKeywordsForReply('k'))?.answers[0]?.keywords, 'a');
    assert.equal(await h.composite.findByKeywordsForReply('other'), null, 'other key still cached');
    h.composite.invalidateFindCache();
    assert.equal((await h.composite.findByKeywordsForReply('other'))?.answers[0]?.keywords, 'b');
    assert.equal(h.local.count('findByKeywordsForReply'), 4);
  });

  it('a pool timeout from the local store: null twice, loaded once, loaded again after 2 s', async () => {
    const h = harness({ values: communityValues('prefetch') });
    let fail = true;
    h.local.override.findByKeywordsForReply = async () => {
      if (fail) throw new PoolTimeoutError('QueuePool limit reached');
      return context('k', { answers: [answer('a')] });
    };
    assert.equal(await h.composite.findByKeywordsForReply('k'), null);
    assert.equal(await h.composite.findByKeywordsForReply('k'), null);
    assert.equal(h.local.count('findByKeywordsForReply'), 1);
    assert.deepEqual(h.prefetch.scheduled, [], 'a failed load is not a miss');
    fail = false;
    h.clock.advance(2000);
    assert.equal((await h.composite.findByKeywordsForReply('k'))?.answers.length, 1);
    assert.equal(h.local.count('findByKeywordsForReply'), 2);
  });

  it('learnAnswer, upsertAnswer and insert invalidate the key they wrote', async () => {
    const h = harness({ values: communityValues('prefetch') });
    // learnAnswer on a new key.
    assert.equal(await h.composite.findByKeywordsForReply('k1'), null);
    await h.composite.learnAnswer(learn('k1', 'a'));
    assert.equal((await h.composite.findByKeywordsForReply('k1'))?.answers.length, 1);
    // upsertAnswer on a cached hit: the new answer shows at once.
    await h.composite.upsertAnswer(learn('k1', 'b'));
    assert.equal((await h.composite.findByKeywordsForReply('k1'))?.answers.length, 2);
    // insert.
    assert.equal(await h.composite.findByKeywordsForReply('k2'), null);
    await h.composite.insert(context('k2', { answers: [answer('c')] }));
    assert.equal((await h.composite.findByKeywordsForReply('k2'))?.answers.length, 1);
    // The merged cache too.
    assert.equal(await h.composite.findByKeywords('k3'), null);
    await h.composite.learnAnswer(learn('k3', 'd'));
    assert.equal((await h.composite.findByKeywords('k3'))?.answers.length, 1);
  });

  it('a write to another key keeps this key cached', async () => {
    const h = harness({ values: communityValues('prefetch') });
    h.local.seed(context('k', { answers: [answer('a')] }));
    await h.composite.findByKeywordsForReply('k');
    await h.composite.learnAnswer(learn('elsewhere', 'x'));
    await h.composite.findByKeywordsForReply('k');
    assert.equal(h.local.count('findByKeywordsForReply'), 1);
  });
});
