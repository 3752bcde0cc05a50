/**
 * Chorus end to end on the chat side: `startService` on SQLite in a temporary project, a real
 * port, and scripted OneBot implementations (test/fixtures/onebot-peer.ts) connected over real
 * WebSockets. Covers learning, replies at the threshold, the repeat rule, cross-group answers,
 * bans by "不可以" and by recall, malformed frames, the access token and reconnects.
 *
 * Every message carries its own timestamp, one second after the previous one (the learner pairs
 * a message with the last one strictly earlier). Nothing sleeps: each step waits, with a
 * deadline, for the decision the repeater reports for that message, the learn worker to drain,
 * or the peer to receive an action.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { startService, type RunningService } from '../../src/app/service.ts';
import {
  BAN_WORD,
  jiebaTagger,
  KeywordExtractor,
  seededRandom,
  type RepeaterDecision,
} from '../../src/repeater/index.ts';
import { describeText } from '../../src/repeater/keywords.ts';
import { OneBotPeer, type GroupMessageOptions, type PeerOptions } from '../fixtures/onebot-peer.ts';
import { freePort } from '../support/chorus-process.ts';

const KEYWORDS = new KeywordExtractor({ tagger: jiebaTagger() });
const keywordsOf = (text: string): string => describeText(text, text, KEYWORDS).keywords;
const tagsOf = (text: string): readonly string[] => describeText(text, text, KEYWORDS).tags;

/** Bot accounts (each peer hands out message ids from its own range, so ids never collide). */
const BOT_A = 10001;
const BOT_B = 10002;
const BOT_C = 10003;
const BOT_D = 10004;
/** Between teaching rounds: no keywords and four characters or fewer, so never looked up. */
const FILLER = '嗯嗯嗯';
/** Small talk that is never looked up either (no keywords, short): pushes lines out of the window. */
const CHATTER = ['嗯嗯', '哦哦', '好的', '在吗', '真香', '好耶', '嗯嗯嗯嗯', '好的呢', '行吧', '是的', '对的', '嗯呢'];
const BAN_ACK = '好的，这句不说了';
const WAIT_MS = 5000;

