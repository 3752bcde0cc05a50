/**
 * The hub's repository directly on both engines: what HTTP cannot reach (housekeeping) and the
 * migrations sharing a database with the bot's store without touching its tables or history.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { openHubStore } from '../../src/hub/open-hub-store.ts';
import { forEachEngine } from '../support/engines.ts';
import { openHub } from './hub-support.ts';

forEachEngine((engine) => {
  it('housekeeping deletes hot snapshots past retention only', async (t) => {
    const { location, rows } = await openHub(t, engine);
    const store = await openHubStore({ ...location, poolMax: 2 });
    t.after(() => store.close());
    const now = 1_700_000_000;
    const items = [{ keywords: 'k', hash: 'h', score: 1 }];
    await store.uploadHot({ deploymentId: 'old', now, asOf: now - 40 * 86_400, items, minIntervalSec: 0 });
    await store.uploadHot({ deploymentId: 'new', now, asOf: now - 86_400, items, minIntervalSec: 0 });
    await store.housekeeping(now - 31 * 86_400);
    assert.deepEqual(
      (await rows('hub_hot_snapshot')).map((row) => row.deployment_id),
      ['new'],
    );
  });

  it('hub migrations live beside the bot store: separate tables and migration history, reopen is a no-op', async (t) => {
    const { location, store: bot } = await openHub(t, engine);
    // The bot store on the same location still works, and the hub reopens without migrating again.
    await bot.corpus.learnAnswer({
      keywords: 'k',
      groupId: 1,
      answerKeywords: 'a',
      answerTime: 1,
      message: 'm',
      appendOnExisting: true,
    });
    assert.ok(await bot.corpus.findByKeywords('k'));
    const again = await openHubStore({ ...location, poolMax: 2 });
    if (engine.kind === 'postgres') {
      // The hub's connections acknowledge commits before the WAL flush (open-hub-store.ts).
      const hub = await sql<{ synchronous_commit: string }>`SHOW synchronous_commit`.execute(again.engine.db);
      assert.equal(hub.rows[0]?.synchronous_commit, 'off');
    }
    await again.close();
    const reopened = await bot.reopen();
    assert.ok(await reopened.corpus.findByKeywords('k'));
  });
});
