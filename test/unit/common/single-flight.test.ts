/** SingleFlight: one load per key, joiners share it, a dropped registration does not settle as current. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SingleFlight } from '../../../src/common/single-flight.ts';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

describe('SingleFlight', () => {
  it('runs one load per key and lets later callers join it', async () => {
    const flights = new SingleFlight<string, number>();
    const gate = deferred<number>();
    let loads = 0;
    const settled: [number, boolean][] = [];
    const load = () => {
      loads++;
      return gate.promise;
    };
    const first = flights.run('k', load, (value, current) => settled.push([value, current]));
    const second = flights.run('k', load);
    assert.equal(first.joined, false);
    assert.equal(second.joined, true);
    assert.equal(second.promise, first.promise);
    assert.equal(flights.size, 1);
    gate.resolve(7);
    assert.deepEqual(await Promise.all([first.promise, second.promise]), [7, 7]);
    assert.equal(loads, 1);
    assert.deepEqual(settled, [[7, true]]);
    assert.equal(flights.get('k'), undefined, 'a settled load is no longer registered');
  });

  it('a forgotten load settles as not current, and a new one starts meanwhile', async () => {
    const flights = new SingleFlight<string, string>();
    const old = deferred<string>();
    const settled: [string, boolean][] = [];
    const stale = flights.run(
      'k',
      () => old.promise,
      (value, current) => settled.push([value, current]),
    );
    flights.forget('k');
    const fresh = flights.run(
      'k',
      () => Promise.resolve('new'),
      (value, current) => settled.push([value, current]),
    );
    assert.equal(fresh.joined, false);
    assert.equal(await fresh.promise, 'new');
    old.resolve('old');
    assert.equal(await stale.promise, 'old');
    assert.deepEqual(settled, [
      ['new', true],
      ['old', false],
    ]);
  });

  it('forget(key, only) drops the registration only if it is still that load; forget() drops all', async () => {
    const flights = new SingleFlight<string, number>();
    const a = flights.run('a', () => new Promise<number>(() => {}));
    flights.forget('a', Promise.resolve(1));
    assert.equal(flights.get('a'), a.promise);
    flights.forget('a', a.promise);
    assert.equal(flights.get('a'), undefined);
    flights.run('b', () => new Promise<number>(() => {}));
    flights.run('c', () => new Promise<number>(() => {}));
    flights.forget();
    assert.equal(flights.size, 0);
  });

  it('a failed load rejects every caller and is not registered after', async () => {
    const flights = new SingleFlight<string, number>();
    const gate = deferred<number>();
    const first = flights.run('k', () => gate.promise);
    const joined = flights.run('k', () => Promise.resolve(1));
    gate.reject(new Error('down'));
    await assert.rejects(first.promise, /down/);
    await assert.rejects(joined.promise, /down/);
    assert.equal(flights.size, 0);
  });
});
