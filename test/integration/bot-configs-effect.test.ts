/**
 * Bot configs saved in the console take effect at once, end to end: a running service, the console
 * over real HTTP and a scripted OneBot account over a real WebSocket. Each field is switched on and
 * shown to change what the bot does, and switched off again where that matters:
 * auto_accept_friend / auto_accept_group (request events get the approve action), nicknames
 * (a message starting with one is addressed to the bot), disabled_plugins ["repeater"] (neither
 * learned nor answered), admins (treated as group admins: they may silence the bot), security (an
 * answer whose send failed is banned in that group).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { it } from 'node:test';
import { startService } from '../../src/app/service.ts';
import { describeText, jiebaTagger, KeywordExtractor } from '../../src/repeater/keywords.ts';
import type { RepeaterDecision } from '../../src/repeater/index.ts';
import { RESUME_ACK, silenceAck } from '../../src/repeater/silence-command.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { freePort } from '../support/chorus-process.ts';

const BOT = 60001;
const GROUP = 6101;
const WRITE = 'bot-configs-write-token';
const KEYWORDS = new KeywordExtractor({ tagger: jiebaTagger() });
const keywordsOf = (text: string): string => describeText(text, text, KEYWORDS).keywords;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('every saved bot-config field changes what the bot does, at once', { timeout: 90_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-bot-configs-'));
  const port = await freePort();
  const decisions: RepeaterDecision[] = [];
  const service = await startService({
    projectDir: dir,
    env: {
      CHORUS_PORT: String(port),
      CHORUS_CONSOLE_TOKEN: 'bot-configs-read-token',
      CHORUS_CONSOLE_WRITE_TOKEN: WRITE,
      CHORUS_REPEATER_COOLDOWN_SEC: '0',
      CHORUS_REPEATER_REPLY_DELAY_SEC: '0-0',
      CHORUS_REPEATER_SPLIT_PROBABILITY: '0',
      CHORUS_REPEATER_ANSWER_THRESHOLD: '3',
      CHORUS_REPEATER_ANSWER_THRESHOLD_WEIGHTS: '0,0,1',
      CHORUS_REPEATER_BUNDLE_CACHE_SEC: '0',
      CHORUS_REPEATER_BUNDLE_NEGATIVE_CACHE_SEC: '0',
    },
    logDestination: new Writable({ write: (_chunk, _encoding, done) => done() }),
    onDecision: (decision) => decisions.push(decision),
  });
  const peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${port}/onebot/v11/ws`, selfId: BOT });
  t.after(async () => {
    await peer.close().catch(() => undefined);
    await service.stop();
    await rm(dir, { recursive: true, force: true });
  });
  const save = async (body: Record<string, unknown>) => {
    const response = await fetch(`http://127.0.0.1:${port}/chorus/api/bot-configs/${BOT}`, {
      method: 'PUT',
      headers: { 'x-chorus-token': WRITE, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(response.status, 200, JSON.stringify(body));
  };
  let second = Math.floor(Date.now() / 1000) - 10_000;
  const say = (text: string, userId = 71) => peer.groupMessage({ groupId: GROUP, userId, text, time: ++second });
  const decided = async (messageId: number) => {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const found = decisions.find((d) => d.messageId === messageId);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no decision on ${messageId}`);
      await sleep(10);
    }
  };

  // Requests: ignored by default, approved once the account says so.
  peer.request({ kind: 'friend', userId: 81 });
  await sleep(300);
  assert.equal(peer.actions.filter((a) => a.action === 'set_friend_add_request').length, 0, 'not by default');
  await save({ auto_accept_friend: true, auto_accept_group: true });
  const friend = peer.request({ kind: 'friend', userId: 82 });
  const approvedFriend = await peer.waitForAction((a) => a.action === 'set_friend_add_request');
  assert.deepEqual(approvedFriend.params, { flag: friend, approve: true });
  const invite = peer.request({ kind: 'group', userId: 83, groupId: 6200, subType: 'invite' });
  const approvedGroup = await peer.waitForAction((a) => a.action === 'set_group_add_request');
  assert.equal(approvedGroup.params.flag, invite);
  assert.equal(approvedGroup.params.approve, true);

  // Nicknames: a message starting with one is addressed to the bot.
  assert.notEqual((await decided(say('小合 今天吃什么'))).reason, 'addressed');
  await save({ nicknames: ['小合'] });
  assert.equal((await decided(say('小合 明天吃什么'))).reason, 'addressed');

  // disabled_plugins: the account neither learns nor answers; switched back, it does both again.
  await save({ disabled_plugins: ['repeater'] });
  const off = await decided(say('今天天气真不错'));
  assert.deepEqual([off.reason, off.learn], ['disabled', 'not-offered']);
  await save({ disabled_plugins: [] });
  assert.notEqual((await decided(say('今天天气还可以'))).reason, 'disabled');

  // Security: an answer whose send fails is banned in that group.
  const phrase = '周末去哪里玩呀';
  const answer = '去爬山吧';
  for (let i = 0; i < 3; i++) {
    await service.store.corpus.learnAnswer({
      keywords: keywordsOf(phrase),
      groupId: GROUP,
      answerKeywords: keywordsOf(answer),
      answerTime: second,
      message: answer,
      appendOnExisting: true,
    });
  }
  // Silence: group owners and admins, and the account's bot admins (treated as group admins).
  const other = '晚上看什么电影';
  const otherAnswer = '看科幻片';
  for (let i = 0; i < 3; i++) {
    await service.store.corpus.learnAnswer({
      keywords: keywordsOf(other),
      groupId: GROUP,
      answerKeywords: keywordsOf(otherAnswer),
      answerTime: second,
      message: otherAnswer,
      appendOnExisting: true,
    });
  }
  assert.equal((await decided(say('小合 闭嘴', 73))).reason, 'silence-refused', 'a member may not');
  await save({ admins: [73] });
  assert.equal((await decided(say('小合 闭嘴', 73))).reason, 'silence-command', 'a bot admin may');
  await peer.waitForAction((a) => a.action === 'send_group_msg' && a.params.message === silenceAck(30 * 60));
  assert.equal((await decided(say(other, 74))).reason, 'silenced', 'silenced: not answered');
  const owner = peer.groupMessage({ groupId: GROUP, userId: 75, text: '小合 说话', time: ++second, role: 'owner' });
  assert.equal((await decided(owner)).reason, 'silence-command', 'a group owner may');
  await peer.waitForAction((a) => a.action === 'send_group_msg' && a.params.message === RESUME_ACK);
  const back = await decided(say(other, 76));
  assert.equal(back.outcome, 'replied', `answers again: ${back.reason}`);
  await save({ admins: [] });

  await save({ security: true });
  peer.failAction('send_group_msg', { times: 1 });
  const tried = await decided(say(phrase, 72));
  assert.equal(tried.outcome, 'replied', `decided ${tried.reason}`);
  const deadline = Date.now() + 5_000;
  let bans: { keywords: string; groupId: number }[] = [];
  while (Date.now() < deadline && bans.length === 0) {
    bans = (await service.store.corpus.findByKeywords(keywordsOf(phrase)))?.bans ?? [];
    await sleep(20);
  }
  assert.deepEqual(
    bans.map((ban) => [ban.keywords, ban.groupId]),
    [[keywordsOf(answer), GROUP]],
    'the answer that could not be sent is banned in that group',
  );
});
