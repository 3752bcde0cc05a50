/**
 * Suspected bots end to end: a scripted conversation over a real WebSocket where one member
 * answers the others' commands at once with multi-line or card output; the console proposes that
 * member and nobody else; confirming it (user-configs `bot`) stops its lines being learned, and it
 * is no longer proposed.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { FAST_REPLIES, save, startControlsService } from '../support/controls-service.ts';

const BOT = 67001;
const GROUP = 7401;
const COMMAND_BOT = 8899;

it(
  'the command bot is proposed, nobody else; confirmed, it is no longer learned from',
  { timeout: 60_000 },
  async (t) => {
    const s = await startControlsService(t, FAST_REPLIES);
    const peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${s.port}/onebot/v11/ws`, selfId: BOT });
    t.after(() => peer.close().catch(() => undefined));
    let second = Math.floor(Date.now() / 1000) - 1000;
    const say = (userId: number, text: string, gap = 1) =>
      s.decided(peer.groupMessage({ groupId: GROUP, userId, text, time: (second += gap) }));
    const card = (userId: number) =>
      s.decided(
        peer.groupMessage({
          groupId: GROUP,
          userId,
          message: '[CQ:json,data={"app":"com.tencent.miniapp"}]',
          time: ++second,
        }),
      );

    await say(101, '大家早上好');
    await say(102, '早呀\n今天也要加油');
    await say(103, '/签到');
    await say(104, '我也签个到');
    await say(101, '#天气 上海');
    await say(102, '我查了一下\n明天有雨', 12); // a person, answering long after
    await say(103, '.jrrp');
    await say(COMMAND_BOT, '今日人品：87\n运势：大吉');
    await say(104, '!help');
    await card(COMMAND_BOT);
    await say(101, '/roll 100');
    await say(COMMAND_BOT, '掷骰结果：42\n（1-100）');
    await say(102, '哈哈哈');

    const proposed = await s.api('GET', '/suspected-bots');
    assert.equal(proposed.status, 200, proposed.detail);
    assert.deepEqual(
      proposed.data.map((p: { user_id: number; evidence: number; group_ids: number[] }) => [
        p.user_id,
        p.evidence,
        p.group_ids,
      ]),
      [[COMMAND_BOT, 3, [GROUP]]],
    );

    // Before: its output is offered to learning; confirmed as a bot, not any more.
    await say(103, '/jrrp');
    assert.notEqual((await say(COMMAND_BOT, '今日人品：12\n运势：小凶')).learn, 'not-offered');
    await save(s, `/user-configs/${COMMAND_BOT}`, { bot: true });
    await say(103, '/jrrp');
    const after = await say(COMMAND_BOT, '今日人品：55\n运势：平');
    assert.deepEqual([after.reason, after.learn], ['bot-user', 'not-offered']);
    assert.deepEqual((await s.api('GET', '/suspected-bots')).data, [], 'decided: no longer proposed');
  },
);
