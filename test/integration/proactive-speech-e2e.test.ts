/**
 * Proactive speech end to end (docs/repeater.md#proactive-speech): `chorus serve` with a scripted
 * OneBot account over a real WebSocket, the console over real HTTP, a short quiet rule
 * (average interval × 1 + 2 s, checked every second). In a group switched on, once the group has
 * been quiet that long, the bot says a line the group itself said; a line banned with
 * 「不可以发这个」 is never said, over as many firings as it takes to use every other line up.
 * A silenced group, a reply-off group and a group where the bot is muted get nothing (their skips
 * are decisions with their causes); a group left at the default (off) gets nothing at all.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { RepeaterDecision } from '../../src/repeater/index.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { FAST_REPLIES, keywordsOf, save, sleep, startControlsService } from '../support/controls-service.ts';

const BOT = 64001;
const ON = 7401;
const DEFAULT_OFF = 7402;
const SILENCED = 7403;
const REPLY_OFF = 7404;
const MUTED = 7405;
const FLOOR_MS = 2000;

const TRIGGER = '周末大家去哪里玩';
const BANNED = '去海边吹风吧';
const OTHERS = ['楼下新开了一家面馆', '晚上一起看电影吗', '明天好像要下雨了'];
/** Lines that may never be said (a newline): they keep the chat going without adding candidates. */
const filler = (n: number) => `嗯嗯${n}\n好的${n}`;

