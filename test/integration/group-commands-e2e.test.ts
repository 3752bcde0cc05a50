/**
 * The group commands in chat, end to end (docs/guide/groups.md): a scripted
 * OneBot account over a real WebSocket, the console over real HTTP. A plain member is ignored; a
 * group admin silences the bot for the time asked (stored as the group's `silence_until`, so the
 * console shows it); a configured bot admin lifts it; the group owner and a bot admin (by @) switch
 * learning off and on. The bot confirms each obeyed command briefly.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { LEARN_ACK, RESUME_ACK, silenceAck, STOP_LEARNING_ACK } from '../../src/repeater/silence-command.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { FAST_REPLIES, save, sleep, startControlsService } from '../support/controls-service.ts';

const BOT = 63001;
const GROUP = 7301;
const BOT_ADMIN = 8801;

it(
  'group commands by a group admin, a configured bot admin and the owner; a member is ignored',
  { timeout: 90_000 },
  async (t) => {
    const s = await startControlsService(t, FAST_REPLIES);
    const peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${s.port}/onebot/v11/ws`, selfId: BOT });
    t.after(() => peer.close().catch(() => undefined));
    await save(s, `/bot-configs/${BOT}`, { nicknames: ['小合'], admins: [BOT_ADMIN] });
    const pairs: [string, string][] = [
      ['周末去哪里玩呀', '去爬山吧'],
      ['晚上看什么电影', '看科幻片'],
      ['中午吃什么好呢', '楼下的面馆'],
    ];
    for (const [phrase, answer] of pairs) await s.teach(phrase, answer, GROUP);
    let second = Math.floor(Date.now() / 1000) - 10_000;
    const say = (text: string, userId: number, role?: 'owner' | 'admin' | 'member') =>
      s.decided(peer.groupMessage({ groupId: GROUP, userId, text, time: ++second, ...(role ? { role } : {}) }));
    const sentTexts = () => peer.actions.filter((a) => a.action === 'send_group_msg').map((a) => a.params.message);
    /** The stored group config once `check` holds (the command's save is not awaited by the chat). */
    const stored = async (check: (config: { silence_until: number; learn: boolean }) => boolean) => {
      const deadline = Date.now() + 5_000;
      for (;;) {
        const config = (await s.api('GET', `/group-configs/${GROUP}`)).data;
        if (check(config)) return config;
        if (Date.now() > deadline) throw new Error(`stored config never matched: ${JSON.stringify(config)}`);
        await sleep(20);
      }
    };

    // A plain member: ignored, no answer, nothing stored.
    const sentBefore = sentTexts().length;
    assert.equal((await say('小合 闭嘴 10分钟', 101, 'member')).reason, 'silence-refused');
    assert.equal((await say('小合别学了', 101, 'member')).reason, 'learn-refused');
    await sleep(300);
    assert.equal(sentTexts().length, sentBefore, 'a member gets no answer');
    assert.equal((await s.api('GET', `/group-configs/${GROUP}`)).data.updated_at, 0, 'nothing stored');

    // A group admin silences for 10 minutes: confirmed, stored, and the bot stays quiet.
    const asked = Math.floor(Date.now() / 1000);
    assert.equal((await say('小合 闭嘴 10分钟', 102, 'admin')).reason, 'silence-command');
    await peer.waitForAction((a) => a.action === 'send_group_msg' && a.params.message === silenceAck(600));
    const silenced = await stored((c) => c.silence_until > 0);
    assert.ok(Math.abs(silenced.silence_until - (asked + 600)) <= 2, `silence_until ${silenced.silence_until}`);
    assert.equal((await say(pairs[0]![0], 103)).reason, 'silenced');

    // More than 24 hours is cut to 24 hours.
    const longAsk = Math.floor(Date.now() / 1000);
    assert.equal((await say('小合闭嘴 30小时', 102, 'admin')).reason, 'silence-command');
    await peer.waitForAction((a) => a.action === 'send_group_msg' && a.params.message === silenceAck(86_400));
    const capped = await stored((c) => c.silence_until > asked + 600 + 5);
    assert.ok(Math.abs(capped.silence_until - (longAsk + 86_400)) <= 2, `capped at 24 h: ${capped.silence_until}`);

    // The configured bot admin (a plain member of the group) lifts it.
    assert.equal((await say('小合 说话', BOT_ADMIN, 'member')).reason, 'silence-command');
    await peer.waitForAction((a) => a.action === 'send_group_msg' && a.params.message === RESUME_ACK);
    await stored((c) => c.silence_until === 0);
    assert.equal((await say(pairs[1]![0], 104)).outcome, 'replied');

    // The owner switches learning off; the bot admin, by @, switches it on again.
    assert.equal((await say('小合 别学了', 105, 'owner')).reason, 'learn-command');
    await peer.waitForAction((a) => a.action === 'send_group_msg' && a.params.message === STOP_LEARNING_ACK);
    await stored((c) => c.learn === false);
    await say('今天的风好大呀', 106);
    assert.equal((await say('出门要多穿点', 107)).learn, 'not-offered');
    const mention = peer.groupMessage({
      groupId: GROUP,
      userId: BOT_ADMIN,
      message: `[CQ:at,qq=${BOT}] 学习`,
      time: ++second,
    });
    assert.equal((await s.decided(mention)).reason, 'learn-command');
    await peer.waitForAction((a) => a.action === 'send_group_msg' && a.params.message === LEARN_ACK);
    await stored((c) => c.learn === true);
    await say('晚上下雨了吗', 108);
    assert.equal((await say('好像下了一点', 109)).learn, 'queued');

    // Every command obeyed is in the activity log with who gave it; the refused ones are not.
    const deadline = Date.now() + 5_000;
    let log: { kind: string; actor: { kind: string; user_id: number }; group_id: number }[] = [];
    while (log.length < 5 && Date.now() < deadline) {
      log = (await s.api('GET', `/activity?group_id=${GROUP}`)).data.items;
      if (log.length < 5) await sleep(20);
    }
    assert.deepEqual(
      log.map((e) => [e.kind, e.actor.kind, e.actor.user_id, e.group_id]),
      [
        ['learn_on', 'chat', BOT_ADMIN, GROUP],
        ['learn_off', 'chat', 105, GROUP],
        ['resume', 'chat', BOT_ADMIN, GROUP],
        ['silence', 'chat', 102, GROUP],
        ['silence', 'chat', 102, GROUP],
      ],
    );
  },
);
