/**
 * The fleet's accounts (docs/rules.md#fleet-accounts): each process learns the accounts connected
 * to the others, whether they connected before or after it started, and never its own.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { FleetAccounts } from '../../../src/app/fleet-wiring.ts';
import type { ChangeTopic } from '../../../src/store/change-feed.ts';

/** One database's change feed: a publish reaches the other processes' subscribers, as the real feed does. */
class Bus {
  readonly #subscribers: { origin: string; topic: ChangeTopic; take: (key: string) => void }[] = [];
  readonly published: { origin: string; topic: ChangeTopic; key: string }[] = [];

  feed(origin: string) {
    return {
      publish: async (topic: ChangeTopic, key: string) => {
        this.published.push({ origin, topic, key });
        for (const subscriber of this.#subscribers)
          if (subscriber.origin !== origin && subscriber.topic === topic) subscriber.take(key);
      },
      subscribe: (topic: ChangeTopic, take: (key: string) => void) => {
        this.#subscribers.push({ origin, topic, take });
        return () => undefined;
      },
    };
  }
}

/** The part of a OneBot server the fleet follows: its accounts and their connections. */
class Accounts extends EventEmitter<{ bot_connected: [{ selfId: number; role: 'Universal'; replaced: boolean }] }> {
  readonly #ids: number[] = [];
  bots() {
    return this.#ids.map((selfId) => ({ selfId }));
  }
  connect(selfId: number): void {
    this.#ids.push(selfId);
    this.emit('bot_connected', { selfId, role: 'Universal', replaced: false });
  }
}

function startProcess(bus: Bus, origin: string) {
  const onebot = new Accounts();
  const feed = bus.feed(origin);
  const fleet = new FleetAccounts(feed, (topic, key) => void feed.publish(topic, key));
  fleet.follow(onebot as never);
  fleet.hello();
  return { onebot, fleet };
}

describe('FleetAccounts', () => {
  it('knows the accounts of processes that started earlier and of accounts that connect later', () => {
    const bus = new Bus();
    const first = startProcess(bus, 'first');
    first.onebot.connect(10001);
    first.onebot.connect(10002);
    assert.deepEqual([...first.fleet.others()], [], 'alone, no other account');

    const second = startProcess(bus, 'second');
    assert.deepEqual([...second.fleet.others()].sort(), [10001, 10002], 'the first process answered the hello');
    second.onebot.connect(20001);
    assert.deepEqual([...first.fleet.others()], [20001], 'announced when it connected');
    assert.ok(!second.fleet.others().has(20001), 'its own account is not among the others');

    const third = startProcess(bus, 'third');
    assert.deepEqual([...third.fleet.others()].sort(), [10001, 10002, 20001]);
    assert.deepEqual(
      bus.published.filter((row) => row.topic === 'fleet-hello').map((row) => row.origin),
      ['first', 'second', 'third'],
    );
  });

  it('ignores a key that is not an account number', () => {
    const bus = new Bus();
    const { fleet } = startProcess(bus, 'here');
    const other = bus.feed('there');
    for (const key of ['', 'abc', '-5', '0', '1.5', '99999999999999999999']) void other.publish('fleet-account', key);
    void other.publish('fleet-account', '30001');
    assert.deepEqual([...fleet.others()], [30001]);
  });
});
