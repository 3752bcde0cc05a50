/**
 * The reminder scheduler (src/agent/tasks/scheduler.ts) on a real store, both engines, driven by a
 * fake clock (one pass per `tick`, no sleeps): a reminder is sent at its time and only then, once;
 * two schedulers of two processes on one database send it once; a task of an account connected
 * elsewhere is left alone; refused and silenced reminders; the late bound after a long downtime;
 * a cancelled reminder is never sent; the timer loop runs a pass at the due time and stops.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { FakeClock } from '../../src/common/clock.ts';
import { silentLog } from '../../src/common/log.ts';
import { ReminderScheduler, type ReminderJudgement, type ReminderOutlet } from '../../src/agent/tasks/scheduler.ts';
import { TASKS } from '../../src/agent/tasks/limits.ts';
import { AgentTaskStore, type AgentTask } from '../../src/store/agent-tasks-store.ts';
import { forEachEngine } from '../support/engines.ts';

const BOUNDS = { perGroup: 10, perMember: 10 };

class RecordingOutlet implements ReminderOutlet {
  sent: AgentTask[] = [];
  judgement: (task: AgentTask) => ReminderJudgement = () => 'send';
  failNext = false;
  constructor(readonly connected: number[]) {}
  accounts() {
    return this.connected;
  }
  judge(task: AgentTask) {
    return this.judgement(task);
  }
  async send(task: AgentTask) {
    if (this.failNext) throw new Error('retcode 1200');
    this.sent.push(task);
  }
}

forEachEngine((engine) => {
  it('sends a reminder at its time, once, across two processes', async (t) => {
    const store = await engine.open(t);
    const other = await store.reopen();
    const clock = new FakeClock();
    const tasks = new AgentTaskStore(store.engine);
    const made = await tasks.create(
      {
        selfId: 10,
        groupId: 500,
        creatorUserId: 42,
        text: '喝水',
        dueAt: clock.nowMs() + 60_000,
        createdAt: clock.nowMs(),
      },
      BOUNDS,
    );
    assert.ok(made.ok);
    const outletA = new RecordingOutlet([10]);
    const outletB = new RecordingOutlet([10]);
    const a = new ReminderScheduler({ store: tasks, outlet: outletA, clock, log: silentLog });
    const b = new ReminderScheduler({
      store: new AgentTaskStore(other.engine),
      outlet: outletB,
      clock,
      log: silentLog,
    });

    await a.tick();
    assert.equal(outletA.sent.length, 0, 'not before its time');
    clock.advance(60_000);
    await Promise.all([a.tick(), b.tick()]);
    assert.equal(outletA.sent.length + outletB.sent.length, 1, 'exactly one process sent it');
    await Promise.all([a.tick(), b.tick()]);
    assert.equal(outletA.sent.length + outletB.sent.length, 1, 'and never again');
    const row = await tasks.get(made.task.id);
    assert.equal(row?.status, 'done');
    assert.equal(row?.doneAt, clock.nowMs());
  });

  it('leaves other accounts alone; fails refused, late and unsendable ones; waits while silenced', async (t) => {
    const store = await engine.open(t);
    const clock = new FakeClock();
    const tasks = new AgentTaskStore(store.engine);
    const now = clock.nowMs();
    const make = async (text: string, over: { selfId?: number; dueAt?: number } = {}) => {
      const made = await tasks.create(
        { selfId: 10, groupId: 500, creatorUserId: 42, text, dueAt: now, createdAt: now - 1, ...over },
        BOUNDS,
      );
      assert.ok(made.ok);
      return made.task.id;
    };
    const elsewhere = await make('别的账号', { selfId: 11 });
    const late = await make('太晚了', { dueAt: now - TASKS.lateBoundMs - 1 });
    const almost = await make('晚了一点', { dueAt: now - TASKS.lateBoundMs + 60_000 });
    const guarded = await make('脏话');
    const silenced = await make('闭嘴时');
    const cancelled = await make('取消了');
    await tasks.cancel(cancelled, 'chat', now);
    const outlet = new RecordingOutlet([10]);
    outlet.judgement = (task) =>
      task.text === '脏话' ? { refused: 'guarded' } : task.text === '闭嘴时' ? 'wait' : 'send';
    const scheduler = new ReminderScheduler({ store: tasks, outlet, clock, log: silentLog });
    await scheduler.tick();

    assert.deepEqual(
      outlet.sent.map((task) => task.text),
      ['晚了一点'],
      'sent when less than the bound late',
    );
    const state = async (id: number) => {
      const row = await tasks.get(id);
      return [row?.status, row?.failReason];
    };
    assert.deepEqual(await state(late), ['failed', 'late']);
    assert.deepEqual(await state(almost), ['done', '']);
    assert.deepEqual(await state(guarded), ['failed', 'guarded']);
    assert.deepEqual(await state(silenced), ['open', ''], 'a silenced group waits');
    assert.deepEqual(await state(elsewhere), ['open', ''], 'its own process sends it');
    assert.deepEqual(await state(cancelled), ['cancelled', '']);
    assert.equal(scheduler.counters.late, 1);

    outlet.judgement = () => 'send';
    outlet.failNext = true;
    await scheduler.tick();
    assert.deepEqual(await state(silenced), ['failed', 'send_failed'], 'a refused send fails, once');
    assert.equal(outlet.sent.length, 1);
  });

  it('the timer loop runs a pass at the due time, and stops within its deadline', async (t) => {
    const store = await engine.open(t);
    const tasks = new AgentTaskStore(store.engine);
    // The loop's timers are real: the task is due 300 ms from now on the system clock.
    const clock = { nowMs: () => Date.now(), monotonicMs: () => performance.now() };
    const made = await tasks.create(
      { selfId: 10, groupId: 500, creatorUserId: 42, text: '喝水', dueAt: Date.now() + 300, createdAt: Date.now() },
      BOUNDS,
    );
    assert.ok(made.ok);
    let sent: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => (sent = resolve));
    const outlet = new RecordingOutlet([10]);
    const send = outlet.send.bind(outlet);
    outlet.send = async (task) => (await send(task), sent());
    const scheduler = new ReminderScheduler({ store: tasks, outlet, clock, log: silentLog, pollMs: 60_000 });
    // The scheduler's timer does not hold the process open (the service's server does); the test must.
    const alive = setInterval(() => undefined, 1000);
    t.after(() => clearInterval(alive));
    scheduler.start();
    await arrived;
    assert.ok(Date.now() >= made.task.dueAt, 'not before its time');
    await scheduler.stop(2000);
    assert.equal((await tasks.get(made.task.id))?.status, 'done');
    assert.ok(scheduler.counters.passes >= 2, 'a pass at start, one at the due time');
  });
});
