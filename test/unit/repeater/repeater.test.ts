/**
 * The repeater service over fakes (docs/rules.md#rep-intake, #rep-reply,
 * learn-predecessor, bans, cache-bundle).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LearnJob } from '../../../src/corpus/learning-queue.ts';
import { seededRandom } from '../../../src/repeater/random.ts';
import { PoolTimeoutError } from '../../../src/common/errors.ts';
import { CORPUS_TEXT_LIMITS } from '../../../src/common/limits.ts';
import { deferred } from '../../support/corpus-fakes.ts';
import { BOT, contextWith, GROUP, OTHER_BOT, repeaterHarness, type RepeaterHarness } from './support.ts';

function jobs(h: RepeaterHarness): LearnJob['input'][] {
  const taken: LearnJob['input'][] = [];
  for (let job = h.learning.queue.take(); job; job = h.learning.queue.take()) taken.push(job.input);
  return taken;
}

/** A corpus where "早上好" is answered with "你也早" in GROUP (count 3). */
function withGreeting(h: RepeaterHarness, count = 3, groupId = GROUP): void {
  h.corpus.seed(contextWith('早上好', [['你也早', groupId, count, ['你也早']]]));
}

/** Makes the bot reply once in GROUP (the repeat rule needs a reply record). */
async function botSpeaksOnce(h: RepeaterHarness): Promise<void> {
  withGreeting(h);
  const decision = await h.say({ plain: '早上好' });
  assert.equal(decision.outcome, 'replied');
  await h.repeater.idle();
}

describe('gate', () => {
  it("the bots' own messages are dropped: not logged, not learned, not answered", async () => {
    const h = repeaterHarness();
    assert.equal((await h.say({ userId: BOT, plain: '早上好' })).reason, 'self');
    assert.equal((await h.say({ userId: OTHER_BOT, plain: '早上好' })).reason, 'self');
    assert.equal(h.repeater.messageLog.size, 0);
    assert.equal(h.learning.counters.excluded + h.learning.counters.queued, 0);
    assert.equal(h.repeater.window.recent(GROUP, 10).length, 0);
  });

  it('a repeated message id and the same event seen by a second bot are dropped', async () => {
    const h = repeaterHarness();
    assert.equal((await h.say({ messageId: 5, time: 100, plain: '你好呀' })).reason, 'no-context');
    assert.equal((await h.say({ messageId: 5, time: 101, plain: '另一句' })).reason, 'duplicate-id');
    const again = await h.say({ selfId: OTHER_BOT, messageId: 6, time: 100, plain: '你好呀' });
    assert.equal(again.reason, 'duplicate-event');
    assert.equal(h.repeater.window.recent(GROUP, 10).length, 1);
  });

  it('a message whose keywords are over the corpus limit is never looked up, nor learned as an answer', async () => {
    const h = repeaterHarness();
    await h.say({ plain: '你好呀' });
    // One long word: the tagger keeps it whole, so the keywords are one character over the limit.
    const decision = await h.say({ plain: 'x'.repeat(CORPUS_TEXT_LIMITS.keywordsMaxChars + 1) });
    assert.equal(decision.reason, 'too-long');
    assert.equal(decision.learn, 'too_long');
    assert.equal(h.corpus.count('findByKeywordsForReply'), 1);
  });

  it('a one-character text is not answered (but learned)', async () => {
    const h = repeaterHarness();
    await h.say({ plain: '你好呀' });
    const decision = await h.say({ plain: '草' });
    assert.equal(decision.reason, 'too-short');
    assert.equal(decision.learn, 'queued');
    assert.equal(h.corpus.count('findByKeywordsForReply'), 1);
  });
});

