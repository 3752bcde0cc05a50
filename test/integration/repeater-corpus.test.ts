/**
 * The repeater over the real corpus on SQLite and PostgreSQL: messages learned through the
 * learning queue and the learn worker, replies once an answer passes its threshold, the repeat
 * rule, cross-group and community answers, and bans that persist across a restart. Only QQ is
 * faked (a recording chat port); keywords come from jieba.
 */
import assert from 'node:assert/strict';
import { it, type TestContext } from 'node:test';
import { configFromValues } from '../../src/config/index.ts';
import type { RemoteSources } from '../../src/corpus/composite-repository.ts';
import { CorpusRuntime } from '../../src/corpus/corpus-runtime.ts';
import type { LocalStore } from '../../src/store/open-store.ts';
import { describeText, jiebaTagger, KeywordExtractor } from '../../src/repeater/keywords.ts';
import { seededRandom } from '../../src/repeater/random.ts';
import { Repeater, type RepeaterDecision } from '../../src/repeater/repeater.ts';
import type { RepeaterSettings } from '../../src/repeater/settings.ts';
import { FakeClock } from '../../src/common/clock.ts';
import { silentLog } from '../../src/common/log.ts';
import { createLearnWorker } from '../../src/workers/learn-worker.ts';
import { FakePrefetch, FakePressure, FakeRemote, waitFor } from '../support/corpus-fakes.ts';
import { forEachEngine } from '../support/engines.ts';
import { BOT, FakeChat, groupMessage, testSettings } from '../unit/repeater/support.ts';

const KEYWORDS = new KeywordExtractor({ tagger: jiebaTagger() });
const keywordsOf = (text: string) => describeText(text, text, KEYWORDS).keywords;
const G = 100;
const G2 = 200;
const G3 = 300;

/** The repeater as serve wires it, over `store`, with a recording chat port. */
async function chorus(
  t: TestContext,
  store: LocalStore,
  settings: Partial<RepeaterSettings> = {},
  corpus: { values?: Record<string, unknown>; sources?: RemoteSources } = {},
) {
  const config = configFromValues(corpus.values ?? {});
  const clock = new FakeClock();
  const pressure = new FakePressure(0);
  const runtime = new CorpusRuntime({
    local: store.corpus,
    pressure,
    config: () => config,
    enrollment: () => null,
    sources: () => corpus.sources ?? {},
    prefetch: new FakePrefetch(),
    clock,
    log: silentLog,
  });
  const worker = createLearnWorker({
    queue: runtime.learning,
    learner: runtime.learner,
    pressure,
    now: () => clock.monotonicMs(),
    log: silentLog,
  });
  const chat = new FakeChat();
  const repeater = new Repeater({
    settings: testSettings(settings),
    keywords: KEYWORDS,
    corpus: runtime.composite,
    learning: runtime.learning,
    pressure,
    chat,
    messageLog: store.messages,
    blacklists: store.blacklists,
    botIds: () => new Set([BOT]),
    clock,
    random: seededRandom(11),
    log: silentLog,
    sleep: async () => undefined,
  });
  worker.start();
  await repeater.start();
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await repeater.stop();
    await worker.stop(5000);
  };
  // The store closes in an earlier-registered hook: tests stop explicitly; this is the safety net.
  t.after(() => stop().catch(() => undefined));
  let second = 1_700_000_000;
  return {
    runtime,
    repeater,
    chat,
    stop,
    /** One member message in a group, a second after the previous one. */
    say(groupId: number, text: string, more: Parameters<typeof groupMessage>[0] = {}): Promise<RepeaterDecision> {
      second++;
      return repeater.onGroupMessage(groupMessage({ groupId, plain: text, time: second, userId: 1, ...more }));
    },
    /** Waits until the learn worker has written everything queued (then forgets stale snapshots). */
    async learned(): Promise<void> {
      await waitFor(() => worker.counters.handled + worker.counters.failed === runtime.learning.counters.queued);
      // A new answer on an existing context shows after the 5 s snapshot TTL; don't wait for it.
      store.corpus.invalidateSnapshots();
    },
  };
}

type Chorus = Awaited<ReturnType<typeof chorus>>;

/** `times` rounds of (trigger → answer) in a group, with a filler message between rounds. */
async function teach(c: Chorus, groupId: number, trigger: string, answer: string, times: number): Promise<void> {
  for (let round = 0; round < times; round++) {
    await c.say(groupId, trigger, { userId: 2 });
    await c.say(groupId, answer, { userId: 3 });
    await c.say(groupId, `随便聊聊第${round}次`, { userId: 4 });
  }
  await c.learned();
}

