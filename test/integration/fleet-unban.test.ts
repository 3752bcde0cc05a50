/**
 * An unban in a fleet (docs/rules.md#activity-log, #fleet-feed): the process where the console
 * lifted a ban tells the others through the change feed, and their blacklists in memory forget
 * the keywords, so their next save does not write the ban back (a reload alone merges, a union).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { listsChangedHere, followChanges } from '../../src/app/fleet-wiring.ts';
import { FakeClock } from '../../src/common/clock.ts';
import { silentLog } from '../../src/common/log.ts';
import { TaskSet } from '../../src/common/task-set.ts';
import { BanManager } from '../../src/repeater/bans.ts';
import { ReplyRecords } from '../../src/repeater/reply-records.ts';
import { ChangeFeed } from '../../src/store/change-feed.ts';
import type { LocalStore } from '../../src/store/open-store.ts';
import { forEachEngine } from '../support/engines.ts';

function process(store: LocalStore, clock: FakeClock) {
  const feed = new ChangeFeed(store.engine, {
    log: silentLog,
    nowMs: () => clock.nowMs(),
    monotonicMs: () => clock.monotonicMs(),
    pollMs: 3_600_000,
  });
  const bans = new BanManager({
    corpus: store.corpus,
    records: new ReplyRecords(() => clock.monotonicMs()),
    repository: store.blacklists,
    crossGroupThreshold: () => 2,
    clock,
    log: silentLog,
  });
  const tasks = new TaskSet(() => undefined);
  followChanges(feed, tasks, {
    dropCorpusCaches: () => undefined,
    forgetLearnedKey: () => undefined,
    log: silentLog,
    botSettings: { reload: async () => undefined },
    controls: { reloadGroup: async () => undefined, reloadUser: async () => undefined },
    bans,
  });
  const publish = (topic: Parameters<ChangeFeed['publish']>[0], key: string) =>
    tasks.run('publish', () => feed.publish(topic, key));
  return { feed, bans, tasks, listsChanged: listsChangedHere(bans, publish) };
}

forEachEngine((engine) => {
  it('the other process forgets a lifted ban and does not save it back', async (t) => {
    const store = await engine.open(t);
    const other = await store.reopen();
    const clock = new FakeClock(1_800_000_000_000);
    await store.blacklists.put({ groupId: 101, answers: ['早'], answersReserve: [] });
    const here = process(store, clock);
    const there = process(other, clock);
    await here.bans.load();
    await there.bans.load();
    await here.feed.start();
    await there.feed.start();
    t.after(() => Promise.all([here.feed.stop(), there.feed.stop()]));
    assert.deepEqual(there.bans.lists(101).active, ['早']);

    // The store took the keywords off the stored list (unban-programs.ts); this process follows.
    await store.blacklists.put({ groupId: 101, answers: [], answersReserve: [] });
    here.listsChanged({ keywords: '早', lifted: [101], restored: [] });
    await here.tasks.drain(5000);
    assert.deepEqual(here.bans.lists(101).active, []);
    await there.feed.poll();
    await there.tasks.drain(5000);
    assert.deepEqual(there.bans.lists(101).active, [], 'the other process forgot it');
    await there.bans.save();
    assert.deepEqual((await store.blacklists.get(101))?.answers, [], 'and did not write it back');

    // An undone unban: the stored list has it again, and the other process merges it back.
    await store.blacklists.put({ groupId: 101, answers: ['早'], answersReserve: [] });
    here.listsChanged({ keywords: '早', lifted: [], restored: [101] });
    await here.tasks.drain(5000);
    await there.feed.poll();
    await there.tasks.drain(5000);
    assert.deepEqual(there.bans.lists(101).active, ['早']);
  });
});
