/** BotConfigStore (migration 0003_bot_config) on both engines: one contract. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { BotConfigStore, defaultBotConfig } from '../../src/store/bot-config-store.ts';
import { forEachEngine } from '../support/engines.ts';

forEachEngine((engine) => {
  it('get of an unknown account is null; list is empty', async (t) => {
    const store = new BotConfigStore((await engine.open(t)).engine);
    assert.equal(await store.get(10001), null);
    assert.deepEqual(await store.list(), []);
  });

  it('put creates from the defaults, merges later patches field by field, and lists by account', async (t) => {
    const store = new BotConfigStore((await engine.open(t)).engine);
    const created = await store.put(
      2_000_000_001,
      { admins: [12345, 4_000_000_000], nicknames: ['合唱', 'Chorus'] },
      100,
    );
    assert.deepEqual(created, {
      ...defaultBotConfig(2_000_000_001),
      admins: [12345, 4_000_000_000],
      nicknames: ['合唱', 'Chorus'],
      updatedAt: 100,
    });
    await store.put(10001, { security: true }, 150);
    const merged = await store.put(2_000_000_001, { autoAcceptFriend: true, disabledPlugins: ['repeater'] }, 200);
    assert.deepEqual(merged, {
      account: 2_000_000_001,
      admins: [12345, 4_000_000_000],
      disabledPlugins: ['repeater'],
      autoAcceptFriend: true,
      autoAcceptGroup: false,
      security: false,
      nicknames: ['合唱', 'Chorus'],
      updatedAt: 200,
    });
    assert.deepEqual(await store.get(2_000_000_001), merged);
    assert.deepEqual(
      (await store.list()).map((config) => [config.account, config.security]),
      [
        [10001, true],
        [2_000_000_001, false],
      ],
    );
    // Lists can be emptied; NUL characters never reach the database.
    const cleared = await store.put(2_000_000_001, { admins: [], nicknames: ['a\u0000b'] }, 300);
    assert.deepEqual([cleared.admins, cleared.nicknames], [[], ['ab']]);
    assert.deepEqual((await store.get(2_000_000_001))?.nicknames, ['ab']);
  });

  it('concurrent partial saves of one account keep both fields', async (t) => {
    const store = new BotConfigStore((await engine.open(t)).engine);
    await Promise.all([
      store.put(7, { security: true }, 1),
      store.put(7, { autoAcceptGroup: true }, 1),
      store.put(7, { nicknames: ['x'] }, 1),
    ]);
    const config = await store.get(7);
    assert.deepEqual([config?.security, config?.autoAcceptGroup, config?.nicknames], [true, true, ['x']]);
  });

  it('a second store on the same database sees the rows (the table is migrated once)', async (t) => {
    const first = await engine.open(t);
    await new BotConfigStore(first.engine).put(42, { security: true }, 5);
    const again = await first.reopen();
    assert.equal((await new BotConfigStore(again.engine).get(42))?.security, true);
  });
});
