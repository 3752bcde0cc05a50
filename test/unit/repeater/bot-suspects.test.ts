/** Suspected-bot detection on a scripted conversation: the command bot is proposed, nobody else. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { BotSuspects, EVIDENCE_NEEDED } from '../../../src/repeater/bot-suspects.ts';
import { groupMessage } from './support.ts';

const HUMANS = [11, 12, 13, 14];
const COMMAND_BOT = 99;
const OURS = 10_001;

it('proposes the member that answers commands at once with multi-line or card output, and no one else', () => {
  const suspects = new BotSuspects();
  const known = (userId: number) => userId === OURS;
  let time = 1_700_000_000;
  const say = (userId: number, text: string, raw = text, gap = 1) => {
    time += gap;
    suspects.observe(groupMessage({ groupId: 500, userId, time, plain: text, raw }), known);
  };
  // Ordinary chat, including multi-line messages and a slow answer to a command.
  say(11, '今天吃什么');
  say(12, '火锅吧\n或者烧烤');
  say(13, '/签到'); // a command nobody's bot answers
  say(14, '哈哈哈', '哈哈哈', 1);
  say(11, '#天气 北京');
  say(12, '我看看\n好像是晴天', '我看看\n好像是晴天', 10); // a human, too late to be a bot
  // Our own account answering a command does not count either.
  say(13, '/help');
  say(OURS, '我不是\n那个机器人');
  // The command bot: answers commands at once, multi-line or with a card.
  for (let round = 0; round < EVIDENCE_NEEDED; round++) {
    say(HUMANS[round % HUMANS.length] as number, round % 2 ? '!运势' : '.jrrp');
    if (round === 1) say(COMMAND_BOT, '', '[CQ:json,data={"app":"card"}]');
    else say(COMMAND_BOT, `今日运势：大吉\n宜：写代码\n忌：改需求 ${round}`);
    say(HUMANS[(round + 1) % HUMANS.length] as number, '好耶');
  }
  const proposed = suspects.proposed();
  assert.deepEqual(
    proposed.map((s) => [s.userId, s.evidence, s.groupIds]),
    [[COMMAND_BOT, EVIDENCE_NEEDED, [500]]],
  );
  assert.match(proposed[0]?.sample ?? '', /今日运势/);
});

it('two pieces of evidence are not enough', () => {
  const suspects = new BotSuspects();
  let time = 1_700_000_000;
  for (let round = 0; round < EVIDENCE_NEEDED - 1; round++) {
    suspects.observe(groupMessage({ groupId: 7, userId: 1, time: ++time, plain: '/roll' }), () => false);
    suspects.observe(groupMessage({ groupId: 7, userId: 2, time: ++time, plain: '结果\n42' }), () => false);
  }
  assert.deepEqual(suspects.proposed(), []);
});
