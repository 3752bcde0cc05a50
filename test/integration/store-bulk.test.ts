/**
 * Contract of the store's bulk operations: delete_expired and find_for_cleanup / iterateForCleanup
 * (docs/rules.md#store-ops). Runs unchanged against SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Context } from '../../src/domain/corpus.ts';
import {
  answer,
  ban,
  bulkInsertContexts,
  context,
  countRows,
  messages,
  type BareContext,
} from '../support/corpus-data.ts';
import { countingStore, forEachEngine } from '../support/engines.ts';

const keysOf = (contexts: readonly Context[]) => contexts.map((c) => c.keywords).sort();

forEachEngine((engine) => {
  it('delete_expired deletes old low-trigger contexts with their answers, messages and bans', async (t) => {
    const store = await engine.open(t);
    for (let i = 0; i < 100; i++) {
      await store.corpus.insert(
        context(`old${i}`, {
          time: 10 + i,
          triggerCount: 1 + (i % 4),
          answers: [answer('a', { messages: ['x', 'y'] })],
          bans: [ban('b')],
        }),
      );
    }
    const recent = context('recent', { time: 1000, triggerCount: 1, answers: [answer('r', { messages: ['kept'] })] });
    const popular = context('popular', { time: 10, triggerCount: 5, bans: [ban('p')] });
    await store.corpus.insert(recent);
    await store.corpus.insert(popular);
    assert.equal(await store.corpus.deleteExpired(500, 5), 100);
    assert.equal(await store.corpus.findByKeywords('old0'), null);
    assert.equal(await store.corpus.findByKeywords('old99'), null);
    assert.equal(await store.corpus.contextExistsByKeywords('old50'), false);
    assert.deepEqual(await store.corpus.findByKeywords('recent'), recent);
    assert.deepEqual(await store.corpus.findByKeywords('popular'), popular);
    // The cascade removed the children of the deleted contexts, and only those.
    assert.equal(await countRows(store.engine, 'context_answer'), 1);
    assert.equal(await countRows(store.engine, 'context_answer_message'), 1);
    assert.equal(await countRows(store.engine, 'context_ban'), 1);
    assert.equal(await store.corpus.deleteExpired(500, 5), 0);
  });

  it('delete_expired over ~20,000 contexts deletes them all in steps', { timeout: 120_000 }, async (t) => {
    const store = await engine.open(t);
    const rows: BareContext[] = Array.from({ length: 20_000 }, (_, i) => ({
      keywords: `k${i}`,
      time: i % 1000 === 0 ? 5000 : 10,
      triggerCount: 1,
      clearTime: 0,
    }));
    await bulkInsertContexts(store.engine, rows);
    let turns = 0;
    let longestGapMs = 0;
    let running = true;
    let last = performance.now();
    const tick = () => {
      const now = performance.now();
      longestGapMs = Math.max(longestGapMs, now - last);
      last = now;
      turns++;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    const deleted = await store.corpus.deleteExpired(1000, 2);
    running = false;
    assert.equal(deleted, 19_980);
    assert.equal(await countRows(store.engine, 'context'), 20);
    assert.equal(await store.corpus.contextExistsByKeywords('k1000'), true);
    assert.equal(await store.corpus.contextExistsByKeywords('k1001'), false);
    if (engine.kind === 'sqlite') {
      // Synchronous SQLite work is cut into short transactions with event-loop turns between them.
      assert.ok(turns >= 2, `the event loop got ${turns} turns during delete_expired`);
      assert.ok(longestGapMs < 250, `longest stall ${longestGapMs.toFixed(1)} ms`);
    }
  });

  it('find_for_cleanup is OR of trigger_count > threshold and clear_time < expiration, fully loaded', async (t) => {
    const store = await engine.open(t);
    const byTrigger = context('by-trigger', {
      triggerCount: 150,
      clearTime: 1000,
      answers: [answer('a', { messages: messages('a', 20) }), answer('b', { groupId: 0, messages: [] })],
      bans: [ban('x'), ban('y', { reason: 'recall by 2' })],
    });
    const byClearTime = context('by-clear-time', { triggerCount: 1, clearTime: 100, answers: [answer('c')] });
    const both = context('both', { triggerCount: 101, clearTime: 0 });
    await store.corpus.insert(byTrigger);
    await store.corpus.insert(context('neither', { triggerCount: 100, clearTime: 500, answers: [answer('n')] }));
    await store.corpus.insert(byClearTime);
    await store.corpus.insert(both);
    const found = await store.corpus.findForCleanup(100, 500);
    assert.deepEqual(keysOf(found), ['both', 'by-clear-time', 'by-trigger']);
    assert.deepEqual(
      found.find((c) => c.keywords === 'by-trigger'),
      byTrigger,
    );
    assert.deepEqual(
      found.find((c) => c.keywords === 'by-clear-time'),
      byClearTime,
    );
    assert.deepEqual(await store.corpus.findForCleanup(1000, 0), []);
  });

  it(
    'iterateForCleanup yields the same contexts as find_for_cleanup, in bounded pages',
    { timeout: 120_000 },
    async (t) => {
      const store = await engine.open(t);
      // 20,000 ids (several scan steps): candidates dense at first (full pages), then sparse (pages
      // that end at the scan range), each with an answer and a ban.
      const rows: BareContext[] = Array.from({ length: 20_000 }, (_, i) => ({
        keywords: `k${i}`,
        time: 10,
        triggerCount: 1,
        clearTime: 1000,
      }));
      await bulkInsertContexts(store.engine, rows);
      const candidates: Context[] = [];
      for (let i = 0; i < 20_000; i += i < 3000 ? 10 : 499) {
        const loaded = context(`k${i}`, {
          time: 10,
          triggerCount: 1,
          clearTime: 1,
          answers: [answer(`a${i}`, { messages: [`m${i}`] })],
          bans: [ban(`b${i}`)],
        });
        await store.corpus.save(loaded);
        candidates.push(loaded);
      }
      const { corpus, engine: counting } = countingStore(store);
      const pages: Context[][] = [];
      for await (const page of corpus.iterateForCleanup(100, 500)) pages.push(page);
      const flat = pages.flat();
      assert.ok(pages.length >= 2, `${pages.length} pages`);
      assert.ok(pages.every((page) => page.length > 0 && page.length <= 1000));
      assert.equal(new Set(keysOf(flat)).size, flat.length, 'no context yielded twice');
      const expected = [...candidates].sort((a, b) => (a.keywords < b.keywords ? -1 : 1));
      assert.deepEqual(
        [...flat].sort((a, b) => (a.keywords < b.keywords ? -1 : 1)),
        expected,
      );
      assert.deepEqual(keysOf(await store.corpus.findForCleanup(100, 500)), keysOf(expected));

      // The id ranges scanned tile (0, maxId]: a short page moves on exactly to where its range ended.
      const scans = counting.steps
        .filter((step) => /"trigger_count" >/.test(step.sql) && /"clear_time" </.test(step.sql))
        .map((step) => {
          const [fromId, toId, , , limit] = step.parameters as number[];
          return { fromId, toId, limit, rows: step.result };
        });
      assert.equal(scans[0]?.fromId, 0);
      assert.equal(scans.at(-1)?.toId, 20_000);
      for (const [index, scan] of scans.entries()) {
        const previous = scans[index - 1];
        if (!previous) continue;
        if (previous.rows === previous.limit)
          assert.ok(scan.fromId! < previous.toId!, `scan ${index} continues the page`);
        else assert.equal(scan.fromId, previous.toId, `scan ${index} starts where scan ${index - 1} ended`);
      }
    },
  );
});
