/**
 * Daily statistics on both engines: decisions add up per day, account and group in the buffer,
 * are written in one batch, survive closing and reopening the database, add to what is stored,
 * and merge with counts not written yet; the console route reads them over real HTTP.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DailyStatsBuffer, localDay, mergeDailyRows } from '../../src/app/daily-stats-buffer.ts';
import type { RepeaterDecision } from '../../src/repeater/index.ts';
import { silentLog } from '../../src/common/log.ts';
import { DailyStatsStore } from '../../src/store/daily-stats.ts';
import { forEachEngine } from '../support/engines.ts';
import { dataOf, READ_TOKEN, startHarness } from '../unit/console/harness.ts';

function decision(overrides: Partial<RepeaterDecision>): RepeaterDecision {
  return {
    groupId: 1,
    selfId: 100,
    userId: 5,
    messageId: 1,
    outcome: 'skipped',
    reason: 'no-context',
    texts: [],
    answerKeywords: null,
    keywords: 'k',
    learn: 'queued',
    cache: null,
    threshold: null,
    latencyMs: 1,
    rawMessage: 'k',
    senderName: 'member',
    ...overrides,
  };
}

const DAY1 = new Date(2026, 10, 20, 12, 0, 0).getTime();
const DAY2 = new Date(2026, 10, 21, 9, 0, 0).getTime();

forEachEngine((engine) => {
  it('adds up per day, account and group, and survives a restart', async (t) => {
    const first = await engine.open(t);
    const buffer = new DailyStatsBuffer(new DailyStatsStore(first.engine), silentLog, 60_000);
    buffer.record(decision({}), DAY1);
    buffer.record(decision({ outcome: 'replied', reason: 'threshold', texts: ['a'] }), DAY1);
    buffer.record(decision({ outcome: 'replied', reason: 'repeat', texts: ['a'], learn: 'not-offered' }), DAY1);
    buffer.record(decision({ outcome: 'replied', reason: 'community', texts: ['a'] }), DAY1);
    buffer.record(decision({ outcome: 'banned', reason: 'ban' }), DAY1);
    buffer.record(decision({ reason: 'self' }), DAY1);
    // A proactive line is its own count, not a message received; a skipped one is no count at all.
    buffer.record(decision({ outcome: 'replied', reason: 'proactive', texts: ['a'], learn: 'not-offered' }), DAY1);
    buffer.record(decision({ reason: 'proactive-skipped', learn: 'not-offered' }), DAY1);
    buffer.record(decision({ groupId: 2 }), DAY1);
    buffer.record(decision({ selfId: 200, outcome: 'replied', reason: 'cross-group', texts: ['a'] }), DAY2);
    assert.equal(buffer.pendingRows().length, 3);
    await buffer.stop();
    assert.deepEqual(buffer.counters, { recorded: 8, written: 3, dropped: 0, write_failed: 0 });
    await first.close();

    // Another process on the same database (a restart): the rows are there, and add up.
    const second = await first.reopen();
    const store = new DailyStatsStore(second.engine);
    const later = new DailyStatsBuffer(store, silentLog, 60_000);
    later.record(decision({}), DAY1);
    await later.flush();
    const rows = await store.list({ start: localDay(DAY1), end: localDay(DAY2), limit: 100 });
    assert.deepEqual(
      rows.map((row) => ({ ...row })),
      [
        {
          day: localDay(DAY1),
          selfId: 100,
          groupId: 1,
          received: 6,
          replies_group: 1,
          replies_cross_group: 0,
          replies_community: 1,
          replies_repeat: 1,
          replies_proactive: 1,
          learn_queued: 5,
          bans: 1,
        },
        {
          day: localDay(DAY1),
          selfId: 100,
          groupId: 2,
          received: 1,
          replies_group: 0,
          replies_cross_group: 0,
          replies_community: 0,
          replies_repeat: 0,
          replies_proactive: 0,
          learn_queued: 1,
          bans: 0,
        },
        {
          day: localDay(DAY2),
          selfId: 200,
          groupId: 1,
          received: 1,
          replies_group: 0,
          replies_cross_group: 1,
          replies_community: 0,
          replies_repeat: 0,
          replies_proactive: 0,
          learn_queued: 1,
          bans: 0,
        },
      ],
    );
    assert.deepEqual(
      (await store.list({ start: localDay(DAY2), end: localDay(DAY2), selfId: 200, limit: 10 })).map((r) => r.selfId),
      [200],
    );
    assert.deepEqual(await store.list({ start: localDay(DAY1), end: localDay(DAY2), selfId: 999, limit: 10 }), []);

    // Pending counts join the stored ones.
    later.record(decision({}), DAY1);
    const merged = mergeDailyRows(rows, later.pendingRows());
    assert.equal(merged[0]?.received, 7);
    await later.stop();
  });
});

describe('GET /console-daily-stats', () => {
  it('reads the stored rows by day range and account; bad ranges are a 400 naming the field', async (t) => {
    const h = await startHarness(t);
    await new DailyStatsStore(h.store.engine).add([
      {
        day: '2026-11-20',
        selfId: 100,
        groupId: 1,
        received: 4,
        replies_group: 1,
        replies_cross_group: 0,
        replies_community: 0,
        replies_repeat: 0,
        replies_proactive: 0,
        learn_queued: 3,
        bans: 0,
      },
    ]);
    const found = dataOf<{ rows: { day: string; received: number }[]; truncated: boolean }>(
      await h.request('GET', '/console-daily-stats', {
        token: READ_TOKEN,
        query: { start: '2026-11-19', end: '2026-11-21', self_id: '100' },
      }),
    );
    assert.deepEqual(
      found.rows.map((row) => [row.day, row.received]),
      [['2026-11-20', 4]],
    );
    assert.equal(found.truncated, false);
    const none = dataOf<{ rows: unknown[] }>(
      await h.request('GET', '/console-daily-stats', {
        token: READ_TOKEN,
        query: { start: '2026-11-19', end: '2026-11-21', self_id: '200' },
      }),
    );
    assert.deepEqual(none.rows, []);
    for (const [query, field] of [
      [{ start: '2026-11-22', end: '2026-11-21' }, /query\.start/],
      [{ start: '2026-02-30' }, /query\.start/],
      [{ end: 'yesterday' }, /query\.end|end/],
      [{ start: '2020-01-01', end: '2026-01-01' }, /query\.start/],
    ] as const) {
      const reply = await h.request('GET', '/console-daily-stats', { token: READ_TOKEN, query: { ...query } });
      assert.equal(reply.status, 400, JSON.stringify(query));
      assert.match((reply.json as { detail: string }).detail, field);
    }
  });
});
