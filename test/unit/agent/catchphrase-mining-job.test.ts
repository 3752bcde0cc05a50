/**
 * When groups are mined (src/agent/catchphrases/mining-job.ts): a daily round goes through the
 * active groups one at a time, a group that fails is logged and skipped, "mine now" of a group
 * being mined joins that mining, and the round is scheduled by the given delay and stops with it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CatchphraseMiningJob } from '../../../src/agent/catchphrases/mining-job.ts';
import type { MiningReport } from '../../../src/agent/catchphrases/miner.ts';
import type { Log } from '../../../src/common/log.ts';

const report = (groupId: number, added = 1): MiningReport => ({
  groupId,
  examined: 1,
  eligible: 1,
  added,
  refreshed: 0,
  skipped: { picture: 0, command: 0, length: 0, number: 0, banned: 0, guard: 0, rare: 0 },
  shared: false,
});

function recordingLog() {
  const warnings: string[] = [];
  const log: Log = { debug() {}, info() {}, warn: (_fields, message) => warnings.push(String(message)), error() {} };
  return { log, warnings };
}

describe('catchphrase mining job', () => {
  it('a round mines each active group once, skipping one that fails', async () => {
    const mined: number[] = [];
    const { log, warnings } = recordingLog();
    const job = new CatchphraseMiningJob({
      miner: {
        mine: async (groupId) => {
          mined.push(groupId);
          if (groupId === 2) throw new Error('database busy');
          return report(groupId);
        },
      },
      groups: async () => [1, 2, 3],
      nextDelayMs: () => 86_400_000,
      log,
    });
    assert.deepEqual(await job.runRound(), { groups: 2, added: 2, failed: 1 });
    assert.deepEqual(mined, [1, 2, 3]);
    assert.deepEqual(warnings, ['catchphrase mining failed']);
  });

  it('mining a group being mined joins it', async () => {
    let release: () => void = () => undefined;
    let calls = 0;
    const job = new CatchphraseMiningJob({
      miner: {
        mine: (groupId) => {
          calls++;
          return new Promise((resolve) => (release = () => resolve(report(groupId))));
        },
      },
      groups: async () => [],
      nextDelayMs: () => 86_400_000,
      log: recordingLog().log,
    });
    const first = job.mineNow(7);
    const second = job.mineNow(7);
    release();
    assert.deepEqual(await Promise.all([first, second]), [report(7), report(7)]);
    assert.equal(calls, 1);
    const third = job.mineNow(7);
    release();
    await third;
    assert.equal(calls, 2, 'a later request mines again');
  });

  it('runs its round after the given delay, schedules the next, and stops', async () => {
    const mined: number[] = [];
    let scheduledTwice: () => void = () => undefined;
    const twice = new Promise<void>((resolve) => (scheduledTwice = resolve));
    const delays: number[] = [];
    const job = new CatchphraseMiningJob({
      miner: { mine: async (groupId) => (mined.push(groupId), report(groupId)) },
      groups: async () => [5],
      nextDelayMs: () => {
        delays.push(delays.length === 0 ? 0 : 86_400_000);
        if (delays.length === 2) scheduledTwice();
        return delays.at(-1)!;
      },
      log: recordingLog().log,
    });
    job.start();
    await twice;
    await job.stop();
    assert.deepEqual(mined, [5], 'one round ran');
    assert.deepEqual(delays, [0, 86_400_000]);
    assert.deepEqual(await job.runRound(), { groups: 0, added: 0, failed: 0 }, 'stopped: a round mines nothing');
  });
});
