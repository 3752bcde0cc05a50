/**
 * The daily maintenance (docs/rules.md#maintenance): expired contexts deleted, one-off old answers pruned,
 * blacklists saved; scheduled at a local hour on the primary only.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RepeaterMaintenance, type Schedule } from '../../../src/repeater/maintenance.ts';
import { FakeClock } from '../../../src/common/clock.ts';
import { silentLog } from '../../../src/common/log.ts';
import { FakeLocal, NOW_SEC } from '../../support/corpus-fakes.ts';

const DAY = 86400;

function setup(hour = { now: 4 }) {
  const clock = new FakeClock(NOW_SEC * 1000);
  const corpus = new FakeLocal();
  let saves = 0;
  const scheduled: { run: () => void; delayMs: number; cancelled: boolean }[] = [];
  const schedule: Schedule = (run, delayMs) => {
    const entry = { run, delayMs, cancelled: false };
    scheduled.push(entry);
    return () => {
      entry.cancelled = true;
    };
  };
  const maintenance = new RepeaterMaintenance({
    corpus,
    blacklists: {
      save: async () => {
        saves++;
      },
    },
    hour: () => hour.now,
    answerThreshold: 3,
    clock,
    log: silentLog,
    schedule,
  });
  return { clock, corpus, maintenance, scheduled, saves: () => saves };
}

describe('RepeaterMaintenance', () => {
  it('deletes expired contexts below the threshold, keeps answers with count > 1 or newer than 15 days', async () => {
    const { corpus, maintenance, saves } = setup();
    const expiration = NOW_SEC - 15 * DAY;
    const answer = (keywords: string, count: number, time: number) => ({
      keywords,
      groupId: 1,
      count,
      time,
      messages: [keywords],
    });
    corpus.seed({ keywords: 'old', time: expiration - 1, triggerCount: 2, clearTime: 0, answers: [], bans: [] });
    corpus.seed({ keywords: 'old-busy', time: expiration - 1, triggerCount: 3, clearTime: 0, answers: [], bans: [] });
    corpus.seed({
      keywords: 'mixed',
      time: NOW_SEC,
      triggerCount: 5,
      clearTime: 0,
      answers: [
        answer('once-old', 1, expiration),
        answer('twice-old', 2, expiration - 9),
        answer('once-new', 1, expiration + 1),
      ],
      bans: [],
    });
    corpus.seed({
      keywords: 'cleaned',
      time: NOW_SEC,
      triggerCount: 5,
      clearTime: NOW_SEC - DAY,
      answers: [answer('x', 1, 1)],
      bans: [],
    });
    const report = await maintenance.runOnce();
    assert.deepEqual(report, { deletedContexts: 1, rewrittenContexts: 2, removedAnswers: 1 });
    assert.deepEqual(
      corpus.calls.filter((c) => c.method === 'deleteExpired').map((c) => c.args),
      [[expiration, 3]],
    );
    assert.deepEqual(
      corpus.calls.filter((c) => c.method === 'iterateForCleanup').map((c) => c.args),
      [[100, expiration]],
    );
    assert.equal(corpus.contexts.has('old'), false);
    assert.equal(corpus.contexts.has('old-busy'), true);
    assert.deepEqual(
      corpus.contexts.get('mixed')?.answers.map((a) => a.keywords),
      ['twice-old', 'once-new'],
    );
    assert.equal(corpus.contexts.get('mixed')?.clearTime, NOW_SEC);
    assert.deepEqual(corpus.contexts.get('cleaned')?.answers.length, 1, 'cleaned within 15 days: not visited');
    assert.equal(saves(), 1);
  });

  it('the next run is at the configured local hour, today or tomorrow', () => {
    const at = (hours: number, minutes = 0) => new Date(2026, 10, 20, hours, minutes).getTime();
    assert.equal(RepeaterMaintenance.delayUntilHour(at(3, 30), 4), 30 * 60_000);
    assert.equal(RepeaterMaintenance.delayUntilHour(at(4, 0), 4), new Date(2026, 10, 21, 4).getTime() - at(4));
    assert.equal(RepeaterMaintenance.delayUntilHour(at(23), 4), new Date(2026, 10, 21, 4).getTime() - at(23));
  });

  it('the primary schedules a run, runs it, schedules the next; stop cancels', async () => {
    const { clock, maintenance, scheduled, saves } = setup();
    maintenance.start();
    maintenance.start();
    assert.equal(scheduled.length, 1);
    assert.equal(scheduled[0]?.delayMs, RepeaterMaintenance.delayUntilHour(clock.nowMs(), 4));
    scheduled[0]?.run();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(saves(), 1);
    assert.equal(scheduled.length, 2);
    await maintenance.stop();
    assert.equal(scheduled[1]?.cancelled, true);
    assert.equal(maintenance.scheduled, false);
  });

  it('each start reads the hour: a restart takes a new one', async () => {
    const hour = { now: 4 };
    const { clock, maintenance, scheduled } = setup(hour);
    maintenance.start();
    await maintenance.stop();
    hour.now = 9;
    maintenance.start();
    assert.equal(scheduled[1]?.delayMs, RepeaterMaintenance.delayUntilHour(clock.nowMs(), 9));
    assert.notEqual(scheduled[1]?.delayMs, scheduled[0]?.delayMs);
  });

  it('a failing round is logged and the schedule goes on', async () => {
    const { corpus, maintenance, scheduled } = setup();
    corpus.override.deleteExpired = async () => {
      throw new Error('db down');
    };
    maintenance.start();
    scheduled[0]?.run();
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(scheduled.length, 2);
    await maintenance.stop();
  });
});
