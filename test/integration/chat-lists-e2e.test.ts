/**
 * An account's groups and friends through the console, end to end: the scripted OneBot account
 * answers get_group_list / get_friend_list over a real WebSocket; the console answers from a
 * 30-second cache; `group-configs?self_id` gives each of the account's groups with its config; an
 * account that is not connected is a 404.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { FAST_REPLIES, save, startControlsService } from '../support/controls-service.ts';

const BOT = 65001;

it(
  'group and friend lists of a connected account, its group configs, and 404 offline',
  { timeout: 60_000 },
  async (t) => {
    const s = await startControlsService(t, FAST_REPLIES);
    const peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${s.port}/onebot/v11/ws`, selfId: BOT });
    t.after(() => peer.close().catch(() => undefined));
    peer.groups = [
      { group_id: 9201, group_name: '读书会', member_count: 42 },
      { group_id: 9202, group_name: '羽毛球', member_count: 12 },
      { group_id: 9203, group_name: '同学群', member_count: 300 },
    ];
    peer.friends = [{ user_id: 7001, nickname: '小明', remark: '同事' }];

    const groups = await s.api('GET', `/group-list?self_id=${BOT}&limit=2`);
    assert.equal(groups.status, 200, groups.detail);
    assert.deepEqual(groups.data, {
      self_id: BOT,
      groups: [
        { group_id: 9201, group_name: '读书会', member_count: 42 },
        { group_id: 9202, group_name: '羽毛球', member_count: 12 },
      ],
      truncated: true,
      limit: 2,
    });
    const friends = await s.api('GET', `/friend-list?self_id=${BOT}`);
    assert.deepEqual(friends.data.friends, [{ user_id: 7001, nickname: '小明', remark: '同事' }]);
    assert.equal(friends.data.truncated, false);

    // Cached: a second read sends no new action.
    const before = peer.actions.filter((a) => a.action === 'get_group_list').length;
    await s.api('GET', `/group-list?self_id=${BOT}`);
    assert.equal(peer.actions.filter((a) => a.action === 'get_group_list').length, before);

    await save(s, '/group-configs/9202', { reply: false });
    const configs = await s.api('GET', `/group-configs?self_id=${BOT}`);
    assert.deepEqual(
      configs.data.map((c: { group_id: number; reply: boolean; updated_at: number }) => [
        c.group_id,
        c.reply,
        c.updated_at > 0,
      ]),
      [
        [9201, true, false],
        [9202, false, true],
        [9203, true, false],
      ],
    );

    for (const path of [
      `/group-list?self_id=${BOT + 1}`,
      `/friend-list?self_id=${BOT + 1}`,
      `/group-configs?self_id=${BOT + 1}`,
    ]) {
      const offline = await s.api('GET', path);
      assert.equal(offline.status, 404, path);
      assert.match(offline.detail ?? '', /not connected/);
    }
    assert.equal((await s.api('GET', '/group-list')).status, 400, 'self_id is required');
  },
);

it(
  "instances: each account's connection, nickname, groups, today's activity and bot-config; disconnect",
  { timeout: 60_000 },
  async (t) => {
    const s = await startControlsService(t, FAST_REPLIES);
    const peer = await OneBotPeer.connect({
      url: `ws://127.0.0.1:${s.port}/onebot/v11/ws`,
      selfId: BOT,
      nickname: '合唱小助手',
    });
    t.after(() => peer.close().catch(() => undefined));
    peer.groups = [{ group_id: 9201, group_name: '读书会', member_count: 42 }];
    await save(s, `/bot-configs/${BOT + 7}`, { security: true }); // configured, never connected
    await s.teach('周末去哪里玩呀', '去爬山吧', 9201);
    let second = Math.floor(Date.now() / 1000) - 1000;
    await s.decided(peer.groupMessage({ groupId: 9201, userId: 5, text: '今天天气不错', time: ++second }));
    const replied = await s.decided(
      peer.groupMessage({ groupId: 9201, userId: 6, text: '周末去哪里玩呀', time: ++second }),
    );
    assert.equal(replied.outcome, 'replied');

    const instances = await s.api('GET', '/instances');
    assert.equal(instances.status, 200, instances.detail);
    const [live, offline] = instances.data;
    assert.deepEqual(
      [live.self_id, live.connected, live.nickname, live.groups, live.today, live.bot_config.updated_at],
      [BOT, true, '合唱小助手', 1, { messages: 2, replies: 1 }, 0],
    );
    assert.deepEqual(
      [offline.self_id, offline.connected, offline.nickname, offline.groups, offline.bot_config.security],
      [BOT + 7, false, null, null, true],
    );

    const activity = await s.api('GET', `/group-activity?self_id=${BOT}`);
    assert.deepEqual(activity.data, {
      self_id: BOT,
      groups: [{ group_id: 9201, messages: 2, replies: 1, proactive: 0 }],
    });

    const closed = await s.api('POST', `/bots/${BOT}/disconnect-ws`);
    assert.deepEqual([closed.status, closed.data], [200, { closed: 1 }]);
    assert.equal((await peer.closed).code, 4002);
    assert.equal((await s.api('POST', `/bots/${BOT}/disconnect-ws`)).status, 404, 'nothing left to close');
  },
);
