/**
 * The repeater's fleet claim (src/repeater/fleet-claims.ts, docs/rules.md#fleet-claims) over a fake
 * store: won and lost as the store says, a slow or failing store is `unsure` within the wait (the
 * message is handled here), a second account of this process asks the store no second time, and
 * expired claims are pruned about once a minute.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fleetClaimsWanted } from '../../../src/app/fleet-wiring.ts';
import { FleetClaims } from '../../../src/repeater/fleet-claims.ts';
import { silentLog } from '../../../src/common/log.ts';

class FakeClaimStore {
  readonly asked: string[] = [];
  readonly batches: string[][] = [];
  prunes = 0;
  answer: (key: string) => Promise<boolean> = async (key) => !key.startsWith('taken');
  async claimAll(keys: readonly string[], _by: string): Promise<Set<string>> {
    this.asked.push(...keys);
    this.batches.push([...keys]);
    const answers = await Promise.all(keys.map((key) => this.answer(key)));
    return new Set(keys.filter((_key, index) => answers[index]));
  }
  async prune(): Promise<number> {
    this.prunes++;
    return 0;
  }
}

function claimsOver(store: FakeClaimStore, clock = { mono: 0 }, waitMs = 50): FleetClaims {
  return new FleetClaims(store, {
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
    assert.equal(await claims.claim('free', 1), 'won');
    assert.equal(await claims.claim('free', 1), 'won', 'a second account of this process');
    assert.equal(await claims.claim('taken', 1), 'lost');
    assert.deepEqual(store.asked, ['free', 'taken']);
    assert.deepEqual([claims.counters.won, claims.counters.lost], [1, 1]);
  });

  it('a slow store is unsure within the wait, a failing one at once; neither rejects', async () => {
    const store = new FakeClaimStore();
    const claims = claimsOver(store, { mono: 0 }, 50);
    store.answer = () => new Promise<boolean>(() => undefined);
    const started = performance.now();
    assert.equal(await claims.claim('slow', 1), 'unsure');
    const waited = performance.now() - started;
    assert.ok(waited >= 45 && waited < 1000, `waited ${waited} ms`);
    store.answer = () => Promise.reject(new Error('database down'));
    assert.equal(await claims.claim('broken', 2), 'unsure');
    assert.deepEqual([claims.counters.slow, claims.counters.failed], [1, 1]);
  });

  it('prunes on the first claim, then about once a minute', async () => {
    const store = new FakeClaimStore();
    const clock = { mono: 0 };
    const claims = claimsOver(store, clock);
    await claims.claim('a', 1);
    await claims.claim('b', 1);
    await claims.stop();
    assert.equal(store.prunes, 1);
    clock.mono += 61_000;
    await claims.claim('c', 1);
    await claims.stop();
    assert.equal(store.prunes, 2);
  });

  it('a burst goes in batches, one statement in flight; verdicts come in arrival order', async () => {
    const store = new FakeClaimStore();
    const claims = claimsOver(store, { mono: 0 }, 1_000);
    const answers = new Map<string, (won: boolean) => void>();
    store.answer = (key) => new Promise<boolean>((resolve) => answers.set(key, resolve));
    const order: string[] = [];
    const asked = ['m1', 'm2', 'm3', 'm4'].map((key, index) =>
      claims.claim(key, 7 + (index % 2)).then((verdict) => order.push(`${key} ${verdict}`)),
    );
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(store.batches, [['m1']], 'the first claim goes at once, the others wait for it');
    answers.get('m1')!(true);
    await asked[0];
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(store.batches, [['m1'], ['m2', 'm3', 'm4']], 'then all that waited go in one statement');
    answers.get('m4')!(true);
    answers.get('m3')!(false);
    answers.get('m2')!(true);
    await Promise.all(asked);
    assert.deepEqual(order, ['m1 won', 'm2 won', 'm3 lost', 'm4 won']);
  });

  it('a failing statement makes every claim in it unsure; the next batch is asked again', async () => {
    const store = new FakeClaimStore();
    const claims = claimsOver(store, { mono: 0 }, 1_000);
    store.answer = () => Promise.reject(new Error('database down'));
    const failed = await Promise.all([claims.claim('f1', 1), claims.claim('f2', 1)]);
    assert.deepEqual(failed, ['unsure', 'unsure']);
    store.answer = async () => true;
    assert.equal(await claims.claim('f3', 1), 'won');
    assert.deepEqual(store.batches, [['f1'], ['f2'], ['f3']]);
    assert.equal(claims.counters.failed, 2);
  });

  it('auto claims on PostgreSQL only; true and false are obeyed on both', () => {
    assert.equal(fleetClaimsWanted('auto', 'postgres'), true);
    assert.equal(fleetClaimsWanted('auto', 'sqlite'), false);
    assert.equal(fleetClaimsWanted(true, 'sqlite'), true);
    assert.equal(fleetClaimsWanted(false, 'postgres'), false);
  });
});