forEachEngine((engine) => {
  it('learns phrase pairs across messages through the learn worker', async (t) => {
    const store = await engine.open(t);
    const c = await chorus(t, store);
    await c.say(G, '今天天气真不错啊');
    await c.say(G, '是啊适合出去玩', { userId: 2 });
    await c.say(G2, '是啊适合出去玩', { userId: 5 });
    await c.say(G, '今天天气真不错啊', { userId: 3 });
    await c.say(G, '是啊适合出去玩', { userId: 4 });
    await c.learned();
    const context = await store.corpus.findByKeywords(keywordsOf('今天天气真不错啊'));
    assert.ok(context, 'the predecessor keywords became a context');
    assert.deepEqual(
      context.answers.map((a) => [a.keywords, a.groupId, a.count, a.messages]),
      [[keywordsOf('是啊适合出去玩'), G, 2, ['是啊适合出去玩', '是啊适合出去玩']]],
    );
    // The reverse pair was learned as well, and nothing crossed groups.
    const reverse = await store.corpus.findByKeywords(keywordsOf('是啊适合出去玩'));
    assert.deepEqual(
      reverse?.answers.map((a) => [a.keywords, a.groupId, a.count]),
      [[keywordsOf('今天天气真不错啊'), G, 1]],
    );
    assert.equal(c.runtime.composite.counters.guardRejected, 0);
    await c.stop();
    assert.equal((await store.messages.recent(G, 10)).length, 4, 'the chat log was written');
  });

  it('never learns from quoted replies, repeats or the bot itself', async (t) => {
    const store = await engine.open(t);
    const c = await chorus(t, store);
    await c.say(G, '今天天气真不错啊');
    await c.say(G, '今天天气真不错啊', { userId: 2 });
    await c.say(G, '确实如此', { raw: '[CQ:reply,id=1]确实如此', userId: 3 });
    await c.say(G, '我是机器人在说话', { userId: BOT });
    await c.say(G, '晚上一起吃火锅', { userId: 4 });
    await c.learned();
    const weather = await store.corpus.findByKeywords(keywordsOf('今天天气真不错啊'));
    assert.equal(weather, null, 'a repeat and a quoted reply are never answers');
    const quoted = await store.corpus.findByKeywords(keywordsOf('确实如此'));
    assert.deepEqual(
      quoted?.answers.map((a) => a.messages),
      [['晚上一起吃火锅']],
      'the bot message is not a predecessor: the quoted reply is',
    );
    assert.equal(await store.corpus.contextExistsByKeywords(keywordsOf('我是机器人在说话')), false);
    await c.stop();
  });

  it('answers once an answer reaches the threshold, and joins a repeat once', async (t) => {
    const store = await engine.open(t);
    const c = await chorus(t, store);
    await teach(c, G, '早上好', '你也早啊', 2);
    assert.equal((await c.say(G, '早上好', { userId: 9 })).reason, 'no-candidate', 'count 2 < 3');
    await teach(c, G, '早上好', '你也早啊', 1);
    const reply = await c.say(G, '早上好', { userId: 9 });
    assert.deepEqual([reply.outcome, reply.reason, reply.texts], ['replied', 'threshold', ['你也早啊']]);
    await c.repeater.idle();
    assert.deepEqual(c.chat.texts(), ['你也早啊']);

    for (const userId of [5, 6]) await c.say(G, '哈哈哈哈', { userId });
    const joined = await c.say(G, '哈哈哈哈', { userId: 7 });
    assert.deepEqual([joined.reason, joined.texts], ['repeat', ['哈哈哈哈']]);
    assert.equal((await c.say(G, '哈哈哈哈', { userId: 8 })).reason, 'repeat-done');
    await c.repeater.idle();
    assert.deepEqual(c.chat.texts(), ['你也早啊', '哈哈哈哈']);
    await c.learned();
    const laugh = await store.corpus.findByKeywords(keywordsOf('哈哈哈哈'));
    assert.ok(!laugh?.answers.some((a) => a.keywords === keywordsOf('哈哈哈哈')), 'the repeat was not learned');
    await c.stop();
  });

  it("uses another group's answer only once two other groups have it; a community answer on its own", async (t) => {
    const store = await engine.open(t);
    const c = await chorus(t, store);
    await teach(c, G2, '你们吃午饭了吗', '刚吃过了', 3);
    assert.equal((await c.say(G, '你们吃午饭了吗', { userId: 9 })).reason, 'no-candidate');
    await teach(c, G3, '你们吃午饭了吗', '刚吃过了', 3);
    const crossed = await c.say(G, '你们吃午饭了吗', { userId: 9 });
    assert.deepEqual([crossed.reason, crossed.texts], ['cross-group', ['刚吃过了']]);

    // A community answer (group 0, as a prefetch import stores it) counts on its own.
    const key = keywordsOf('周末去哪玩');
    const learn = (time: number) =>
      store.corpus.learnAnswer({
        keywords: key,
        groupId: 0,
        answerKeywords: keywordsOf('去公园散步'),
        answerTime: time,
        message: '去公园散步',
        appendOnExisting: false,
      });
    await learn(1);
    await learn(2);
    store.corpus.invalidateSnapshots();
    assert.equal((await c.say(G, '周末去哪玩', { userId: 9 })).reason, 'no-candidate', 'count 2 < 3');
    await learn(3);
    store.corpus.invalidateSnapshots();
    const community = await c.say(G, '周末去哪玩', { userId: 9 });
    assert.deepEqual([community.reason, community.texts], ['community', ['去公园散步']]);
    await c.stop();
  });

  it('sync mode: a community read skipped for want of a permit is no miss; the same message asked again is answered', async (t) => {
    const store = await engine.open(t);
    const key = keywordsOf('周末去哪玩');
    const hub = new FakeRemote().seed({
      keywords: key,
      time: 1,
      triggerCount: 5,
      clearTime: 0,
      answers: [{ keywords: keywordsOf('去公园散步'), groupId: 0, count: 5, time: 1, messages: ['去公园散步'] }],
      bans: [],
    });
    const c = await chorus(
      t,
      store,
      // Misses are remembered for 45 s, and the fake clock never lets one expire.
      { bundleNegativeCacheMs: 45_000 },
      {
        values: {
          CHORUS_CORPUS_COMMUNITY_ENABLED: 'true',
          CHORUS_CORPUS_COMMUNITY_API_BASE: 'http://127.0.0.1:9/v1/corpus',
          CHORUS_CORPUS_COMMUNITY_TOKEN: 'community-token',
          CHORUS_CORPUS_REMOTE_FIND_ENABLED: 'sync',
          CHORUS_CORPUS_REMOTE_MAX_CONCURRENT: 1,
        },
        sources: { community: hub },
      },
    );
    // Every remote permit busy (a contribution holds the only one): the hot-path read is skipped.
    const held = await c.runtime.budget.contributePermit();
    assert.ok(held);
    const skipped = await c.say(G, '周末去哪玩', { userId: 9 });
    assert.deepEqual([skipped.outcome, skipped.cache], ['skipped', 'not-cached']);
    assert.deepEqual(hub.calls, []);
    held();
    await c.say(G, '随便聊聊', { userId: 4 });
    // Nothing was invalidated in between: the message is looked up again and the hub answers.
    const answered = await c.say(G, '周末去哪玩', { userId: 8 });
    assert.deepEqual([answered.reason, answered.texts], ['community', ['去公园散步']]);
    assert.deepEqual(
      hub.calls.filter((asked) => asked === key),
      [key],
    );
    await c.stop();
  });

  it('bans by "不可以" and by recall stop an answer in that group, and persist across a restart', async (t) => {
    const store = await engine.open(t);
    const c = await chorus(t, store);
    await teach(c, G, '早上好', '你也早啊', 3);
    await teach(c, G, '下午好', '你也早啊', 3);
    await teach(c, G2, '下午好', '你也早啊', 3);
    const answer = keywordsOf('你也早啊');

    const reply = await c.say(G, '早上好', { userId: 9 });
    assert.deepEqual(reply.texts, ['你也早啊']);
    await c.repeater.idle();
    const sent = c.chat.sent.at(-1);
    assert.ok(sent);
    const ban = await c.say(G, '不可以', {
      userId: 7,
      raw: `[CQ:reply,id=${sent.messageId}]不可以`,
      replyToMessageId: sent.messageId,
    });
    assert.deepEqual([ban.outcome, ban.answerKeywords], ['banned', answer]);
    assert.equal((await c.say(G, '早上好', { userId: 9 })).reason, 'no-candidate', 'banned after this phrase');

    const recalled = await c.repeater.onGroupRecall({
      selfId: BOT,
      groupId: G,
      userId: BOT,
      operatorId: 88,
      messageId: sent.messageId,
      time: 1,
    });
    assert.equal(recalled.banned && recalled.result.strike, 'active', 'the second strike bans it in the group');
    await c.stop();

    // A new process over the same database.
    const reopened = await store.reopen();
    const after = await chorus(t, reopened);
    assert.deepEqual((await reopened.blacklists.get(G))?.answers, [answer]);
    assert.equal((await after.say(G, '早上好', { userId: 9 })).reason, 'no-candidate');
    assert.equal((await after.say(G, '下午好', { userId: 9 })).reason, 'no-candidate', 'banned in the whole group');
    const elsewhere = await after.say(G2, '下午好', { userId: 9 });
    assert.deepEqual([elsewhere.reason, elsewhere.texts], ['threshold', ['你也早啊']], 'not in another group');
    const bans = (await reopened.corpus.findByKeywords(keywordsOf('早上好')))?.bans ?? [];
    assert.deepEqual(
      bans.map((b) => [b.keywords, b.groupId, b.reason]),
      [
        [answer, G, '7'],
        [answer, G, 'recall by 88'],
      ],
    );
    await after.stop();
  });
});
