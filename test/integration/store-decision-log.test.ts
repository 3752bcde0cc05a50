/**
 * The decision log's table on SQLite and PostgreSQL (src/store/decision-log.ts): rows written in
 * batches come back newest first, by group and by text (LIKE wildcards in the text taken
 * literally), paged by id; the trim keeps the newest maxRows and nothing older than the days, in
 * steps, and leaves a table already within bounds alone.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { DecisionLogStore, type DecisionRow } from '../../src/store/decision-log.ts';
import { forEachEngine } from '../support/engines.ts';

const NOW = Date.UTC(2026, 10, 27, 12);
const DAY = 86_400_000;

function row(i: number, overrides: Partial<DecisionRow> = {}): DecisionRow {
  return {
    at: NOW - (3000 - i) * 60_000,
    group_id: i % 2 === 0 ? 10 : 20,
    self_id: 1,
    user_id: 100 + i,
    message_id: i,
    sender_name: `群友${i}`,
    raw_message: `第${i}句话`,
    keywords: '话',
    outcome: 'skipped',
    reason: 'no-context',
    cause: JSON.stringify({ code: 'no-context', params: { keywords: '话' } }),
    texts: '[]',
    answer_keywords: null,
    threshold: null,
    cache: 'loaded',
    learn: 'queued',
    latency_us: 800,
    ...overrides,
  };
}

forEachEngine((engine) => {
  it('pages newest first by group and text, and trims by rows and days in steps', async (t) => {
    const store = await engine.open(t);
    const log = new DecisionLogStore(store.engine);
    const rows = Array.from({ length: 3000 }, (_, i) => row(i));
    // Ten days old, written last: the trim by days takes it wherever it is.
    rows.push(row(3000, { at: NOW - 10 * DAY, raw_message: '100% 老消息_a' }));
    await log.add(rows.slice(0, 1200));
    await log.add(rows.slice(1200));

    const newest = await log.page({ limit: 3 });
    assert.deepEqual(
      newest.map((r) => r.message_id),
      [3000, 2999, 2998],
    );
    const inGroup = await log.page({ groupId: 20, limit: 2, beforeId: newest[1]?.id as number });
    assert.deepEqual(
      inGroup.map((r) => [r.group_id, r.message_id]),
      [
        [20, 2997],
        [20, 2995],
      ],
    );
    assert.deepEqual(
      (await log.page({ text: '第2999句', limit: 10 })).map((r) => r.sender_name),
      ['群友2999'],
    );
    // `%` and `_` are the text, not wildcards.
    assert.deepEqual(
      (await log.page({ text: '100%', limit: 10 })).map((r) => r.message_id),
      [3000],
    );
    assert.equal((await log.page({ text: '0%', limit: 10 })).length, 1);
    assert.equal((await log.page({ text: '_a', limit: 10 })).length, 1);
    assert.equal((await log.page({ text: '%', limit: 5000 })).length, 1);

    // Within bounds: nothing goes.
    assert.equal(await log.trim({ days: 30, maxRows: 5000 }, NOW), 0);
    // Days: the ten-day-old row goes. Rows: only the newest 1000 stay.
    assert.equal(await log.trim({ days: 7, maxRows: 1000 }, NOW), 2002);
    // The newest 1000 rows by id, less the old one among them (a clock set back wrote it last).
    const kept = await log.page({ limit: 5000 });
    assert.equal(kept.length, 999);
    assert.equal(kept.at(-1)?.message_id, 2001);
    assert.ok(kept.every((r) => r.at >= NOW - 7 * DAY));
    const groups = await log.groups(10);
    assert.deepEqual(groups.map((g) => [g.groupId, g.kept]).sort(), [
      [10, 499],
      [20, 500],
    ]);
  });
});