describe('learning (only through the learning queue)', () => {
  it('learns the pair (predecessor keywords → current) for consecutive messages', async () => {
    const h = repeaterHarness();
    assert.equal((await h.say({ time: 100, plain: '你好' })).learn, 'excluded', 'no predecessor');
    assert.equal((await h.say({ time: 101, userId: 2, plain: '早上 好呀' })).learn, 'queued');
    assert.deepEqual(jobs(h), [
      {
        keywords: '你好',
        groupId: GROUP,
        answerKeywords: '早上 好呀',
        answerTime: 101,
        message: '早上 好呀',
        appendOnExisting: true,
      },
    ]);
    assert.equal(h.corpus.writes().length, 0, 'the message side never writes the corpus');
  });

  it('only the message of the same group that arrived just before, whatever the seconds say', async () => {
    const h = repeaterHarness();
    await h.say({ time: 100, plain: '第一句' });
    await h.say({ time: 100, groupId: GROUP + 1, plain: '别的群' });
    await h.say({ time: 101, plain: '第二句' });
    // OneBot times are whole seconds: an answer in the same second follows the phrase it answers.
    assert.equal((await h.say({ time: 101, plain: '同一秒' })).learn, 'queued');
    // A clock behind by a second does not reach past the message that came just before.
    assert.equal((await h.say({ time: 100, plain: '慢一秒' })).learn, 'queued');
    assert.deepEqual(
      jobs(h).map((job) => [job.keywords, job.answerKeywords]),
      [
        ['第一句', '第二句'],
        ['第二句', '同一秒'],
        ['同一秒', '慢一秒'],
      ],
    );
  });

  it('the repeat and the quoted reply are still excluded when they come in the same second', async () => {
    const h = repeaterHarness();
    await h.say({ time: 100, plain: '前一句' });
    await h.say({ time: 101, plain: '你好' });
    assert.equal(
      (await h.say({ time: 101, userId: 2, plain: '你好' })).learn,
      'excluded',
      'a repeat of the one before',
    );
    assert.equal((await h.say({ time: 101, raw: '[CQ:reply,id=3]对的', plain: '对的' })).learn, 'excluded');
    assert.deepEqual(
      jobs(h).map((job) => [job.keywords, job.answerKeywords]),
      [['前一句', '你好']],
    );
  });

  it('no learning from a repeat, a quoted reply, an ignored user, or across the bot', async () => {
    const h = repeaterHarness({ settings: { ignoreUserIds: new Set([99]) } });
    await h.say({ time: 100, plain: '你好' });
    assert.equal((await h.say({ time: 101, plain: '你好' })).learn, 'excluded', 'repeat');
    assert.equal((await h.say({ time: 102, raw: '[CQ:reply,id=3]对的', plain: '对的' })).learn, 'excluded');
    assert.equal((await h.say({ time: 103, userId: 99, plain: '机器人说' })).learn, 'not-offered');
    await h.say({ time: 104, userId: BOT, plain: '我是机器人' });
    await h.say({ time: 105, plain: '人类说' });
    assert.deepEqual(
      jobs(h).map((job) => [job.keywords, job.answerKeywords]),
      [['机器人说', '人类说']],
      'the ignored message may precede an answer; the bot message is not in the window',
    );
  });

  it('a picture keys by its raw CQ text and is stored without appending to an existing answer', async () => {
    const h = repeaterHarness();
    await h.say({ time: 100, plain: '你好' });
    await h.say({ time: 101, raw: '[CQ:image,file=a.image,url=http://x]', plain: '' });
    assert.deepEqual(jobs(h)[0], {
      keywords: '你好',
      groupId: GROUP,
      answerKeywords: '[CQ:image,file=a.image]',
      answerTime: 101,
      message: '[CQ:image,file=a.image]',
      appendOnExisting: false,
    });
  });

  it('messages addressed to the bot are learned but never answered', async () => {
    const h = repeaterHarness();
    withGreeting(h);
    await h.say({ time: 100, plain: '你好' });
    const mention = await h.say({ time: 101, raw: `[CQ:at,qq=${BOT}] 早上好`, plain: '早上好', mentionsSelf: true });
    assert.deepEqual([mention.outcome, mention.reason, mention.learn], ['skipped', 'addressed', 'queued']);
    const byName = await h.say({ time: 102, plain: 'Chorus 早上好' });
    assert.deepEqual([byName.reason, byName.learn], ['addressed', 'queued']);
    assert.equal(h.corpus.count('findByKeywordsForReply'), 0);
  });
});

