/** RequestStore (migration 0009_group_user_configs, table chat_request) on both engines. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ChatRequest } from '../../src/domain/chat.ts';
import { RequestStore } from '../../src/store/request-store.ts';
import { forEachEngine } from '../support/engines.ts';

const friend = (flag: string, userId: number, time: number, selfId = 1): ChatRequest => ({
  selfId,
  kind: 'friend',
  subType: '',
  userId,
  groupId: null,
  comment: `hi from ${userId}`,
  flag,
  time,
});

forEachEngine((engine) => {
  it('keeps requests once per account and flag, lists pending oldest first, settles once', async (t) => {
    const store = new RequestStore((await engine.open(t)).engine);
    const first = await store.add(friend('f1', 4_000_000_001, 100));
    assert.deepEqual([first.status, first.handledAt, first.groupId, first.userId], ['pending', 0, null, 4_000_000_001]);
    await store.add({ ...friend('g1', 22, 90), kind: 'group', subType: 'invite', groupId: 5_000_000_000 });
    await store.add(friend('f1', 4_000_000_001, 120)); // seen again: one row, refreshed
    await store.add(friend('f1', 33, 130, 2)); // same flag, another account: its own row
    const pending = await store.pending();
    assert.deepEqual(
      pending.map((r) => [r.selfId, r.flag, r.time, r.kind, r.groupId]),
      [
        [1, 'g1', 90, 'group', 5_000_000_000],
        [1, 'f1', 120, 'friend', null],
        [2, 'f1', 130, 'friend', null],
      ],
    );
    assert.deepEqual(
      (await store.pending(2)).map((r) => r.userId),
      [33],
    );
    const id = pending[1]?.id as number;
    assert.equal(await store.settle(id, 'approved', 'console', 500), true);
    assert.equal(await store.settle(id, 'rejected', 'console', 501), false, 'handled already');
    // An event seen again after it was handled keeps it handled.
    assert.equal((await store.add(friend('f1', 4_000_000_001, 140))).status, 'approved');
    assert.deepEqual(
      (await store.handled(10)).map((r) => [r.flag, r.status, r.handledBy, r.handledAt]),
      [['f1', 'approved', 'console', 500]],
    );
    assert.equal((await store.pending()).length, 2);
  });
});
