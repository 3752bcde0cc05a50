/**
 * Composite reads (docs/rules.md#corpus-reads, #corpus-sources,
 * style-hotpath).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TransientLookupError } from '../../../src/common/errors.ts';
import { answer, context } from '../../support/corpus-data.ts';
import { activationFor, communityValues, FakeRemote, harness } from '../../support/corpus-fakes.ts';

describe('composite reads', () => {
  it('local_first with reply-ready local answers never calls the remote (sync mode, both lookups)', async () => {
    const h = harness({ values: communityValues('sync') });
    const local = context('k', { answers: [answer('a', { count: 3 })] });
    h.local.seed(local);
    h.community.seed(context('k', { answers: [answer('c')] }));
    assert.deepEqual(await h.composite.findByKeywords('k'), local);
    assert.deepEqual(await h.composite.findByKeywordsForReply('k'), local);
    assert.deepEqual(h.community.calls, []);
  });

  it('local_first with a local miss reads the remote in sync mode', async () => {
    const h = harness({ values: communityValues('sync') });
    const remote = context('k', { answers: [answer('c', { groupId: 0 })] });
    h.community.seed(remote);
    assert.deepEqual(await h.composite.findByKeywordsForReply('k'), remote);
    assert.deepEqual(h.community.calls, ['k']);
  });

  it('merge_counts + sync + no pressure: counts summed (2 + 3 = 5) and the remote-only answer present', async () => {
    const h = harness({ values: communityValues('sync', { CHORUS_CORPUS_MERGE_STRATEGY: 'merge_counts' }) });
    h.local.seed(context('k', { answers: [answer('a', { groupId: 1, count: 2 })] }));
    h.community.seed(
      context('k', { answers: [answer('a', { groupId: 1, count: 3 }), answer('c', { groupId: 0, count: 1 })] }),
    );
    for (const lookup of [
      (k: string) => h.composite.findByKeywords(k),
      (k: string) => h.composite.findByKeywordsForReply(k),
    ]) {
      const merged = await lookup('k');
      assert.ok(merged);
      assert.deepEqual(
        merged.answers.map((a) => [a.keywords, a.groupId, a.count]),
        [
          ['a', 1, 5],
          ['c', 0, 1],
        ],
      );
    }
    assert.equal(h.community.calls.length, 2, 'one remote read per cache (merged and reply)');
    assert.equal(h.budget.counters.skippedPressure, 0);
  });

  it('sync with a throwing remote returns the local result and counts the error', async () => {
    const h = harness({
      values: communityValues('sync', { CHORUS_CORPUS_MERGE_STRATEGY: 'merge_counts' }),
      remote: new FakeRemote('throwing'),
    });
    const local = context('k', { answers: [answer('a')] });
    h.local.seed(local);
    assert.deepEqual(await h.composite.findByKeywordsForReply('k'), local);
    assert.equal(h.community.calls.length, 1);
    assert.equal(h.composite.counters.remoteErrors, 1);
    // A local miss with a throwing remote is a miss, not an error.
    assert.equal(await h.composite.findByKeywords('missing'), null);
    assert.equal(h.composite.counters.remoteErrors, 2);
  });

  it('an error from the local store is an error, even with a healthy remote', async () => {
    const h = harness({ values: communityValues('sync', { CHORUS_CORPUS_MERGE_STRATEGY: 'merge_counts' }) });
    h.local.override.findByKeywordsForReply = async () => {
      throw new Error('disk gone');
    };
    await assert.rejects(h.composite.findByKeywordsForReply('k'), /disk gone/);
  });

  it('mode off: the remote is never called and a local miss is null', async () => {
    for (const mode of ['false', 'auto'] as const) {
      const h = harness({ values: communityValues(mode) });
      h.community.seed(context('k', { answers: [answer('c')] }));
      assert.equal(await h.composite.findByKeywordsForReply('k'), null);
      assert.equal(await h.composite.findByKeywords('k'), null);
      assert.equal(await h.composite.contextExistsByKeywords('k'), false);
      assert.deepEqual(h.community.calls, [], mode);
      assert.deepEqual(h.prefetch.scheduled, [], 'off never schedules a prefetch');
    }
  });

  it('prefetch: a local miss returns null and schedules exactly one prefetch, never reading the remote', async () => {
    const h = harness({ values: communityValues('prefetch') });
    h.community.seed(context('k', { answers: [answer('c')] }));
    assert.equal(await h.composite.findByKeywordsForReply(' k '), null);
    assert.deepEqual(h.prefetch.scheduled, ['k']);
    assert.equal(h.composite.counters.prefetchScheduled, 1);
    assert.deepEqual(h.community.calls, []);
    assert.equal(await h.composite.findByKeywords('k'), null, 'the merged find ignores remotes outside sync');
    assert.deepEqual(h.community.calls, []);
  });

  it('prefetch: every miss reaches the scheduler, cached or not (its gates count repeated misses)', async () => {
    const h = harness({ values: communityValues('prefetch') });
    assert.equal(await h.composite.findByKeywordsForReply('short'), null);
    assert.equal(await h.composite.findByKeywordsForReply('short'), null);
    assert.equal(h.local.count('findByKeywordsForReply'), 1, 'the second miss is served from the cache');
    assert.deepEqual(h.prefetch.scheduled, ['short', 'short']);
  });

  it('prefetch: a local context with zero answers counts as a miss', async () => {
    const h = harness({ values: communityValues('prefetch') });
    h.local.seed(context('empty'));
    assert.equal(await h.composite.findByKeywordsForReply('empty'), null);
    assert.deepEqual(h.prefetch.scheduled, ['empty']);
  });

  it('prefetch: a reply-ready local hit returns the local context and schedules nothing', async () => {
    const h = harness({ values: communityValues('prefetch') });
    const local = context('k', { answers: [answer('a', { count: 3 })] });
    h.local.seed(local);
    assert.deepEqual(await h.composite.findByKeywordsForReply('k'), local);
    assert.deepEqual(h.prefetch.scheduled, []);
  });

  it('prefetch: a weak local hit (no answer at the threshold) is returned and schedules a prefetch, every time', async () => {
    const h = harness({ values: communityValues('prefetch') });
    const local = context('k', { answers: [answer('嗯', { count: 1 }), answer('a', { count: 2 })] });
    h.local.seed(local);
    assert.deepEqual(await h.composite.findByKeywordsForReply('k'), local);
    assert.deepEqual(await h.composite.findByKeywordsForReply('k'), local);
    assert.deepEqual(h.prefetch.scheduled, ['k', 'k']);
  });

  it('local_first in sync mode: a weak local hit still reads the remote and merges it', async () => {
    const h = harness({ values: communityValues('sync') });
    h.local.seed(context('k', { answers: [answer('嗯', { groupId: 5, count: 1 })] }));
    h.community.seed(context('k', { answers: [answer('a', { groupId: 0, count: 7 })] }));
    const found = await h.composite.findByKeywordsForReply('k');
    assert.deepEqual(found?.answers.map((a) => [a.keywords, a.count]).sort(), [
      ['a', 7],
      ['嗯', 1],
    ]);
    assert.deepEqual(h.community.calls, ['k']);
  });

  it('not wrapping (composite inactive): calls go straight to the local store, uncached', async () => {
    const h = harness({ values: {} });
    assert.equal(h.composite.wrapping(), false);
    h.local.seed(context('k', { answers: [answer('a')] }));
    await h.composite.findByKeywordsForReply('k');
    await h.composite.findByKeywordsForReply('k');
    await h.composite.findByKeywords('k');
    await h.composite.findByKeywords('k');
    assert.equal(h.local.count('findByKeywordsForReply'), 2);
    assert.equal(h.local.count('findByKeywords'), 2);
    assert.deepEqual(h.community.calls, []);
  });

  it('not wrapping (active, but no remote source built): straight to local, uncached', async () => {
    const h = harness({ values: communityValues('sync'), sources: () => ({}) });
    assert.equal(h.activation.compositeActive, true);
    assert.equal(h.composite.wrapping(), false);
    assert.equal(await h.composite.findByKeywordsForReply('k'), null);
    assert.equal(await h.composite.findByKeywordsForReply('k'), null);
    assert.equal(h.local.count('findByKeywordsForReply'), 2);
    // Once a source exists the composite wraps (and caches).
    h.sources = { community: h.community };
    assert.equal(h.composite.wrapping(), true);
    await h.composite.findByKeywordsForReply('k');
    await h.composite.findByKeywordsForReply('k');
    assert.equal(h.local.count('findByKeywordsForReply'), 3);
  });

  it('an empty key finds nothing without loading', async () => {
    const h = harness({ values: communityValues('sync') });
    assert.equal(await h.composite.findByKeywordsForReply('   '), null);
    assert.equal(await h.composite.findByKeywords(''), null);
    assert.equal(h.local.calls.length, 0);
  });

  it('contextExistsByKeywords: a local true short-circuits', async () => {
    const h = harness({ values: communityValues('sync') });
    h.local.seed(context('k'));
    assert.equal(await h.composite.contextExistsByKeywords('k'), true);
    assert.deepEqual(h.community.calls, []);
  });

  it('contextExistsByKeywords: outside sync mode a local miss is false without the remote', async () => {
    const h = harness({ values: communityValues('prefetch') });
    h.community.seed(context('k'));
    assert.equal(await h.composite.contextExistsByKeywords('k'), false);
    assert.deepEqual(h.community.calls, []);
  });

  it('contextExistsByKeywords in sync mode consults fed, then community, whatever merge_order says', async () => {
    const order: string[] = [];
    const fed = new FakeRemote('healthy', order, 'fed');
    const community = new FakeRemote('healthy', order, 'community');
    const h = harness({
      values: communityValues('sync', { CHORUS_CORPUS_MERGE_ORDER: 'local,community,fed' }),
      remote: community,
      sources: (c) => ({ community: c, fed }),
    });
    community.seed(context('k'));
    assert.equal(await h.composite.contextExistsByKeywords('k'), true);
    assert.deepEqual(order, ['fed', 'community']);
    order.length = 0;
    fed.seed(context('f'));
    assert.equal(await h.composite.contextExistsByKeywords('f'), true);
    assert.deepEqual(order, ['fed'], 'a fed hit ends the check');
    order.length = 0;
    assert.equal(await h.composite.contextExistsByKeywords('nowhere'), false);
    assert.deepEqual(order, ['fed', 'community']);
  });

  it('contextExistsByKeywords in sync mode: a throwing remote is a miss', async () => {
    const h = harness({ values: communityValues('sync'), remote: new FakeRemote('throwing') });
    assert.equal(await h.composite.contextExistsByKeywords('k'), false);
    assert.equal(h.composite.counters.remoteErrors, 1);
  });

  it('localContextExistsByKeywords never calls the remote, even in sync mode', async () => {
    const h = harness({ values: communityValues('sync') });
    h.community.seed(context('k'));
    assert.equal(await h.composite.localContextExistsByKeywords('k'), false);
    h.local.seed(context('k'));
    assert.equal(await h.composite.localContextExistsByKeywords('k'), true);
    assert.deepEqual(h.community.calls, []);
    assert.equal(h.local.count('contextExistsByKeywords'), 2);
  });

  it('pool pressure >= 0.70 skips the remote and counts skippedPressure; 0.69 does not', async () => {
    const h = harness({ values: communityValues('sync', { CHORUS_CORPUS_MERGE_STRATEGY: 'merge_counts' }) });
    const local = context('k', { answers: [answer('a', { count: 2 })] });
    h.local.seed(local);
    h.community.seed(context('k', { answers: [answer('c', { groupId: 0 })] }));
    h.pressure.value = 0.7;
    assert.deepEqual(await h.composite.findByKeywordsForReply('k'), local);
    assert.deepEqual(h.community.calls, []);
    assert.equal(h.budget.counters.skippedPressure, 1);
    assert.equal(await h.composite.contextExistsByKeywords('other'), false);
    assert.deepEqual(h.community.calls, []);
    assert.equal(h.budget.counters.skippedPressure, 2);
    h.pressure.value = 0.69;
    const merged = await h.composite.findByKeywords('k');
    assert.deepEqual(h.community.calls, ['k']);
    assert.equal(merged?.answers.length, 2);
    assert.equal(h.budget.counters.skippedPressure, 2);
  });

  it('a contended remote budget (limit 1 held) skips the hot-path read, counts skippedBusy and caches nothing', async () => {
    const h = harness({ values: communityValues('sync'), maxConcurrent: 1 });
    h.community.seed(context('k', { answers: [answer('c')] }));
    const held = await h.budget.contributePermit();
    assert.ok(held);
    assert.equal(await h.composite.findByKeywordsForReply('k'), null);
    assert.deepEqual(h.community.calls, []);
    assert.equal(h.budget.counters.skippedBusy, 1);
    held();
    // Asked again with no invalidation: the skipped read was not a miss (docs/rules.md#transient-not-miss).
    assert.equal((await h.composite.findByKeywordsForReply('k'))?.answers.length, 1);
    assert.deepEqual(h.community.calls, ['k']);
  });

  for (const cause of ['pressure', 'busy', 'error'] as const) {
    it(`sync: a community read skipped or failed (${cause}) is answered as incomplete and cached in neither find cache`, async () => {
      const h = harness({
        values: communityValues('sync'),
        maxConcurrent: 1,
        remote: new FakeRemote(cause === 'error' ? 'throwing' : 'healthy'),
      });
      const local = context('k', { answers: [answer('a', { groupId: 5, count: 1 })] });
      h.local.seed(local);
      h.community.seed(context('k', { answers: [answer('c', { groupId: 0, count: 4 })] }));
      h.community.seed(context('only-remote', { answers: [answer('r', { groupId: 0, count: 4 })] }));
      if (cause === 'pressure') h.pressure.value = 0.7;
      const held = cause === 'busy' ? await h.budget.contributePermit() : null;
      // The local part is answered at once, said to be incomplete; a local miss is no miss either.
      assert.deepEqual(await h.composite.lookupForReply('k'), { context: local, complete: false });
      assert.deepEqual(await h.composite.lookupForReply('only-remote'), { context: null, complete: false });
      assert.equal(await h.composite.findByKeywords('only-remote'), null);

      h.pressure.value = 0;
      held?.();
      h.community.behaviour = 'healthy';
      // Asked again, with no invalidation in between: every lookup reads the community now.
      const again = await h.composite.lookupForReply('k');
      assert.equal(again.complete, true);
      assert.deepEqual(again.context?.answers.map((item) => item.keywords).sort(), ['a', 'c']);
      assert.equal((await h.composite.findByKeywordsForReply('only-remote'))?.answers[0]?.keywords, 'r');
      assert.equal((await h.composite.findByKeywords('only-remote'))?.answers[0]?.keywords, 'r');
      // Whole answers are cached as before.
      const reads = h.community.calls.length;
      await h.composite.findByKeywordsForReply('only-remote');
      await h.composite.findByKeywords('only-remote');
      assert.equal(h.community.calls.length, reads);
    });
  }

  it('a slow remote holds its permit until it answers, so a second reader is skipped as busy', async () => {
    const slow = new FakeRemote('slow');
    const h = harness({ values: communityValues('sync'), maxConcurrent: 1, remote: slow });
    slow.seed(context('a', { answers: [answer('x')] }));
    const first = h.composite.findByKeywordsForReply('a');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(await h.composite.findByKeywordsForReply('b'), null);
    assert.equal(h.budget.counters.skippedBusy, 1);
    slow.release();
    assert.equal((await first)?.answers.length, 1);
  });

  it('activation changes are seen on the next lookup (not cached in the composite)', async () => {
    const h = harness({ values: communityValues('false') });
    h.community.seed(context('k', { answers: [answer('c')] }));
    assert.equal(await h.composite.findByKeywordsForReply('k'), null);
    h.activation = activationFor(communityValues('sync'));
    h.composite.invalidateFindCache();
    assert.equal((await h.composite.findByKeywordsForReply('k'))?.answers.length, 1);
  });
  for (const reason of ['timeout', 'pressure', 'pool-timeout'] as const) {
    it(`a ${reason} in the local store is not cached as a miss: the next lookup answers`, async () => {
      for (const mode of ['sync', 'prefetch'] as const) {
        const h = harness({ values: communityValues(mode) });
        const local = context('k', { answers: [answer('a', { count: 3 })] });
        h.local.seed(local);
        let failures = 1;
        h.local.override.findByKeywordsForReply = async (key: string) => {
          if (failures-- > 0) throw new TransientLookupError(reason);
          return h.local.contexts.get(key) ?? null;
        };
        await assert.rejects(h.composite.findByKeywordsForReply('k'), TransientLookupError);
        assert.deepEqual(await h.composite.findByKeywordsForReply('k'), local, mode);
        assert.equal(h.prefetch.scheduled.length, 0, 'nothing to pull for a lookup that did not happen');
      }
    });
  }
  for (const strategy of ['local_first', 'merge_counts'] as const) {
    it(`sync ${strategy}: a hub slower than the reply budget costs nothing the local answers could give`, async () => {
      const h = harness({
        values: communityValues('sync', {
          CHORUS_CORPUS_MERGE_STRATEGY: strategy,
          CHORUS_REPEATER_BUNDLE_TIMEOUT_SEC: 0.3,
        }),
        remote: new FakeRemote('slow'),
      });
      // A weak local answer: local_first asks the hub too.
      const local = context('k', { answers: [answer('a', { count: 1 })] });
      h.local.seed(local);
      const started = performance.now();
      assert.deepEqual(await h.composite.findByKeywordsForReply('k'), local);
      const ms = performance.now() - started;
      assert.ok(ms < 300, `answered within the budget: ${ms.toFixed(0)} ms`);
      assert.equal(h.composite.counters.remoteTimeouts, 1);
      // Not cached: the next lookup asks again (the first read still holds its permit until it ends).
      h.community.release();
      h.community.behaviour = 'healthy';
      h.community.seed(context('k', { answers: [answer('c', { groupId: 0, count: 4 })] }));
      const next = await h.composite.findByKeywordsForReply('k');
      assert.deepEqual(next?.answers.map((item) => item.keywords).sort(), ['a', 'c']);
    });
  }
});