/** Polls `condition` every 5 ms; fails with `what` after `timeoutMs`. */
async function waitUntil(what: string, condition: () => boolean, timeoutMs = WAIT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const silent = () => new Writable({ write: (_chunk, _encoding, done) => done() });

interface Chorus {
  readonly service: RunningService;
  readonly url: string;
  readonly decisions: RepeaterDecision[];
  connect(selfId: number, options?: Partial<PeerOptions>): Promise<OneBotPeer>;
  /** A member's message through `peer`, a second after the previous message; returns its id. */
  say(peer: OneBotPeer, groupId: number, userId: number, text: string, extra?: Partial<GroupMessageOptions>): number;
  /** The repeater's decision on a message (waits for it). */
  decided(groupId: number, messageId: number): Promise<RepeaterDecision>;
  /** `say`, then its decision. */
  ask(peer: OneBotPeer, groupId: number, text: string, userId?: number): Promise<RepeaterDecision>;
  /** Waits for the decisions on `ids`, then for the learn worker, then forgets cached snapshots. */
  learned(ids: readonly number[]): Promise<void>;
  /** `rounds` × (trigger, answer, filler) in a group; none of them may be answered. */
  teach(peer: OneBotPeer, groupId: number, trigger: string, answer: string, rounds: number): Promise<void>;
  /** Sends scheduled by the repeater (replies, acknowledgements, recalls) have been performed. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

async function startChorus(env: Record<string, string> = {}): Promise<Chorus> {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-chat-e2e-'));
  const port = await freePort();
  const decisions: RepeaterDecision[] = [];
  const service = await startService({
    projectDir: dir,
    env: {
      CHORUS_PORT: String(port),
      CHORUS_CONSOLE_TOKEN: 'chorus-chat-e2e-token-not-secret',
      CHORUS_REPEATER_COOLDOWN_SEC: '0',
      CHORUS_REPEATER_REPLY_DELAY_SEC: '0-0',
      CHORUS_REPEATER_SPLIT_DELAY_SEC: '0-0',
      CHORUS_REPEATER_SPLIT_PROBABILITY: '0',
      CHORUS_REPEATER_BUNDLE_CACHE_SEC: '0',
      CHORUS_REPEATER_BUNDLE_NEGATIVE_CACHE_SEC: '0',
      // Always the highest threshold, 3 (2 for a message with two keywords): no luck involved.
      CHORUS_REPEATER_ANSWER_THRESHOLD: '3',
      CHORUS_REPEATER_ANSWER_THRESHOLD_WEIGHTS: '0,0,1',
      CHORUS_REPEATER_BAN_ACK: BAN_ACK,
      CHORUS_CORPUS_REPLY_SNAPSHOT_SEC: '1',
      ...env,
    },
    logDestination: silent(),
    random: seededRandom(5),
    onDecision: (decision) => decisions.push(decision),
  });
  const url = `ws://127.0.0.1:${port}/onebot/v11/ws`;
  const peers = new Set<OneBotPeer>();
  let second = Math.floor(Date.now() / 1000) - 100_000;
  const findDecision = (groupId: number, messageId: number) =>
    decisions.find((d) => d.groupId === groupId && d.messageId === messageId);

  const chorus: Chorus = {
    service,
    url,
    decisions,
    async connect(selfId, options = {}) {
      const peer = await OneBotPeer.connect({
        url,
        selfId,
        firstMessageId: (selfId % 100) * 1_000_000 + 1,
        ...(env.CHORUS_ONEBOT_ACCESS_TOKEN ? { accessToken: env.CHORUS_ONEBOT_ACCESS_TOKEN } : {}),
        ...options,
      });
      peers.add(peer);
      // The account counts as a bot once the server has taken the connection.
      await waitUntil(`bot ${selfId} online`, () => service.chat.onebot.bots().some((bot) => bot.selfId === selfId));
      return peer;
    },
    say(peer, groupId, userId, text, extra = {}) {
      second++;
      return peer.groupMessage({ groupId, userId, text, time: second, ...extra });
    },
    async decided(groupId, messageId) {
      await waitUntil(`the decision on message ${messageId} in group ${groupId}`, () =>
        Boolean(findDecision(groupId, messageId)),
      );
      return findDecision(groupId, messageId) as RepeaterDecision;
    },
    async ask(peer, groupId, text, userId = 9) {
      return chorus.decided(groupId, chorus.say(peer, groupId, userId, text));
    },
    async learned(ids) {
      await waitUntil(`decisions on ${ids.length} messages`, () =>
        ids.every((id) => decisions.some((d) => d.messageId === id)),
      );
      const { learning } = service.corpus.runtime;
      const worker = service.corpus.learnWorker;
      await waitUntil(
        'the learn worker to drain',
        () =>
          learning.queue.size === 0 && worker.counters.handled + worker.counters.failed === learning.counters.queued,
      );
      assert.equal(worker.counters.failed, 0, 'no learn job failed');
      service.store.corpus.invalidateSnapshots();
      service.corpus.runtime.composite.invalidateFindCache();
    },
    async teach(peer, groupId, trigger, answer, rounds) {
      const ids: number[] = [];
      for (let round = 0; round < rounds; round++) {
        ids.push(chorus.say(peer, groupId, 2, trigger));
        ids.push(chorus.say(peer, groupId, 3, answer));
        ids.push(chorus.say(peer, groupId, 4, FILLER));
      }
      await chorus.learned(ids);
      const answered = decisions.filter((d) => ids.includes(d.messageId) && d.outcome !== 'skipped');
      assert.deepEqual(answered, [], 'nothing said while teaching is answered');
    },
    idle: () => service.chat.repeater.idle(),
    async stop() {
      for (const peer of peers) await peer.close().catch(() => undefined);
      await service.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return chorus;
}

/** What `peer`'s bot sent to `groupId` (replies and acknowledgements), in order. */
const sentTo = (peer: OneBotPeer, groupId: number): string[] =>
  peer.sent.filter((sent) => sent.groupId === groupId).map((sent) => sent.message);

describe('Chorus chat end to end (OneBot over a real WebSocket, SQLite)', () => {
  let chorus: Chorus;
  let a: OneBotPeer;
  let b: OneBotPeer;

  before(async () => {
    chorus = await startChorus();
    a = await chorus.connect(BOT_A);
    b = await chorus.connect(BOT_B);
  });
  after(() => chorus.stop());

  it('learns phrase pairs across messages, per group, in both directions', async () => {
    const G = 101;
    const G2 = 102;
    const ids = [
      chorus.say(a, G, 1, '今天天气真不错啊'),
      chorus.say(a, G, 2, '是啊适合出去玩'),
      chorus.say(a, G2, 5, '是啊适合出去玩'),
      chorus.say(a, G, 3, '今天天气真不错啊'),
      chorus.say(a, G, 4, '是啊适合出去玩'),
    ];
    await chorus.learned(ids);
    const corpus = chorus.service.store.corpus;
    const weather = await corpus.findByKeywords(keywordsOf('今天天气真不错啊'));
    assert.deepEqual(
      weather?.answers.map((answer) => [answer.keywords, answer.groupId, answer.count, answer.messages]),
      [[keywordsOf('是啊适合出去玩'), G, 2, ['是啊适合出去玩', '是啊适合出去玩']]],
      'the pair was learned twice in its group; the message in the other group has no predecessor',
    );
    const reverse = await corpus.findByKeywords(keywordsOf('是啊适合出去玩'));
    assert.deepEqual(
      reverse?.answers.map((answer) => [answer.keywords, answer.groupId, answer.count]),
      [[keywordsOf('今天天气真不错啊'), G, 1]],
    );
    assert.deepEqual(
      ids.map((id) => chorus.decisions.find((d) => d.messageId === id)?.learn),
      ['excluded', 'queued', 'excluded', 'queued', 'queued'],
    );
  });

  it('never learns from quoted replies, repeats or the bot itself', async () => {
    const G = 111;
    const first = chorus.say(a, G, 1, '明天放假吗');
    const ids = [
      first,
      chorus.say(a, G, 2, '明天放假吗'),
      chorus.say(a, G, 3, '确实如此', { message: `[CQ:reply,id=${first}]确实如此` }),
      a.selfMessage({ groupId: G, text: '我是机器人在说话' }),
      chorus.say(a, G, BOT_A, '机器人又说了一句'),
      chorus.say(a, G, BOT_B, '另一个机器人账号'),
      chorus.say(a, G, 4, '晚上一起吃火锅'),
    ];
    await chorus.learned(ids);
    const byId = (id: number) => chorus.decisions.find((d) => d.groupId === G && d.messageId === id);
    assert.deepEqual(
      ids.map((id) => [byId(id)?.reason === 'self', byId(id)?.learn]),
      [
        [false, 'excluded'],
        [false, 'excluded'],
        [false, 'excluded'],
        [true, 'not-offered'],
        [true, 'not-offered'],
        [true, 'not-offered'],
        [false, 'queued'],
      ],
    );
    const corpus = chorus.service.store.corpus;
    assert.equal(await corpus.findByKeywords(keywordsOf('明天放假吗')), null, 'a repeat and a quote are no answers');
    const quoted = await corpus.findByKeywords(keywordsOf('确实如此'));
    assert.deepEqual(
      quoted?.answers.map((answer) => answer.messages),
      [['晚上一起吃火锅']],
      'the bot messages are not predecessors: the quoted reply is',
    );
    assert.equal(await corpus.contextExistsByKeywords(keywordsOf('我是机器人在说话')), false);
    assert.equal(await corpus.contextExistsByKeywords(keywordsOf('机器人又说了一句')), false);
    assert.equal(await corpus.contextExistsByKeywords(keywordsOf('另一个机器人账号')), false);
  });

  it('replies over the socket once an answer reaches its threshold, not before', async () => {
    const G = 121;
    assert.equal(tagsOf('早上好').length, 1, 'one keyword: the threshold is 3');
    await chorus.teach(a, G, '早上好', '你也早啊', 2);
    // The answer's text must be out of the last 10 messages, or a count-2 answer is stale anyway.
    await chorus.learned(CHATTER.map((line, index) => chorus.say(a, G, 20 + index, line)));
    const early = await chorus.ask(a, G, '早上好');
    assert.deepEqual([early.outcome, early.reason], ['skipped', 'no-candidate'], 'count 2 < 3');
    await chorus.idle();
    assert.deepEqual(sentTo(a, G), []);

    await chorus.teach(a, G, '早上好', '你也早啊', 1);
    const reply = await chorus.ask(a, G, '早上好');
    assert.deepEqual([reply.outcome, reply.reason, reply.texts], ['replied', 'threshold', ['你也早啊']]);
    const [sent] = await a.nextSent(1);
    assert.deepEqual([sent?.groupId, sent?.message], [G, '你也早啊']);
  });

  it('joins three humans repeating a line once, and only where it has replied before', async () => {
    const G = 131;
    const QUIET = 132;
    // In a group where the bot never spoke, it does not join.
    const quiet = [];
    for (const userId of [5, 6, 7]) quiet.push(await chorus.ask(a, QUIET, '哈哈哈哈', userId));
    assert.equal(quiet[2]?.reason, 'repeat-done');

    await chorus.teach(a, G, '今天好热', '是啊好热', 3);
    assert.equal((await chorus.ask(a, G, '今天好热')).reason, 'threshold');
    assert.deepEqual(
      (await a.nextSent(1)).map((sent) => sent.message),
      ['是啊好热'],
    );

    for (const userId of [5, 6]) assert.notEqual((await chorus.ask(a, G, '哈哈哈哈', userId)).outcome, 'replied');
    const joined = await chorus.ask(a, G, '哈哈哈哈', 7);
    assert.deepEqual([joined.reason, joined.texts], ['repeat', ['哈哈哈哈']]);
    const [echo] = await a.nextSent(1);
    assert.deepEqual([echo?.groupId, echo?.message], [G, '哈哈哈哈']);
    const again = await chorus.ask(a, G, '哈哈哈哈', 8);
    assert.deepEqual([again.outcome, again.reason], ['skipped', 'repeat-done']);
    await chorus.idle();
    assert.deepEqual(sentTo(a, G), ['是啊好热', '哈哈哈哈'], 'echoed once');
    assert.deepEqual(sentTo(a, QUIET), []);
  });

  it("uses another group's answer only once two other groups have it", async () => {
    const G = 141;
    await chorus.teach(a, 142, '周末去哪玩', '对对对', 3);
    const one = await chorus.ask(a, G, '周末去哪玩');
    assert.deepEqual([one.outcome, one.reason], ['skipped', 'no-candidate'], 'one other group is not enough');
    await chorus.teach(a, 143, '周末去哪玩', '对对对', 3);
    const two = await chorus.ask(a, G, '周末去哪玩');
    assert.deepEqual([two.outcome, two.reason, two.texts], ['replied', 'cross-group', ['对对对']]);
    const [sent] = await a.nextSent(1);
    assert.deepEqual([sent?.groupId, sent?.message], [G, '对对对']);
  });

  it('bans an answer by "不可以" (after that phrase) and by an admin recall (second strike: the whole group)', async (t) => {
    const G = 151;
    const OTHER = 152;
    const ANSWER = '我也困';
    const answerKeywords = keywordsOf(ANSWER);
    // Two more accounts in the same group that have said nothing there yet, so the bot's own
    // "not the same answer again soon" rule cannot hide what the bans do.
    const c = await chorus.connect(BOT_C);
    t.after(() => c.close());
    await chorus.teach(a, G, '好困啊', ANSWER, 3);
    await chorus.teach(a, G, '下午好', ANSWER, 3);
    await chorus.teach(a, G, '晚上好', ANSWER, 3);
    await chorus.teach(a, OTHER, '下午好', ANSWER, 3);

    assert.deepEqual((await chorus.ask(a, G, '好困啊')).texts, [ANSWER]);
    const [reply] = await a.nextSent(1);
    assert.ok(reply);

    // First strike: a member quotes the reply and says 不可以.
    const ban = await chorus.decided(
      G,
      chorus.say(a, G, 7, BAN_WORD, { message: `[CQ:reply,id=${reply.messageId}]${BAN_WORD}` }),
    );
    assert.deepEqual([ban.outcome, ban.reason, ban.answerKeywords], ['banned', 'ban', answerKeywords]);
    await a.waitForAction((action) => action.action === 'delete_msg' && action.params.message_id === reply.messageId);
    assert.deepEqual(
      (await a.nextSent(1)).map((sent) => sent.message),
      [BAN_ACK],
    );
    assert.deepEqual(chorus.service.chat.repeater.bans.lists(G), { active: [], reserve: [answerKeywords] });

    const afterPhrase = await chorus.ask(b, G, '好困啊');
    assert.deepEqual([afterPhrase.outcome, afterPhrase.reason], ['skipped', 'no-candidate'], 'banned after 好困啊');
    const elsewhereInGroup = await chorus.ask(b, G, '下午好');
    assert.deepEqual(
      [elsewhereInGroup.reason, elsewhereInGroup.texts],
      ['threshold', [ANSWER]],
      'one strike: still used after other phrases',
    );
    const [second] = await b.nextSent(1);
    assert.ok(second);

    // Second strike: an admin recalls the bot's message.
    b.recall({ groupId: G, userId: BOT_B, operatorId: 900, messageId: second.messageId });
    assert.deepEqual(
      (await b.nextSent(1)).map((sent) => sent.message),
      [BAN_ACK],
    );
    assert.deepEqual(chorus.service.chat.repeater.bans.lists(G).active, [answerKeywords]);

    const inGroup = await chorus.ask(c, G, '晚上好');
    assert.deepEqual([inGroup.outcome, inGroup.reason], ['skipped', 'no-candidate'], 'banned in the whole group');
    const otherGroup = await chorus.ask(c, OTHER, '下午好');
    assert.deepEqual([otherGroup.reason, otherGroup.texts], ['threshold', [ANSWER]], 'not in another group');
    assert.deepEqual(
      (await c.nextSent(1)).map((sent) => [sent.groupId, sent.message]),
      [[OTHER, ANSWER]],
    );
    await chorus.idle();
    assert.deepEqual(sentTo(c, G), []);
    assert.deepEqual(sentTo(b, G), [ANSWER, BAN_ACK]);

    const corpus = chorus.service.store.corpus;
    const bansOf = async (text: string) =>
      ((await corpus.findByKeywords(keywordsOf(text)))?.bans ?? []).map((ban) => [
        ban.keywords,
        ban.groupId,
        ban.reason,
      ]);
    assert.deepEqual(await bansOf('好困啊'), [[answerKeywords, G, '7']]);
    assert.deepEqual(await bansOf('下午好'), [[answerKeywords, G, 'recall by 900']]);
    assert.deepEqual((await chorus.service.store.blacklists.get(G))?.answers, [answerKeywords], 'saved at once');
  });

  it('drops malformed frames and keeps the connection working', async () => {
    const G = 161;
    await chorus.teach(a, G, '谁在线', '在的在的', 3);
    const before = chorus.decisions.length;
    const message = (fields: Record<string, unknown>) =>
      JSON.stringify({
        time: Math.floor(Date.now() / 1000),
        self_id: BOT_A,
        post_type: 'message',
        message_type: 'group',
        sub_type: 'normal',
        message_id: 1,
        group_id: G,
        user_id: 5,
        message: '谁在线',
        raw_message: '谁在线',
        font: 0,
        sender: { user_id: 5, nickname: 'x' },
        ...fields,
      });
    const frames = [
      'not json {',
      '[1, 2, 3]',
      '"just a string"',
      'null',
      '{}',
      JSON.stringify({ post_type: 42 }),
      message({ group_id: 'one hundred' }),
      message({ message_id: undefined, time: 'now' }),
      message({ user_id: -5.5 }),
      message({ sender: 'nobody', message_id: 2 }),
      message({ message: { type: 'text' }, message_id: 3 }),
      message({ message: [{ type: 'text', data: 'x' }], message_id: 4 }),
      JSON.stringify({ post_type: 'notice', notice_type: 'group_recall', group_id: G }),
      JSON.stringify({ status: 'ok', retcode: 0, data: null, echo: 'no-such-action' }),
      JSON.stringify({ status: 'maybe', echo: 1 }),
    ];
    for (const frame of frames) a.sendRaw(frame);
    a.sendRaw(Buffer.from([0xff, 0xfe, 0x00, 0x7b]), { binary: true });

    const reply = await chorus.ask(a, G, '谁在线');
    assert.deepEqual([reply.reason, reply.texts], ['threshold', ['在的在的']]);
    assert.deepEqual(
      (await a.nextSent(1)).map((sent) => sent.message),
      ['在的在的'],
    );
    assert.equal(chorus.decisions.length, before + 1, 'none of the malformed frames reached the repeater');
    assert.ok(a.isOpen);
  });

  it('a reconnect of the same account replaces the old connection; replies go over the new one', async () => {
    const G = 171;
    const first = await chorus.connect(BOT_D);
    await chorus.teach(first, G, '黄焖鸡米饭', '真香啊', 3);

    const second = await chorus.connect(BOT_D, { firstMessageId: 5_000_000 });
    const closed = await first.waitClosed();
    assert.equal(closed.code, 4000, 'closed as replaced');
    assert.deepEqual(
      chorus.service.chat.onebot
        .bots()
        .filter((bot) => bot.selfId === BOT_D)
        .map((bot) => bot.roles),
      [['Universal']],
    );

    const reply = await chorus.ask(second, G, '黄焖鸡米饭');
    assert.deepEqual([reply.reason, reply.texts], ['threshold', ['真香啊']]);
    assert.deepEqual(
      (await second.nextSent(1)).map((sent) => [sent.groupId, sent.message]),
      [[G, '真香啊']],
    );
    assert.deepEqual(sentTo(first, G), []);
    await second.close();
  });
});

describe('the OneBot access token (a running service)', () => {
  const TOKEN = 'onebot-e2e-access-token';
  let chorus: Chorus;

  before(async () => {
    chorus = await startChorus({ CHORUS_ONEBOT_ACCESS_TOKEN: TOKEN });
  });
  after(() => chorus.stop());

  it('refuses a missing or wrong token with 401 and accepts the right one, in the header or the query', async () => {
    const url = chorus.url;
    assert.equal(await OneBotPeer.refusal({ url, selfId: BOT_A }), 401);
    assert.equal(await OneBotPeer.refusal({ url, selfId: BOT_A, accessToken: `${TOKEN}x` }), 401);
    assert.equal(await OneBotPeer.refusal({ url, selfId: BOT_A, accessToken: 'wrong', tokenIn: 'query' }), 401);
    assert.deepEqual(chorus.service.chat.onebot.bots(), [], 'no refused attempt became a bot');

    const header = await chorus.connect(BOT_A, { accessToken: TOKEN });
    const first = await chorus.ask(header, 181, '今天天气真不错啊');
    assert.equal(first.selfId, BOT_A);
    const query = await chorus.connect(BOT_B, { accessToken: TOKEN, tokenIn: 'query' });
    const second = await chorus.ask(query, 182, '今天天气真不错啊');
    assert.equal(second.selfId, BOT_B);
  });
});
