/**
 * Learning from history as console jobs (src/app/history-seeds.ts): when a group is seeded by
 * itself (switched on with auto-seed, or an account connects and it was never seeded), the
 * activity entry of each start, the mark a seed leaves, and the codes of a missing action and of
 * no account.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { HistorySeeds } from '../../../src/app/history-seeds.ts';
import type { ActivityInput } from '../../../src/domain/activity.ts';
import { defaultGroupConfig, type GroupConfig, type GroupConfigPatch } from '../../../src/domain/chat-controls.ts';
import { FakeClock } from '../../../src/common/clock.ts';
import { silentLog } from '../../../src/common/log.ts';
import type { ChatHistory } from '../../../src/ports/chat.ts';
import type { HistoryLearnDeps } from '../../../src/repeater/index.ts';
import type { Job } from '../../../src/ops/jobs/index.ts';

const EMPTY: ChatHistory = { groupHistory: async () => ({ kind: 'page', messages: [], dropped: 0 }) };

function seeds(options: { history?: ChatHistory; accounts?: number[] } = {}) {
  const recorded: ActivityInput[] = [];
  const saved: [number, GroupConfigPatch][] = [];
  const groups = new Map<number, GroupConfig>();
  const service = new HistorySeeds({
    history: options.history ?? EMPTY,
    accounts: () => options.accounts ?? [10001],
    learn: () => ({}) as HistoryLearnDeps,
    queuePressure: () => 0,
    controls: {
      group: (id) => groups.get(id) ?? defaultGroupConfig(id),
      saveGroup: (id, patch) => saved.push([id, patch]),
    },
    activity: { record: async (input) => (recorded.push(input), 1) },
    clock: new FakeClock(1_800_000_000_000),
    log: silentLog,
    pageIntervalMs: 0,
  });
  return { service, recorded, saved, groups };
}

const ended = (job: Job) =>
  new Promise<void>((resolve) => {
    if (job.finished) return resolve();
    job.subscribe(() => job.finished && resolve());
  });
const config = (groupId: number, patch: Partial<GroupConfig>): GroupConfig => ({
  ...defaultGroupConfig(groupId),
  ...patch,
});

it('seeds a group switched on with auto-seed, once, and records who started it', async () => {
  const { service, recorded, saved } = seeds();
  service.afterSave(config(1, {}), config(1, { historySeed: true }));
  service.afterSave(config(2, { historySeed: true, learn: false }), config(2, { historySeed: true, learn: true }));
  // Already on, or switched on without learning: nothing.
  service.afterSave(config(3, { historySeed: true }), config(3, { historySeed: true, reply: false }));
  service.afterSave(config(4, {}), config(4, { historySeed: true, banned: true }));
  const started = service.list();
  assert.deepEqual(
    started.map((seed) => seed.groupId),
    [1, 2],
  );
  for (const { job } of started) await ended(job);
  assert.deepEqual(
    recorded.map((entry) => [entry.kind, entry.groupId, entry.actor, entry.params]),
    [
      ['history_seed', 1, { kind: 'system', name: 'history_seed.switched_on' }, { depth: 2000 }],
      ['history_seed', 2, { kind: 'system', name: 'history_seed.switched_on' }, { depth: 2000 }],
    ],
  );
  // A finished seed marks the group as learned up to its start.
  assert.deepEqual(saved, [
    [1, { historySeededUntil: 1_800_000_000 }],
    [2, { historySeededUntil: 1_800_000_000 }],
  ]);
});

it('an account that connects seeds the auto-seed groups never seeded', async () => {
  const { service } = seeds();
  service.accountJoined([
    config(1, { historySeed: true }),
    config(2, { historySeed: true, historySeededUntil: 1_700_000_000 }),
    config(3, {}),
  ]);
  assert.deepEqual(
    service.list().map((seed) => seed.groupId),
    [1],
  );
  await ended(service.list()[0]?.job as Job);
});

it('says plainly when the implementation lacks the action, or no account is connected', async () => {
  const unsupported = seeds({
    history: { groupHistory: async () => ({ kind: 'unsupported', detail: 'retcode 1404' }) },
  });
  const job = unsupported.service.start({ groupId: 7, depth: 10, actor: { kind: 'system', name: 'test' } });
  await ended(job);
  assert.deepEqual(job.snapshot().text, {
    code: 'history_seed.unsupported',
    params: { account: 10001, detail: 'retcode 1404' },
  });
  assert.deepEqual(unsupported.saved, [], 'no mark for a seed that read nothing');

  const alone = seeds({ accounts: [] });
  const lonely = alone.service.start({ groupId: 7, depth: 10, actor: { kind: 'system', name: 'test' } });
  await ended(lonely);
  assert.equal(lonely.snapshot().text?.code, 'history_seed.no_account');
  assert.equal(alone.service.cancel(7), false, 'nothing runs to cancel');
});