describe('replies', () => {
  it('answers once an answer of this group reaches the threshold, after the delay', async () => {
    const h = repeaterHarness({ settings: { replyDelay: { minMs: 2000, maxMs: 2000 } } });
    withGreeting(h, 2);
    assert.equal((await h.say({ plain: '早上好' })).reason, 'no-candidate', 'count 2 < threshold 3');
    withGreeting(h, 3);
    const decision = await h.say({ plain: '早上好' });
    assert.deepEqual(
      [decision.outcome, decision.reason, decision.texts, decision.answerKeywords],
      ['replied', 'threshold', ['你也早'], '你也早'],
    );
    assert.ok(decision.latencyMs >= 0);
    await h.repeater.idle();
    assert.deepEqual(h.sleeps, [2000]);
    assert.deepEqual(h.chat.sent, [{ selfId: BOT, groupId: GROUP, message: '你也早', messageId: 9000 }]);
    const record = h.repeater.records.latest(GROUP, BOT);
    assert.deepEqual(
      [record?.preKeywords, record?.reply, record?.replyKeywords, record?.messageId],
      ['早上好', '你也早', '你也早', 9000],
    );
    assert.deepEqual(
      h.decisions.map((d) => d.reason),
      ['no-candidate', 'threshold'],
    );
  });

  it('an answer from another group needs a second group; a community answer needs only its count', async () => {
    const h = repeaterHarness();
    h.corpus.seed(contextWith('早上好', [['别处', 2, 5]]));
    assert.equal((await h.say({ plain: '早上好' })).reason, 'no-candidate');
    h.corpus.seed(
      contextWith('早上好', [
        ['别处', 2, 5],
        ['别处', 3, 5],
      ]),
    );
    assert.equal((await h.say({ plain: '早上好' })).reason, 'cross-group');
    h.corpus.seed(contextWith('晚安啦', [['社区', 0, 3]]));
    const community = await h.say({ plain: '晚安啦' });
    assert.deepEqual([community.reason, community.texts], ['community', ['社区']]);
  });

  it('no context, pure CQ, one-tag two-character and long CQ keys: no reply, and the last three no lookup', async () => {
    const h = repeaterHarness();
    assert.equal((await h.say({ plain: '没人说过' })).reason, 'no-context');
    assert.equal((await h.say({ raw: '[CQ:face,id=1]', plain: '' })).reason, 'no-text');
    assert.equal((await h.say({ plain: '早上' })).reason, 'skip-rule');
    const long = '啊 '.repeat(160).trim();
    assert.equal((await h.say({ raw: `[CQ:face,id=1]${long}`, plain: long })).reason, 'skip-rule');
    assert.equal(h.corpus.count('findByKeywordsForReply'), 1);
  });

  it('cool-down: a bot stays quiet in a group for the configured time after a reply', async () => {
    const h = repeaterHarness({ settings: { cooldownMs: 5000 } });
    withGreeting(h);
    h.corpus.seed(contextWith('晚安啦', [['好梦', GROUP, 3]]));
    assert.equal((await h.say({ plain: '早上好' })).outcome, 'replied');
    assert.equal((await h.say({ plain: '晚安啦' })).reason, 'cooldown');
    assert.equal((await h.say({ groupId: GROUP + 1, plain: '晚安啦' })).reason, 'no-candidate', 'other group');
    h.clock.advance(5000);
    assert.equal((await h.say({ plain: '晚安啦' })).outcome, 'replied');
  });

  it('pool pressure at 0.55 skips the lookup and caches nothing', async () => {
    const h = repeaterHarness({ settings: { bundleCacheMs: 8000, bundleNegativeCacheMs: 20_000 } });
    withGreeting(h);
    h.pressure.value = 0.55;
    assert.equal((await h.say({ plain: '早上好' })).reason, 'pressure');
    assert.equal(h.corpus.count('findByKeywordsForReply'), 0);
    h.pressure.value = 0.54;
    assert.equal((await h.say({ plain: '早上好' })).outcome, 'replied');
  });

  it('a pool timeout or a slow lookup is no reply; an error is logged as no reply', async () => {
    const h = repeaterHarness({ settings: { bundleTimeoutMs: 20 } });
    h.corpus.override.findByKeywordsForReply = async () => {
      throw new PoolTimeoutError('pool');
    };
    assert.equal((await h.say({ plain: '早上好' })).reason, 'pool-timeout');
    const gate = deferred();
    h.corpus.override.findByKeywordsForReply = async () => {
      await gate.promise;
      return null;
    };
    assert.equal((await h.say({ plain: '晚安晚安' })).reason, 'timeout');
    gate.resolve();
    h.corpus.override.findByKeywordsForReply = async () => {
      throw new Error('boom');
    };
    assert.equal((await h.say({ plain: '午安午安' })).reason, 'error');
  });

  it('the bundle cache: a found bundle is reused, a miss is shared by the bots of the group', async () => {
    const h = repeaterHarness({ settings: { bundleCacheMs: 8000, bundleNegativeCacheMs: 20_000 } });
    withGreeting(h);
    await h.say({ plain: '早上好' });
    const second = await h.say({ plain: '早上好' });
    assert.deepEqual([second.cache, second.outcome], ['hit', 'skipped'], 'the same answer was just said');
    assert.equal(second.reason, 'nothing-new');
    await h.say({ plain: '没有答案' });
    const other = await h.say({ selfId: OTHER_BOT, userId: 3, plain: '没有答案' });
    assert.deepEqual([other.cache, other.reason], ['negative-hit', 'cached-miss']);
    assert.equal(h.corpus.count('findByKeywordsForReply'), 2);
  });

  it('a split reply goes out part by part with the split delay in between', async () => {
    const h = repeaterHarness({
      settings: {
        splitProbability: 1,
        replyDelay: { minMs: 1000, maxMs: 1000 },
        splitDelay: { minMs: 500, maxMs: 500 },
      },
    });
    h.corpus.seed(contextWith('早上好', [['早上 好', GROUP, 3, ['早，上好']]]));
    const decision = await h.say({ plain: '早上好' });
    assert.deepEqual(decision.texts, ['早', '上好']);
    await h.repeater.idle();
    assert.deepEqual(h.chat.texts(), ['早', '上好']);
    assert.deepEqual(h.sleeps, [1000, 500]);
  });

  it('a failed send stops that reply and leaves the repeater working', async () => {
    const h = repeaterHarness({ settings: { splitProbability: 1 } });
    h.corpus.seed(contextWith('早上好', [['早上 好', GROUP, 3, ['早，上好']]]));
    h.chat.failSends = true;
    await h.say({ plain: '早上好' });
    await h.repeater.idle();
    assert.equal(h.chat.sent.length, 0);
    h.chat.failSends = false;
    h.corpus.seed(contextWith('晚安啦', [['好梦', GROUP, 3]]));
    await h.say({ plain: '晚安啦' });
    await h.repeater.idle();
    assert.deepEqual(h.chat.texts(), ['好梦']);
  });

  it('recent topics steer the choice', async () => {
    const seen = new Set<string | null>();
    for (let seed = 1; seed <= 8; seed++) {
      const plain = repeaterHarness({ random: seededRandom(seed) });
      const topical = repeaterHarness({ random: seededRandom(seed) });
      for (const h of [plain, topical]) {
        h.corpus.seed(
          contextWith('早上好', [
            ['猫咪', GROUP, 10, ['猫咪']],
            ['狗狗', GROUP, 10, ['狗狗']],
          ]),
        );
      }
      await topical.say({ plain: '狗狗 可爱' });
      assert.equal((await topical.say({ plain: '早上好' })).answerKeywords, '狗狗');
      seen.add((await plain.say({ plain: '早上好' })).answerKeywords);
    }
    assert.deepEqual([...seen].sort(), ['猫咪', '狗狗'].sort(), 'without topics both are chosen');
  });
});

