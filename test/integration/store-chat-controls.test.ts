/** ChatControlsStore (migration 0009_group_user_configs) on both engines: one contract. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { defaultGroupConfig, defaultUserConfig } from '../../src/domain/chat-controls.ts';
import { ChatControlsStore } from '../../src/store/chat-controls-store.ts';
import { forEachEngine } from '../support/engines.ts';

forEachEngine((engine) => {
  it('unknown groups and users are null; lists are empty', async (t) => {
    const store = new ChatControlsStore((await engine.open(t)).engine);
    assert.equal(await store.getGroup(123), null);
    assert.equal(await store.getUser(456), null);
    assert.deepEqual(await store.listGroups(), []);
    assert.deepEqual(await store.listUsers(), []);
  });

  it('a group config is created from the defaults, merged field by field, and listed by group', async (t) => {
    const store = new ChatControlsStore((await engine.open(t)).engine);
    const big = 4_000_000_001;
    const created = await store.putGroup(big, { reply: false, blockedUserIds: [5, 4_000_000_002] }, 100);
    assert.deepEqual(created, {
      ...defaultGroupConfig(big),
      reply: false,
      blockedUserIds: [5, 4_000_000_002],
      updatedAt: 100,
    });
    await store.putGroup(7, { banned: true }, 110);
    const merged = await store.putGroup(
      big,
      {
        learn: false,
        share: false,
        answerThreshold: 5,
        replyCooldownSec: 0,
        silenceUntil: 1_800_000_000,
        proactive: true,
      },
      200,
    );
    assert.deepEqual(merged, {
      groupId: big,
      learn: false,
      reply: false,
      share: false,
      answerThreshold: 5,
      replyCooldownSec: 0,
      silenceUntil: 1_800_000_000,
      proactive: true,
      agentChat: null,
      blockedUserIds: [5, 4_000_000_002],
      banned: false,
      historySeed: false,
      historySeededUntil: 0,
      updatedAt: 200,
    });
    assert.deepEqual(await store.getGroup(big), merged);
    // Overrides go back to the global value with null.
    const cleared = await store.putGroup(
      big,
      { answerThreshold: null, replyCooldownSec: null, blockedUserIds: [], proactive: null },
      300,
    );
    assert.deepEqual(
      [cleared.answerThreshold, cleared.replyCooldownSec, cleared.blockedUserIds, cleared.proactive],
      [null, null, [], null],
    );
    assert.equal((await store.getGroup(big))?.proactive, null, 'back to the global default');
    assert.deepEqual((await store.getGroup(big))?.answerThreshold, null);
    assert.deepEqual(
      (await store.listGroups()).map((config) => [config.groupId, config.banned]),
      [
        [7, true],
        [big, false],
      ],
    );
    assert.deepEqual(
      (await store.listGroups(1)).map((config) => config.groupId),
      [7],
    );
  });

  it('learning from history: the auto-seed switch and the seeded mark are kept (migration 0013_t_history)', async (t) => {
    const store = new ChatControlsStore((await engine.open(t)).engine);
    assert.equal((await store.putGroup(31, { reply: false }, 100)).historySeed, false);
    await store.putGroup(31, { historySeed: true }, 110);
    const seeded = await store.putGroup(31, { historySeededUntil: 1_800_000_123 }, 120);
    assert.deepEqual(
      { historySeed: seeded.historySeed, until: seeded.historySeededUntil, reply: seeded.reply },
      { historySeed: true, until: 1_800_000_123, reply: false },
    );
    assert.deepEqual(await store.getGroup(31), seeded);
  });

  it('concurrent partial saves of one group keep every field', async (t) => {
    const store = new ChatControlsStore((await engine.open(t)).engine);
    await Promise.all([
      store.putGroup(9, { learn: false }, 1),
      store.putGroup(9, { reply: false }, 1),
      store.putGroup(9, { silenceUntil: 50 }, 1),
    ]);
    const config = await store.getGroup(9);
    assert.deepEqual([config?.learn, config?.reply, config?.silenceUntil], [false, false, 50]);
  });

  it('a user config is created, merged and listed by user', async (t) => {
    const store = new ChatControlsStore((await engine.open(t)).engine);
    assert.deepEqual(await store.putUser(3_000_000_000, { bot: true }, 10), {
      ...defaultUserConfig(3_000_000_000),
      bot: true,
      updatedAt: 10,
    });
    await store.putUser(11, { banned: true }, 20);
    assert.deepEqual(await store.putUser(3_000_000_000, { banned: true }, 30), {
      userId: 3_000_000_000,
      banned: true,
      bot: true,
      updatedAt: 30,
    });
    assert.deepEqual(
      (await store.listUsers()).map((config) => [config.userId, config.banned, config.bot]),
      [
        [11, true, false],
        [3_000_000_000, true, true],
      ],
    );
  });
});