it(
  'talks first in a quiet group, never a banned line; silenced, reply-off, muted and default groups get nothing',
  {
    timeout: 120_000,
  },
  async (t) => {
    const s = await startControlsService(t, {
      ...FAST_REPLIES,
      CHORUS_REPEATER_PROACTIVE_FACTOR: '1',
      CHORUS_REPEATER_PROACTIVE_FLOOR_SEC: String(FLOOR_MS / 1000),
      CHORUS_REPEATER_PROACTIVE_CHECK_SEC: '1',
      CHORUS_REPEATER_NICKNAMES: '小合',
    });
    const peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${s.port}/onebot/v11/ws`, selfId: BOT });
    t.after(() => peer.close().catch(() => undefined));
    for (const group of [ON, SILENCED, REPLY_OFF, MUTED]) await save(s, `/group-configs/${group}`, { proactive: true });
    await save(s, `/group-configs/${SILENCED}`, { silence_until: Math.floor(Date.now() / 1000) + 3600 });
    await save(s, `/group-configs/${REPLY_OFF}`, { reply: false });
    const stored = (await s.api('GET', `/group-configs/${DEFAULT_OFF}`)).data as { proactive: boolean | null };
    assert.equal(stored.proactive, null, 'a group never set follows the global default');
    const onConfig = (await s.api('GET', `/group-configs/${ON}`)).data as { proactive: boolean | null };
    assert.equal(onConfig.proactive, true);

    let user = 500;
    const say = (groupId: number, text: string) => s.decided(peer.groupMessage({ groupId, userId: ++user, text }));
    const sentTo = (groupId: number) => peer.sent.filter((m) => m.groupId === groupId).map((m) => m.message);
    const proactive = (groupId: number) =>
      s.decisions.filter((d) => d.groupId === groupId && d.reason.startsWith('proactive'));

    // The bot answers TRIGGER with BANNED (taught), then a member bans that answer.
    await s.teach(TRIGGER, BANNED, ON);
    assert.equal((await say(ON, TRIGGER)).answerKeywords, keywordsOf(BANNED));
    await peer.nextSent(1);
    assert.equal((await say(ON, '小合不可以发这个')).reason, 'ban');
    await peer.nextSent(1); // the acknowledgement

    // Every group says enough (ten messages at least) for an average interval.
    for (const group of [ON, DEFAULT_OFF, SILENCED, REPLY_OFF, MUTED]) {
      for (const text of [BANNED, ...OTHERS, BANNED]) await say(group, text);
      for (let n = 0; n < 6; n++) await say(group, filler(n));
    }
    peer.groupBan({ groupId: MUTED, userId: BOT, duration: 3600 });
    const lastSpokeMs = Date.now();
    const sentBefore = sentTo(ON).length;

    // After the quiet time the bot talks first in ON, with lines its members said.
    const waitFor = async (what: string, check: () => RepeaterDecision | undefined, ms = 15_000) => {
      const deadline = Date.now() + ms;
      for (;;) {
        const found = check();
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`never: ${what}`);
        await sleep(20);
      }
    };
    const first = await waitFor('a proactive line', () => proactive(ON).find((d) => d.reason === 'proactive'));
    assert.ok(Date.now() - lastSpokeMs >= FLOOR_MS, 'not before the quiet time');
    assert.equal(first.outcome, 'replied');
    assert.equal(first.cause?.code, 'proactive');
    const firstSent = await peer.nextSent(first.texts.length);
    assert.deepEqual(
      firstSent.map((m) => m.message),
      first.texts,
      'what the decision says is what was sent',
    );
    assert.equal(sentTo(ON).length, sentBefore + first.texts.length);

    // The excepted groups: one skip each, with its cause, and nothing sent.
    const skipOf = async (groupId: number) =>
      (await waitFor(`a skip in ${groupId}`, () => proactive(groupId).find((d) => d.reason === 'proactive-skipped')))
        .cause?.code;
    assert.equal(await skipOf(SILENCED), 'proactive-silenced');
    assert.equal(await skipOf(REPLY_OFF), 'proactive-reply-off');
    assert.equal(await skipOf(MUTED), 'proactive-muted');

    // Firing after firing (a member's filler re-arms the silence) uses the sayable lines up:
    // every one is said, the banned one never, and then there is nothing left to say.
    const said = new Set<string>();
    let filled = 100;
    for (;;) {
      const decisions = proactive(ON);
      for (const d of decisions) for (const text of d.texts) said.add(text);
      const last = decisions.at(-1) as RepeaterDecision;
      if (last.reason === 'proactive-skipped') {
        assert.equal(last.cause?.code, 'proactive-no-line');
        break;
      }
      assert.ok(decisions.length < 10, `too many firings: ${decisions.length}`);
      const count = decisions.length;
      await say(ON, filler(++filled));
      await waitFor('the next firing', () => (proactive(ON).length > count ? proactive(ON).at(-1) : undefined));
    }
    assert.ok(!said.has(BANNED), `the banned line was said: ${[...said].join(' | ')}`);
    assert.deepEqual([...said].sort(), [TRIGGER, ...OTHERS].sort(), 'every other sayable line was said once');
    assert.ok(!sentTo(ON).slice(sentBefore).includes(BANNED), 'the banned line was never sent');

    // Nothing in the excepted groups, and nothing at all in the group left at the default.
    for (const group of [SILENCED, REPLY_OFF, MUTED]) assert.deepEqual(sentTo(group), [], `sent in ${group}`);
    assert.deepEqual(sentTo(DEFAULT_OFF), [], 'the default (off) group heard nothing');
    assert.deepEqual(proactive(DEFAULT_OFF), [], 'the default (off) group was never considered');

    // The Why page keeps proactive decisions as their own reason (the log is written every few seconds).
    type Kept = { reason: string; cause: { code: string } };
    const keptReasons = async () => {
      const why = await s.api('GET', `/repeater/decisions?group_id=${ON}&limit=100`);
      assert.equal(why.status, 200, JSON.stringify(why));
      return (why.data.decisions as Kept[]).map((d) => `${d.reason}:${d.cause.code}`);
    };
    const deadline = Date.now() + 15_000;
    let kept = await keptReasons();
    while (!(kept.includes('proactive:proactive') && kept.includes('proactive-skipped:proactive-no-line'))) {
      if (Date.now() > deadline) assert.fail(`the Why page never kept them: ${kept.join(', ')}`);
      await sleep(200);
      kept = await keptReasons();
    }
  },
);