describe('repeat rule', () => {
  it('joins the third identical human message once, without a lookup', async () => {
    const h = repeaterHarness();
    await botSpeaksOnce(h);
    const lookups = h.corpus.count('findByKeywordsForReply');
    await h.say({ userId: 1, plain: '哈哈哈' });
    await h.say({ userId: 2, plain: '哈哈哈' });
    const third = await h.say({ userId: 3, plain: '哈哈哈' });
    assert.deepEqual([third.outcome, third.reason, third.texts], ['replied', 'repeat', ['哈哈哈']]);
    assert.equal(h.corpus.count('findByKeywordsForReply'), lookups + 2, 'the first two were looked up, not the third');
    await h.repeater.idle();
    assert.equal((await h.say({ userId: 4, plain: '哈哈哈' })).reason, 'repeat-done');
    assert.deepEqual(h.chat.texts(), ['你也早', '哈哈哈']);
  });

  it('a bot that has not spoken in the group since start does not repeat', async () => {
    const h = repeaterHarness();
    for (const userId of [1, 2]) await h.say({ userId, plain: '哈哈哈' });
    assert.equal((await h.say({ userId: 3, plain: '哈哈哈' })).reason, 'repeat-done');
  });

  it('messages of bots and ignored users do not count as repeats (a lookup happens instead)', async () => {
    const h = repeaterHarness({ settings: { ignoreUserIds: new Set([99]) } });
    await botSpeaksOnce(h);
    await h.say({ userId: 1, plain: '哈哈哈' });
    await h.say({ userId: 99, plain: '哈哈哈' });
    const lookups = h.corpus.count('findByKeywordsForReply');
    const decision = await h.say({ userId: 2, plain: '哈哈哈' });
    assert.equal(decision.reason, 'no-context');
    assert.equal(h.corpus.count('findByKeywordsForReply'), lookups + 1);
    assert.equal((await h.say({ userId: 99, plain: '哈哈哈' })).reason, 'ignored-user');
  });

  it('a picture repeated by humans is repeated too', async () => {
    const h = repeaterHarness();
    await botSpeaksOnce(h);
    const raw = '[CQ:image,file=cat.image,url=https://a]';
    await h.say({ userId: 1, raw, plain: '' });
    await h.say({ userId: 2, raw: '[CQ:image,file=cat.image,url=https://b]', plain: '' });
    const third = await h.say({ userId: 3, raw, plain: '' });
    assert.deepEqual([third.reason, third.texts], ['repeat', ['[CQ:image,file=cat.image]']]);
  });
});

