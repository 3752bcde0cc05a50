/**
 * The repeater's fleet claim (src/app/fleet-claims.ts, docs/rules.md#fleet-claims) over a fake
 * store: won and lost as the store says, a slow or failing store is `unsure` within the wait (the
 * message is handled here), a second account of this process asks the store no second time, and
 * expired claims are pruned about once a minute.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FleetClaims, fleetClaimsWanted } from '../../../src/app/fleet-claims.ts';
import { silentLog } from '../../../src/shared/log.ts';
import type { MessageClaimStore } from '../../../src/store/message-claims.ts';

class FakeClaimStore {
  readonly asked: string[] = [];
  prunes = 0;
  answer: (key: string) => Promise<boolean> = async (key) => !key.startsWith('taken');
  claim(key: string, _by: string): Promise<boolean> {
    this.asked.push(key);
    return this.answer(key);
  }
  async prune(): Promise<number> {
    this.prunes++;
    return 0;
  }
}

function claimsOver(store: FakeClaimStore, clock = { mono: 0 }, waitMs = 50): FleetClaims {
  return new FleetClaims(store as unknown as MessageClaimStore, {
    origin: 'here',
    log: silentLog,
    monotonicMs: () => clock.mono,
    waitMs,
  });
}

describe('fleet claims', () => {
  it('won and lost as the store says; the same key asks the store once', async () => {
    const store = new FakeClaimStore();
    const claims = claimsOver(store);
    assert.equal(await claims.claim('free'), 'won');
    assert.equal(await claims.claim('free'), 'won', 'a second account of this process');
    assert.equal(await claims.claim('taken'), 'lost');
    assert.deepEqual(store.asked, ['free', 'taken']);
    assert.deepEqual([claims.counters.won, claims.counters.lost], [1, 1]);
  });

  it('a slow store is unsure within the wait, a failing one at once; neither rejects', async () => {
    const store = new FakeClaimStore();
    const claims = claimsOver(store, { mono: 0 }, 50);
    store.answer = () => new Promise<boolean>(() => undefined);
    const started = performance.now();
    assert.equal(await claims.claim('slow'), 'unsure');
    const waited = performance.now() - started;
    assert.ok(waited >= 45 && waited < 1000, `waited ${waited} ms`);
    store.answer = () => Promise.reject(new Error('database down'));
    assert.equal(await claims.claim('broken'), 'unsure');
    assert.deepEqual([claims.counters.slow, claims.counters.failed], [1, 1]);
  });

  it('prunes on the first claim, then about once a minute', async () => {
    const store = new FakeClaimStore();
    const clock = { mono: 0 };
    const claims = claimsOver(store, clock);
    await claims.claim('a');
    await claims.claim('b');
    await claims.stop();
    assert.equal(store.prunes, 1);
    clock.mono += 61_000;
    await claims.claim('c');
    await claims.stop();
    assert.equal(store.prunes, 2);
  });

  it('auto claims on PostgreSQL only; true and false are obeyed on both', () => {
    assert.equal(fleetClaimsWanted('auto', 'postgres'), true);
    assert.equal(fleetClaimsWanted('auto', 'sqlite'), false);
    assert.equal(fleetClaimsWanted(true, 'sqlite'), true);
    assert.equal(fleetClaimsWanted(false, 'postgres'), false);
  });
});
