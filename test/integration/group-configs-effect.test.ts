/**
 * Group and user controls saved in the console take effect at the next message, end to end: a
 * running service (SQLite, and PostgreSQL on a fresh schema), the console over real HTTP and a
 * scripted OneBot account over a real WebSocket. Each field is switched and shown to change what
 * the bot does in that group only; silence_until ends on its own in real seconds; bad input is
 * refused naming the field, with nothing changed.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { requirePostgres } from '../support/engines.ts';
import { FAST_REPLIES, keywordsOf, pgSchema, save, sleep, startControlsService } from '../support/controls-service.ts';

const BOT = 61001;
const A = 7101;
const B = 7102;
const C = 7103;

/** Phrases and their answers, each used where the bot must not have given that answer just before. */
const PAIRS: [string, string][] = [
  ['周末去哪里玩呀', '去爬山吧'],
  ['晚上看什么电影', '看科幻片'],
  ['中午吃什么好呢', '楼下的面馆'],
  ['明天会下雨吗', '记得带伞'],
  ['最近在看什么书', '在看三体'],
  ['假期打算回家吗', '买好车票了'],
  ['今天加班到几点', '九点才下班'],
  ['这个游戏好玩吗', '还挺上头的'],
];

for (const kind of ['sqlite', 'postgres'] as const) {
  it(
    `every group and user field changes what the bot does, in that group, at once (${kind})`,
    { timeout: 120_000 },
    async (t) => {
      if (kind === 'postgres' && !requirePostgres(t)) return;
      const schema = kind === 'postgres' ? await pgSchema() : null;
      const s = await startControlsService(t, FAST_REPLIES, schema?.url ?? '', true);
      const peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${s.port}/onebot/v11/ws`, selfId: BOT });
      t.after(async () => {
        await peer.close().catch(() => undefined);
        await s.stop();
        await schema?.drop();
      });
      // Every pair is well known in A and B; C knows none, so there it needs both (cross-group).
      for (const [phrase, answer] of PAIRS) {
        await s.teach(phrase, answer, A);
        await s.teach(phrase, answer, B);
      }
      let second = Math.floor(Date.now() / 1000) - 10_000;
      let user = 100;
      const say = async (groupId: number, text: string, userId = ++user) =>
        s.decided(peer.groupMessage({ groupId, userId, text, time: ++second }));
      const [p0, p1, p2, p3, p4, p5, p6, p7] = PAIRS.map(([phrase]) => phrase) as [
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
      ];

      // Defaults read back before anything is saved.
      const fresh = await s.api('GET', `/group-configs/${A}`);
      assert.deepEqual([fresh.status, fresh.data.reply, fresh.data.updated_at], [200, true, 0]);

      // reply: off stops answers in A at once; B still answers; back on, A answers again.
      assert.equal((await say(A, p0)).outcome, 'replied');
      await save(s, `/group-configs/${A}`, { reply: false });
      const off = await say(A, p1);
      assert.equal(off.reason, 'reply-off');
      assert.notEqual(off.learn, 'not-offered', 'learning goes on while replies are off');
      assert.equal((await say(B, p1)).outcome, 'replied');
      await save(s, `/group-configs/${A}`, { reply: true });
      assert.equal((await say(A, p2)).outcome, 'replied');

      // learn: off in B, nothing from B is offered to learning; A still learns.
      await save(s, `/group-configs/${B}`, { learn: false });
      await say(B, '猫咪今天特别乖');
      assert.equal((await say(B, '狗狗也很听话')).learn, 'not-offered');
      await say(A, '咖啡店新开张了');
      assert.equal((await say(A, '周末一起去尝尝')).learn, 'queued');
      await save(s, `/group-configs/${B}`, { learn: true });
      const deadline = Date.now() + 5_000;
      let learnedA = null;
      while (Date.now() < deadline && !learnedA) {
        learnedA = await s.service.store.corpus.findByKeywords(keywordsOf('咖啡店新开张了'));
        await sleep(20);
      }
      assert.ok(learnedA, 'A learned');
      assert.equal(await s.service.store.corpus.findByKeywords(keywordsOf('猫咪今天特别乖')), null, 'B did not');

      // share: with B's pairs kept to itself, C has one group's evidence only and stays quiet.
      const shared = await say(C, p3);
      assert.deepEqual([shared.outcome, shared.reason], ['replied', 'cross-group']);
      await save(s, `/group-configs/${B}`, { share: false });
      assert.equal((await say(C, p4)).outcome, 'skipped');
      assert.equal((await say(B, p4)).outcome, 'replied', 'B still answers from its own pairs');
      await save(s, `/group-configs/${B}`, { share: true });
      assert.equal((await say(C, p5)).reason, 'cross-group');

      // silence_until: silenced until the time passes, in real seconds.
      const until = Math.floor(Date.now() / 1000) + 2;
      await save(s, `/group-configs/${A}`, { silence_until: until });
      assert.equal((await say(A, p3)).reason, 'silenced');
      assert.equal((await say(B, p3)).outcome, 'replied', 'B is not silenced');
      while (Date.now() / 1000 < until + 0.05) await sleep(50);
      assert.equal((await say(A, p4)).outcome, 'replied', 'answers again once the time passed');

      // banned: the group is ignored entirely (not even a command is obeyed).
      await save(s, `/group-configs/${A}`, { banned: true });
      assert.equal((await say(A, p5)).reason, 'group-banned');
      await save(s, `/group-configs/${A}`, { banned: false });

      // answer_threshold: a pair seen once is below the global 3 (2 for a phrase of two or more
      // words), enough under an override of 1.
      await s.teach('下班一起吃饭吗', '好啊走起', A, 1);
      assert.equal((await say(A, '下班一起吃饭吗')).outcome, 'skipped');
      await save(s, `/group-configs/${A}`, { answer_threshold: 1 });
      await say(A, '先聊点别的');
      assert.equal((await say(A, '下班一起吃饭吗')).outcome, 'replied');
      await save(s, `/group-configs/${A}`, { answer_threshold: null });

      // blocked_user_ids, and per user: banned everywhere, another bot.
      await save(s, `/group-configs/${A}`, { blocked_user_ids: [9001] });
      const blocked = await say(A, p6, 9001);
      assert.deepEqual([blocked.reason, blocked.learn], ['blocked-user', 'not-offered']);
      assert.equal((await say(B, p6, 9001)).outcome, 'replied', 'blocked in A only');
      await save(s, '/user-configs/9002', { banned: true });
      assert.equal((await say(A, p7, 9002)).reason, 'user-banned');
      assert.equal((await say(B, p7, 9002)).reason, 'user-banned');
      await save(s, '/user-configs/9003', { bot: true });
      assert.equal((await say(C, p7, 9003)).reason, 'bot-user');

      // reply_cooldown_sec: 60 s quiet after a reply in A (the global cool-down is 0).
      await save(s, `/group-configs/${A}`, { reply_cooldown_sec: 60 });
      assert.equal((await say(A, p7)).outcome, 'replied');
      assert.equal((await say(A, p0)).reason, 'cooldown');
      assert.equal((await say(B, p0)).outcome, 'replied', 'B keeps the global cool-down');

      // Lists, and bad input: a 400 naming the field, nothing changed.
      const groups = await s.api('GET', '/group-configs?limit=10');
      assert.deepEqual(
        groups.data.map((g: { group_id: number }) => g.group_id),
        [A, B],
      );
      const users = await s.api('GET', '/user-configs');
      assert.deepEqual(
        users.data.map((u: { user_id: number; banned: boolean; bot: boolean }) => [u.user_id, u.banned, u.bot]),
        [
          [9002, true, false],
          [9003, false, true],
        ],
      );
      const before = (await s.api('GET', `/group-configs/${A}`)).data;
      for (const [body, field] of [
        [{ reply: false, colour: 'red' }, 'colour'],
        [{ answer_threshold: 0 }, 'answer_threshold'],
        [{ reply_cooldown_sec: 99_999 }, 'reply_cooldown_sec'],
        [{ blocked_user_ids: ['x'] }, 'blocked_user_ids'],
        [{ learn: 'yes' }, 'learn'],
      ] as const) {
        const refused = await s.api('PUT', `/group-configs/${A}`, body);
        assert.equal(refused.status, 400, JSON.stringify(body));
        assert.match(refused.detail ?? '', new RegExp(field), `${JSON.stringify(body)}: ${refused.detail}`);
      }
      assert.equal((await s.api('PUT', `/group-configs/${A}`, {})).status, 400);
      assert.equal((await s.api('PUT', '/user-configs/5', { admin: true })).status, 400);
      assert.deepEqual((await s.api('GET', `/group-configs/${A}`)).data, before, 'nothing changed');
    },
  );
}