describe('bans', () => {
  it('"不可以" quoting the bot\'s reply bans it in this context and group, recalls it and says so', async () => {
    const h = repeaterHarness();
    await botSpeaksOnce(h);
    const decision = await h.say({
      userId: 7,
      raw: '[CQ:reply,id=9000]不可以',
      plain: '不可以',
      replyToMessageId: 9000,
    });
    assert.deepEqual([decision.outcome, decision.reason, decision.answerKeywords], ['banned', 'ban', '你也早']);
    const [ban] = h.corpus.calls.filter((call) => call.method === 'appendBan');
    assert.deepEqual(ban?.args[0], '早上好');
    assert.deepEqual(ban?.args[1], { keywords: '你也早', groupId: GROUP, reason: '7', time: 1_700_000_000 });
    await h.repeater.idle();
    assert.deepEqual(h.chat.deleted, [{ selfId: BOT, messageId: 9000 }]);
    assert.equal(h.chat.texts().at(-1), h.repeater.settings.banAck);
    assert.equal(decision.learn, 'not-offered');
    h.repeater.records.add(GROUP, { ...h.repeater.records.latest(GROUP, BOT)!, reply: 'x', replyKeywords: 'x' });
    assert.equal((await h.say({ plain: '早上好' })).reason, 'no-candidate', 'banned here');
    assert.equal((await h.say({ groupId: GROUP + 1, plain: '早上好' })).reason, 'no-candidate');
    assert.deepEqual(h.repeater.bans.lists(GROUP).reserve, ['你也早']);
  });

  it('"不可以" quoting a message the records do not know fetches it (get_msg)', async () => {
    const h = repeaterHarness();
    await botSpeaksOnce(h);
    h.chat.stored.set(555, { rawMessage: '你也早', userId: BOT });
    const decision = await h.say({
      userId: 7,
      raw: `[CQ:reply,id=555][CQ:at,qq=${BOT}] 不可以`,
      plain: '不可以',
      replyToMessageId: 555,
    });
    assert.equal(decision.reason, 'ban');
    await h.repeater.idle();
    assert.deepEqual(h.chat.deleted, [{ selfId: BOT, messageId: 555 }]);
  });

  it('"不可以" quoting a human message without addressing a bot is an ordinary message', async () => {
    const h = repeaterHarness();
    await botSpeaksOnce(h);
    h.chat.stored.set(556, { rawMessage: '人说的', userId: 3 });
    const decision = await h.say({ userId: 7, raw: '[CQ:reply,id=556]不可以', plain: '不可以', replyToMessageId: 556 });
    assert.equal(decision.outcome, 'skipped');
    assert.notEqual(decision.reason, 'ban');
    assert.equal(h.corpus.count('appendBan'), 0);
  });

  it('"不可以发这个" to the bot (by @, in either form) bans its latest reply', async () => {
    for (const raw of [`[CQ:at,qq=${BOT}] 不可以发这个`, `[at:qq=${BOT}] 不可以发这个`]) {
      const h = repeaterHarness();
      await botSpeaksOnce(h);
      const decision = await h.say({ userId: 7, raw, plain: '不可以发这个' });
      assert.deepEqual([decision.outcome, decision.answerKeywords], ['banned', '你也早'], raw);
    }
    const h = repeaterHarness();
    await botSpeaksOnce(h);
    assert.equal((await h.say({ userId: 7, plain: 'chorus 不可以发这个' })).reason, 'ban', 'by name');
    const nothing = repeaterHarness();
    assert.equal((await nothing.say({ userId: 7, plain: 'chorus 不可以发这个' })).reason, 'ban-no-target');
  });

  it('an admin recalling the bot\'s message bans it with reason "recall by <operator>"', async () => {
    const h = repeaterHarness();
    await botSpeaksOnce(h);
    const outcome = await h.repeater.onGroupRecall({
      selfId: BOT,
      groupId: GROUP,
      userId: BOT,
      operatorId: 77,
      messageId: 9000,
      time: 1,
    });
    assert.equal(outcome.banned, true);
    const [ban] = h.corpus.calls.filter((call) => call.method === 'appendBan');
    assert.deepEqual(ban?.args[1], { keywords: '你也早', groupId: GROUP, reason: 'recall by 77', time: 1_700_000_000 });
    await h.repeater.idle();
    assert.equal(h.chat.texts().at(-1), h.repeater.settings.banAck);
  });

  it('recalls by the bot itself, of human messages, or seen by another bot do nothing', async () => {
    const h = repeaterHarness();
    await botSpeaksOnce(h);
    const base = { selfId: BOT, groupId: GROUP, userId: BOT, operatorId: BOT, messageId: 9000, time: 1 };
    assert.deepEqual(await h.repeater.onGroupRecall(base), { banned: false, reason: 'own-recall' });
    assert.equal((await h.repeater.onGroupRecall({ ...base, operatorId: OTHER_BOT })).banned, false);
    assert.equal((await h.repeater.onGroupRecall({ ...base, userId: 3, operatorId: 77 })).banned, false);
    assert.equal((await h.repeater.onGroupRecall({ ...base, selfId: OTHER_BOT, operatorId: 77 })).banned, false);
    assert.equal(h.corpus.count('appendBan'), 0);
  });
});

