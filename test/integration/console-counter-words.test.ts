/**
 * Every internal counter GET /corpus-status reports (the corpus and community wiring as `chorus
 * serve` builds it) has Chinese and English words in web/src/locales/counters.ts, so the home
 * page's 内部计数 never shows a raw key such as `prefetch.skippedRecentlyFinished`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { COUNTER_NAMES, COUNTER_PARTS, counterLabel } from '../../web/src/locales/counters.ts';
import { dataOf, READ_TOKEN, startHarness } from '../unit/console/harness.ts';

describe('internal counter words', () => {
  it('every counter of the status has a Chinese and an English name', async (t) => {
    const h = await startHarness(t);
    const status = dataOf<{ counters: Record<string, Record<string, number>> }>(
      await h.request('GET', '/corpus-status', { token: READ_TOKEN }),
    );
    const parts = Object.keys(status.counters);
    assert.ok(
      ['prefetch', 'learning', 'community_client', 'learn_worker'].every((part) => parts.includes(part)),
      parts.join(', '),
    );
    const missing: string[] = [];
    for (const [part, values] of Object.entries(status.counters)) {
      if (!COUNTER_PARTS[part]) missing.push(part);
      for (const name of Object.keys(values)) if (!COUNTER_NAMES[name]) missing.push(`${part}.${name}`);
    }
    assert.deepEqual(missing, []);
    assert.equal(counterLabel('prefetch', 'skippedRecentlyFinished', 'zh'), '预取队列 · 最近已完成而跳过');
    assert.equal(
      counterLabel('prefetch', 'skippedRecentlyFinished', 'en'),
      'Prefetch queue · skipped: recently finished',
    );
    assert.equal(counterLabel('no_such_part', 'x', 'zh'), 'no_such_part.x');
  });
});
