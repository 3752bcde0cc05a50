/**
 * Reminder tasks (src/store/agent-tasks-store.ts, docs/agent-tasks.md) on both engines: creation
 * within the per-member and per-group bounds, the list order (open first, soonest due), the due
 * query by account, a task claimed by two "processes" (two stores on one database) runs once even
 * when many claims race, cancel only by the creator in the group, and the late bound.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AgentTaskStore, type NewAgentTask } from '../../src/store/agent-tasks-store.ts';
import { forEachEngine } from '../support/engines.ts';

const T0 = 1_800_000_000_000;
const BOUNDS = { perGroup: 3, perMember: 2 };
const task = (over: Partial<NewAgentTask> = {}): NewAgentTask => ({
  selfId: 10,
  groupId: 500,
  creatorUserId: 42,
  text: '喝水',
  dueAt: T0 + 60_000,
  createdAt: T0,
  ...over,
});

forEachEngine((engine) => {
  it('creates within the bounds and lists open tasks first, soonest due first', async (t) => {
    const store = await engine.open(t);
    const tasks = new AgentTaskStore(store.engine);
    const a = await tasks.create(task({ dueAt: T0 + 90_000 }), BOUNDS);
    const b = await tasks.create(task({ dueAt: T0 + 30_000 }), BOUNDS);
    assert.ok(a.ok && b.ok);
    assert.deepEqual(await tasks.create(task(), BOUNDS), { ok: false, reason: 'member_full' });
    const c = await tasks.create(task({ creatorUserId: 43 }), BOUNDS);
    assert.ok(c.ok);
    assert.deepEqual(await tasks.create(task({ creatorUserId: 44 }), BOUNDS), { ok: false, reason: 'group_full' });
    assert.ok((await tasks.create(task({ groupId: 501 }), BOUNDS)).ok, 'another group has its own bound');

    assert.equal(a.task.status, 'open');
    assert.equal(a.task.text, '喝水');
    assert.equal(a.task.dueAt, T0 + 90_000);
    assert.ok(await tasks.cancel(c.task.id, 'console', T0 + 1));
    const listed = await tasks.list({ groupId: 500, limit: 10 });
    assert.deepEqual(
      listed.map((row) => [row.id, row.status]),
      [
        [b.task.id, 'open'],
        [a.task.id, 'open'],
        [c.task.id, 'cancelled'],
      ],
    );
    assert.deepEqual(
      (await tasks.list({ status: 'cancelled', limit: 10 })).map((row) => row.cancelledBy),
      ['console'],
    );
    assert.equal((await tasks.list({ creatorUserId: 42, groupId: 500, status: 'open', limit: 10 })).length, 2);
    assert.equal(await tasks.nextDueAt(T0, [10]), T0 + 30_000);
    assert.equal(await tasks.nextDueAt(T0 + 30_000, [10]), T0 + 60_000, 'only after the time given (group 501)');
    assert.equal(await tasks.nextDueAt(T0, [11]), null, 'only these accounts');
  });

  it('a due task claimed by two processes on one database runs once', async (t) => {
    const store = await engine.open(t);
    const other = await store.reopen();
    const here = new AgentTaskStore(store.engine);
    const there = new AgentTaskStore(other.engine);
    const created = await here.create(task({ dueAt: T0 }), BOUNDS);
    assert.ok(created.ok);
    assert.deepEqual(await here.due(T0 - 1, [10], 10), [], 'not due before its time');
    assert.deepEqual(await here.due(T0, [11], 10), [], 'another account does not send it');
    assert.equal((await there.due(T0, [10, 11], 10)).length, 1);

    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, index) => (index % 2 ? here : there).claim(created.task.id, T0 + 5)),
    );
    const won = claims.filter((claim) => claim !== null);
    assert.equal(won.length, 1, 'exactly one claim wins');
    assert.equal(won[0]?.status, 'done');
    assert.equal(won[0]?.doneAt, T0 + 5);
    assert.deepEqual(await there.due(T0 + 10, [10], 10), [], 'a claimed task is no longer due');
    assert.equal(await here.cancel(created.task.id, 'console', T0 + 6), null, 'a sent task cannot be cancelled');
    await here.fail(created.task.id, 'send_failed', T0 + 7);
    assert.equal((await there.get(created.task.id))?.failReason, 'send_failed');
    assert.equal(await there.nextDueAt(0, [10]), null);
  });

  it('only the creator cancels in chat; overdue tasks past the bound are given up', async (t) => {
    const store = await engine.open(t);
    const tasks = new AgentTaskStore(store.engine);
    const mine = await tasks.create(task({ dueAt: T0 + 1000 }), BOUNDS);
    const old = await tasks.create(task({ creatorUserId: 43, dueAt: T0 - 7 * 3_600_000 }), BOUNDS);
    assert.ok(mine.ok && old.ok);
    assert.equal(await tasks.cancel(mine.task.id, 'chat', T0, { groupId: 500, userId: 43 }), null, 'not the creator');
    assert.equal(await tasks.cancel(mine.task.id, 'chat', T0, { groupId: 501, userId: 42 }), null, 'not that group');
    const cancelled = await tasks.cancel(mine.task.id, 'chat', T0, { groupId: 500, userId: 42 });
    assert.equal(cancelled?.status, 'cancelled');
    assert.equal(cancelled?.cancelledBy, 'chat');
    assert.equal(await tasks.claim(mine.task.id, T0 + 2000), null, 'a cancelled task is never sent');

    const expired = await tasks.expireLate(T0, 6 * 3_600_000);
    assert.deepEqual(
      expired.map((row) => [row.id, row.status, row.failReason]),
      [[old.task.id, 'failed', 'late']],
    );
    assert.deepEqual(await tasks.expireLate(T0, 6 * 3_600_000), [], 'given up once');
  });
});