describe('chat log and lifecycle', () => {
  it('messages are logged in batches off the message path', async () => {
    const h = repeaterHarness();
    await h.say({ plain: '你好', senderName: '甲' });
    await h.say({ raw: '[CQ:reply,id=3]对', plain: '对', replyToMessageId: 3 });
    assert.equal(h.chatLog.appendCalls, 0, 'nothing written while handling messages');
    await h.repeater.messageLog.flush();
    assert.equal(h.chatLog.appendCalls, 1);
    assert.deepEqual(
      h.chatLog.rows.map((row) => [row.rawMessage, row.keywords, row.botId, row.senderName, row.replyToMessageId]),
      [
        ['你好', '你好', BOT, '甲', null],
        ['[CQ:reply,id=3]对', '对', BOT, 'member', 3],
      ],
    );
  });

  it('start loads the blacklists; stop writes the chat log and saves them', async () => {
    const h = repeaterHarness();
    h.blacklists.rows.set(GROUP, { groupId: GROUP, answers: ['你也早'], answersReserve: [] });
    await h.repeater.start();
    withGreeting(h);
    assert.equal((await h.say({ plain: '早上好' })).reason, 'no-candidate', 'actively banned in this group');
    assert.equal((await h.say({ groupId: GROUP + 1, plain: '早上好' })).reason, 'no-candidate');
    await h.repeater.stop();
    assert.equal(h.chatLog.rows.length, 2);
    assert.ok(h.blacklists.puts > 0);
  });
});
