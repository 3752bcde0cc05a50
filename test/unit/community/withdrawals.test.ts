/**
 * The withdrawal poll's cursor (src/community/withdrawals.ts): `since` is inclusive, so items of
 * the cursor's own second come back on the next poll and must not be applied or counted twice,
 * also after a restart (the done set is kept in the cursor file); only group-0 copies are deleted.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it, type TestContext } from 'node:test';
import type { CommunityClient } from '../../../src/community/community-client.ts';
import type { WithdrawnAnswer } from '../../../src/community/codec.ts';
import { Withdrawals, type WithdrawalModeration } from '../../../src/community/withdrawals.ts';
import { silentLog } from '../../../src/common/log.ts';

/** The hub's answer to GET /withdrawn?since=: every listed item from `since` on (inclusive). */
function hubList(items: WithdrawnAnswer[], asOf: () => number): { client: CommunityClient; asked: number[] } {
  const asked: number[] = [];
  const client = {
    withdrawn: async (since: number) => {
      asked.push(since);
      return { asOf: asOf(), items: items.filter((item) => item.withdrawnAt >= since) };
    },
  } as unknown as CommunityClient;
  return { client, asked };
}

/** Answers stored here by (context, answer): each with its group. */
function localAnswers(stored: Record<string, number[]>): WithdrawalModeration & { deleted: number[] } {
  let next = 1;
  const rows = new Map<string, { id: number; groupId: number }[]>();
  for (const [key, groups] of Object.entries(stored))
    rows.set(
      key,
      groups.map((groupId) => ({ id: next++, groupId })),
    );
  const deleted: number[] = [];
  return {
    deleted,
    answersNamed: async (keywords, answer) =>
      rows.get(`${keywords}|${answer}`)?.filter((row) => !deleted.includes(row.id)) ?? [],
    deleteAnswer: async (id) => {
      deleted.push(id);
      return { keywords: '' };
    },
  };
}

async function folder(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-withdrawn-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'community-withdrawn.json');
}

it('applies each withdrawal once across polls and restarts; keeps answers learned in a group', async (t) => {
  const path = await folder(t);
  const items: WithdrawnAnswer[] = [
    { keywords: '广告', answerKeywords: '加群', withdrawnAt: 100 },
    { keywords: '早上好', answerKeywords: '早安', withdrawnAt: 100 },
  ];
  let hubNow = 100;
  const hub = hubList(items, () => hubNow);
  // 广告 → 加群 imported (group 0) here; 早上好 → 早安 learned here in group 42 and also imported.
  const store = localAnswers({ '广告|加群': [0], '早上好|早安': [42, 0] });
  const changed: string[] = [];
  const build = () =>
    new Withdrawals({
      path,
      client: () => hub.client,
      moderation: store,
      changed: (keywords) => changed.push(keywords),
      nowSec: () => hubNow,
      log: silentLog,
    });
  const first = build();
  await first.poll();
  assert.deepEqual(store.deleted, [1, 3], 'both group-0 copies deleted; the group-42 answer kept');
  assert.equal(first.counters.removed, 2);
  assert.equal(first.counters.kept_learned_here, 1);
  assert.deepEqual(changed, ['广告', '早上好']);

  // Same second again (inclusive since): nothing applied or counted twice.
  await first.poll();
  assert.equal(first.counters.seen, 2);
  // A restart reads the cursor and its done set from the file.
  const restarted = build();
  await restarted.poll();
  assert.equal(restarted.counters.seen, 0);
  assert.equal(hub.asked.at(-1), 100);

  // A new withdrawal a second later is applied; an empty page moves the cursor to the hub's time.
  items.push({ keywords: '广告', answerKeywords: '私聊', withdrawnAt: 101 });
  hubNow = 105;
  await restarted.poll();
  assert.equal(restarted.counters.seen, 1);
  assert.equal(restarted.counters.absent, 1, 'not stored here: nothing to delete');
  await restarted.poll();
  assert.equal(hub.asked.at(-1), 101);
  await restarted.poll();
  assert.equal(restarted.counters.seen, 1);
});

it('a failed poll keeps the cursor and counts the failure', async (t) => {
  const path = await folder(t);
  const client = { withdrawn: async () => null } as unknown as CommunityClient;
  const withdrawals = new Withdrawals({
    path,
    client: () => client,
    moderation: localAnswers({}),
    changed: () => {},
    nowSec: () => 1,
    log: silentLog,
  });
  await withdrawals.poll();
  assert.equal(withdrawals.counters.poll_failures, 1);
  assert.equal(withdrawals.counters.last_poll_at, 0);
});
