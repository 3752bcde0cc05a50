/**
 * The activity log (src/store/activity-log.ts, docs/rules.md#activity-log) on both engines:
 * entries from every kind of actor, filtered by kind, group, actor and time and paged; a chat
 * ban naming its answer; lifting a ban (its rows and its blacklist strikes) in one group or
 * everywhere, and undoing that; the bounds trimmed in short steps.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { silentLog } from '../../src/common/log.ts';
import { ActivityLog, TRIM_STEP } from '../../src/store/activity-log.ts';
import { ModerationError, ModerationStore } from '../../src/store/moderation-store.ts';
import { forEachEngine } from '../support/engines.ts';

const console1 = { kind: 'console' as const, level: 'write', address: '10.0.0.7' };
const member = { kind: 'chat' as const, userId: 20002, name: '小明' };

forEachEngine((engine) => {
  it('records entries of every actor and filters them by kind, group, actor and time, paged', async (t) => {
    const store = await engine.open(t);
    const log = new ActivityLog(store.engine, { nowSec: () => 9000, log: silentLog });
    await log.write({ kind: 'silence', actor: member, groupId: 101, time: 1000, params: { seconds: 600 } });
    await log.write({ kind: 'group_config', actor: console1, groupId: 102, time: 2000, params: { reply: false } });
    await log.write({ kind: 'settings_save', actor: console1, groupId: null, time: 3000, params: { section: 'x' } });
    await log.write({ kind: 'hub_withdraw', actor: { kind: 'hub', name: 'hub.example' }, groupId: null, time: 4000 });

    const all = await log.list({ offset: 0, limit: 10 });
    assert.deepEqual(
      all.items.map((e) => [e.kind, e.scope, e.groupId, e.time]),
      [
        ['hub_withdraw', 'everywhere', 0, 4000],
        ['settings_save', 'everywhere', 0, 3000],
        ['group_config', 'group', 102, 2000],
        ['silence', 'group', 101, 1000],
      ],
    );
    const silence = all.items[3]!;
    assert.deepEqual(silence.actor, { kind: 'chat', level: '', address: '', userId: 20002, name: '小明' });
    assert.deepEqual(silence.params, { seconds: 600 });
    assert.equal(silence.undoable, false);

    const kinds = await log.list({ kinds: ['silence', 'settings_save'], offset: 0, limit: 10 });
    assert.deepEqual(
      kinds.items.map((e) => e.kind),
      ['settings_save', 'silence'],
    );
    assert.deepEqual(
      (await log.list({ groupId: 102, offset: 0, limit: 10 })).items.map((e) => e.kind),
      ['group_config'],
    );
    assert.deepEqual(
      (await log.list({ actor: '20002', offset: 0, limit: 10 })).items.map((e) => e.kind),
      ['silence'],
    );
    assert.deepEqual(
      (await log.list({ actor: '小明', offset: 0, limit: 10 })).items.map((e) => e.kind),
      ['silence'],
    );
    assert.equal((await log.list({ actor: '10.0.0.7', offset: 0, limit: 10 })).items.length, 2);
    // LIKE wildcards in the filter are text, not patterns.
    assert.equal((await log.list({ actor: '%', offset: 0, limit: 10 })).items.length, 0);
    const window = await log.list({ since: 2000, until: 3000, offset: 0, limit: 10 });
    assert.deepEqual(
      window.items.map((e) => e.time),
      [3000, 2000],
    );

    const first = await log.list({ offset: 0, limit: 3 });
    const second = await log.list({ offset: 3, limit: 3 });
    assert.deepEqual([first.items.length, first.hasMore, second.items.length, second.hasMore], [3, true, 1, false]);
  });

  it('a chat ban names its answer; unban lifts it in one group, then everywhere; undo puts it back', async (t) => {
    const store = await engine.open(t);
    const log = new ActivityLog(store.engine, { nowSec: () => 9000, log: silentLog });
    const moderation = new ModerationStore(store.engine);
    for (const group of [101, 102]) {
      await store.corpus.learnAnswer({
        keywords: '早上 好',
        groupId: group,
        answerKeywords: '早',
        answerTime: 1000,
        message: '早啊',
        appendOnExisting: true,
      });
    }
    for (const groupId of [101, 102]) {
      await store.corpus.appendBan('早上 好', { keywords: '早', groupId, reason: '20002', time: 1100 });
    }
    await store.blacklists.put({ groupId: 101, answers: ['早'], answersReserve: ['晚'] });
    await store.blacklists.put({ groupId: 102, answers: [], answersReserve: ['早'] });

    const id = await log.record({
      kind: 'chat_ban',
      actor: member,
      groupId: 102,
      time: 1100,
      contextKeywords: '早上 好',
      answerKeywords: '早',
      params: { via: 'quoted', strike: 'reserve' },
    });
    const ban = (await log.list({ kinds: ['chat_ban'], offset: 0, limit: 1 })).items[0]!;
    assert.equal(ban.id, id);
    assert.ok(ban.contextId > 0 && ban.answerId > 0);
    const answers = await store.corpus.findByKeywords('早上 好');
    assert.ok(answers);

    const here = await moderation.unban(ban.answerId, 101, console1, 2000);
    assert.deepEqual([here.entry.kind, here.entry.scope, here.entry.groupId], ['unban', 'group', 101]);
    assert.deepEqual(here.entry.params, { bans: 1, lists: 1 });
    assert.deepEqual(here.listGroups, [101]);
    assert.deepEqual(
      (await store.corpus.findByKeywords('早上 好'))?.bans.map((b) => b.groupId),
      [102],
    );
    assert.deepEqual(await store.blacklists.get(101), { groupId: 101, answers: [], answersReserve: ['晚'] });
    await assert.rejects(
      moderation.unban(ban.answerId, 101, console1, 2001),
      (e: unknown) =>
        e instanceof ModerationError && e.reason === 'conflict' && /not banned in group 101/.test(e.message),
    );

    const everywhere = await moderation.unban(ban.answerId, null, console1, 2002);
    assert.deepEqual([everywhere.entry.scope, everywhere.entry.params], ['everywhere', { bans: 1, lists: 1 }]);
    assert.deepEqual((await store.corpus.findByKeywords('早上 好'))?.bans, []);
    assert.deepEqual((await store.blacklists.get(102))?.answersReserve, []);

    const undone = await moderation.undo(here.entry.id, console1, 2003, 86_400);
    assert.deepEqual(undone.listGroups, [101]);
    assert.deepEqual(
      (await store.corpus.findByKeywords('早上 好'))?.bans.map((b) => [b.groupId, b.reason]),
      [[101, '20002']],
    );
    assert.deepEqual((await store.blacklists.get(101))?.answers, ['早']);
    const undo = (await log.list({ kinds: ['undo'], offset: 0, limit: 1 })).items[0]!;
    assert.deepEqual(undo.params, { entry_id: here.entry.id, entry_kind: 'unban' });
    await assert.rejects(
      moderation.unban(999_999, null, console1, 2004),
      (e: unknown) => e instanceof ModerationError && e.reason === 'not_found',
    );
    // An entry without a snapshot has no undo.
    await assert.rejects(moderation.undo(ban.id, console1, 2005, 86_400), /has no undo/);
  });

  it('keeps the newest maxRows and nothing older than maxAgeSec, a short step at a time', async (t) => {
    const store = await engine.open(t);
    let now = 10_000;
    const log = new ActivityLog(store.engine, { nowSec: () => now, log: silentLog, maxRows: 5, maxAgeSec: 1000 });
    for (let i = 0; i < 12; i++) {
      await log.write({ kind: 'resume', actor: member, groupId: 101, time: 9_500 + i });
    }
    assert.equal(await log.trimStep(), 7);
    const kept = await log.list({ offset: 0, limit: 20 });
    assert.deepEqual(
      kept.items.map((e) => e.time),
      [9511, 9510, 9509, 9508, 9507],
    );
    now = 10_509; // the age bound now reaches 9507 and 9508 (older than 10509 - 1000)
    assert.equal(await log.trimStep(), 2);
    assert.equal((await log.list({ offset: 0, limit: 20 })).items.length, 3);
    assert.ok(TRIM_STEP >= 100 && TRIM_STEP <= 1000);
  });
});
