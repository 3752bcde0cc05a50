/**
 * The daily maintenance restarts through the primary group (src/app/chat-wiring.ts): a restart
 * that overlaps the service's stop, or another restart, never leaves a round scheduled after the
 * stop, nor two of them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maintenanceReaction } from '../../../src/app/chat-wiring.ts';
import type { ConfigChange } from '../../../src/config/index.ts';
import { RepeaterMaintenance } from '../../../src/repeater/index.ts';
import { systemClock } from '../../../src/common/clock.ts';
import { LifecycleScope } from '../../../src/common/lifecycle.ts';
import { silentLog } from '../../../src/common/log.ts';

function harness() {
  let scheduled = 0;
  let release = () => {};
  const roundHeld = new Promise<void>((resolve) => {
    release = resolve;
  });
  const maintenance = new RepeaterMaintenance({
    // A round in progress holds the stop of its maintenance until released.
    corpus: {
      deleteExpired: async () => {
        await roundHeld;
        return 0;
      },
      iterateForCleanup: async function* () {},
      replaceAnswers: async () => undefined,
    },
    blacklists: { save: async () => undefined },
    hour: () => 4,
    answerThreshold: 3,
    clock: systemClock,
    log: silentLog,
    schedule: () => {
      scheduled++;
      return () => {
        scheduled--;
      };
    },
  });
  const primary = new LifecycleScope('primary', {
    onTaskError: (label, error) => assert.fail(`${label}: ${String(error)}`),
  });
  const part = primary.add(maintenance);
  const reaction = maintenanceReaction(primary, () => 4);
  const restart = () => reaction.run({} as ConfigChange);
  return { primary, part, restart, release, scheduled: () => scheduled };
}

describe('maintenance restart', () => {
  it('a restart that overlaps the stop starts nothing after it', async () => {
    const h = harness();
    await h.primary.start();
    assert.equal(h.scheduled(), 1);
    const round = h.part.runOnce();
    await h.restart();
    const stopped = h.primary.stop(2000);
    h.release();
    await round;
    const report = await stopped;
    assert.deepEqual(report.failed, []);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(h.scheduled(), 0, 'nothing scheduled once stopped');
  });

  it('two overlapping restarts leave exactly one maintenance scheduled', async () => {
    const h = harness();
    await h.primary.start();
    const round = h.part.runOnce();
    await h.restart();
    await h.restart();
    h.release();
    await round;
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(h.scheduled(), 1);
    assert.equal(h.part.scheduled, true);
    await h.primary.stop(2000);
    assert.equal(h.scheduled(), 0);
  });
});
