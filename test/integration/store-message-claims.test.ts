/**
 * Message claims (src/store/message-claims.ts, docs/rules.md#fleet-claims) between two stores on
 * one database, on both engines: the first claim wins, every later one loses while it lives, an
 * expired claim is taken over, the prune deletes only expired rows, of many claims racing on one
 * key exactly one wins, and a batch wins exactly the keys no live claim holds, even when two
 * processes' overlapping batches race.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { CLAIM_TTL_MS, MessageClaimStore } from '../../src/store/message-claims.ts';
import { forEachEngine } from '../support/engines.ts';

forEachEngine((engine) => {
  it('first claim wins, the second loses, an expired claim is taken over and then pruned', async (t) => {
    const store = await engine.open(t);
    const other = await store.reopen();
    const clock = { now: 1_800_000_000_000 };
    const a = new MessageClaimStore(store.engine, () => clock.now);
    const b = new MessageClaimStore(other.engine, () => clock.now);

    assert.equal(await a.claim('g1|u1|100|hash', 'process-a'), true, 'first claim wins');
    assert.equal(await b.claim('g1|u1|100|hash', 'process-b'), false, 'second claim loses');
    assert.equal(await a.claim('g1|u1|100|hash', 'process-a'), false, 'a live claim is never taken twice');
    assert.equal(await b.claim('g1|u1|101|hash', 'process-b'), true, 'another key is free');

    clock.now += CLAIM_TTL_MS - 1;
    assert.equal(await b.claim('g1|u1|100|hash', 'process-b'), false, 'still alive just before it expires');
    clock.now += 2;
    assert.equal(await b.claim('g1|u1|100|hash', 'process-b'), true, 'an expired claim is taken over');
    const held = await store.engine.db.selectFrom('message_claims').selectAll().orderBy('claim_key').execute();
    assert.deepEqual(
      held.map((row) => [row.claim_key, row.claimed_by, Number(row.claimed_at)]),
      [
        ['g1|u1|100|hash', 'process-b', clock.now],
        ['g1|u1|101|hash', 'process-b', 1_800_000_000_000],
      ],
    );

    assert.equal(await a.prune(), 1, 'only the expired row goes');
    if (engine.kind === 'postgres') {
      const persistence = await sql<{ p: string }>`SELECT relpersistence AS p FROM pg_class
        WHERE relname = 'message_claims' AND relnamespace = current_schema()::regnamespace`.execute(store.engine.db);
      assert.equal(persistence.rows[0]?.p, 'u', 'UNLOGGED: a claim costs no WAL flush');
    }
    const left = await store.engine.db.selectFrom('message_claims').select('claim_key').execute();
    assert.deepEqual(
      left.map((row) => row.claim_key),
      ['g1|u1|100|hash'],
    );
  });

  it('of many claims racing on one key exactly one wins', async (t) => {
    const store = await engine.open(t);
    const other = await store.reopen();
    const now = () => 1_800_000_000_000;
    const stores = [new MessageClaimStore(store.engine, now), new MessageClaimStore(other.engine, now)];
    for (let round = 0; round < 20; round++) {
      const key = `race-${round}`;
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, index) => stores[index % 2]!.claim(key, `process-${index}`)),
      );
      assert.equal(results.filter(Boolean).length, 1, `exactly one winner for ${key}`);
    }
  });

  it('a batch wins the free and expired keys, loses the live ones, and counts a repeated key once', async (t) => {
    const store = await engine.open(t);
    const clock = { now: 1_800_000_000_000 };
    const claims = new MessageClaimStore(store.engine, () => clock.now);
    assert.equal(await claims.claim('old', 'b'), true);
    clock.now += CLAIM_TTL_MS + 1;
    assert.equal(await claims.claim('live', 'b'), true);
    const won = await claims.claimAll(['new-1', 'live', 'old', 'new-2', 'new-1'], 'a');
    assert.deepEqual([...won].sort(), ['new-1', 'new-2', 'old']);
    const held = await store.engine.db.selectFrom('message_claims').selectAll().orderBy('claim_key').execute();
    assert.deepEqual(
      held.map((row) => [row.claim_key, row.claimed_by]),
      [
        ['live', 'b'],
        ['new-1', 'a'],
        ['new-2', 'a'],
        ['old', 'a'],
      ],
    );
    assert.deepEqual(await claims.claimAll([], 'a'), new Set());
  });

  it("two processes' overlapping batches: every key is won exactly once, without a deadlock", async (t) => {
    const store = await engine.open(t);
    const other = await store.reopen();
    const now = () => 1_800_000_000_000;
    const stores = [new MessageClaimStore(store.engine, now), new MessageClaimStore(other.engine, now)];
    const keys = Array.from({ length: 200 }, (_, index) => `batch-${index}`);
    const shuffled = [...keys].reverse();
    const rounds = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        stores[index % 2]!.claimAll(index % 2 === 0 ? keys : shuffled, `process-${index}`),
      ),
    );
    const wins = new Map<string, number>();
    for (const won of rounds) for (const key of won) wins.set(key, (wins.get(key) ?? 0) + 1);
    assert.equal(wins.size, keys.length);
    assert.ok(
      [...wins.values()].every((count) => count === 1),
      'each key won once',
    );
  });
});
