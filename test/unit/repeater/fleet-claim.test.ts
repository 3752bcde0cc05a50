/**
 * The repeater with a fleet claim (docs/rules.md#fleet-claims): a message another process took is
 * neither logged, learned nor answered here, but a command addressed to an account here is still
 * obeyed; an unsure claim is handled here; the fingerprint is the same for every receiving account.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FleetClaims, type ClaimStore } from '../../../src/repeater/fleet-claims.ts';
import { claimKey, type ClaimVerdict } from '../../../src/repeater/fleet-claim.ts';
import { silentLog } from '../../../src/common/log.ts';
import { BOT, contextWith, GROUP, groupMessage, OTHER_BOT, repeaterHarness } from './support.ts';

function harness(verdict: ClaimVerdict) {
  const keys: string[] = [];
  const h = repeaterHarness({
    claim: async (key) => {
      keys.push(key);
      return verdict;
    },
  });
  h.corpus.seed(contextWith('早上好', [['你也早', GROUP, 3, ['你也早']]]));
  return { h, keys };
}

describe('fleet claim', () => {
  it('a message claimed elsewhere is not logged, learned or answered here', async () => {
    const { h, keys } = harness('lost');
    await h.say({ plain: '大家好' });
    const decision = await h.say({ plain: '早上好' });
    assert.equal(decision.reason, 'claimed-elsewhere');
    assert.equal(decision.learn, 'not-offered');
    assert.equal(h.repeater.messageLog.size, 0);
    assert.equal(h.learning.counters.queued, 0);
    await h.repeater.idle();
    assert.deepEqual(h.chat.sent, []);
    assert.equal(keys.length, 2, 'one claim per message');
  });

  it('a won or unsure claim is handled here as without claims', async () => {
    for (const verdict of ['won', 'unsure'] as const) {
      const { h } = harness(verdict);
      await h.say({ plain: '大家好' });
      const decision = await h.say({ plain: '早上好' });
      assert.equal(decision.outcome, 'replied', verdict);
      assert.equal(h.repeater.messageLog.size, 2, verdict);
      assert.equal(h.learning.counters.queued, 1, verdict);
    }
  });

  it('a ban command and a group command are obeyed even when another process took the message', async () => {
    const won = harness('won');
    await won.h.say({ plain: '早上好' });
    await won.h.repeater.idle();
    const reply = won.h.chat.sent[0]!;
    // The same repeater now loses every claim: the command is for its bot, so it acts.
    const lost = harness('lost');
    lost.h.repeater.records.add(GROUP, { ...won.h.repeater.records.latest(GROUP, BOT)! });
    const ban = await lost.h.say({
      userId: 7,
      raw: `[CQ:reply,id=${reply.messageId}]不可以`,
      plain: '不可以',
      replyToMessageId: reply.messageId,
    });
    assert.deepEqual([ban.outcome, ban.reason], ['banned', 'ban']);
    assert.deepEqual(lost.h.repeater.bans.lists(GROUP).reserve, ['你也早']);
    const silence = await lost.h.say({ plain: 'chorus 闭嘴', senderRole: 'owner' });
    assert.equal(silence.reason, 'silence-command');
    assert.equal(lost.h.repeater.messageLog.size, 0, 'the other process logs them');
  });

  it('a message claimed elsewhere still joins the window: it is the predecessor the next message learns after', async () => {
    const verdicts: ClaimVerdict[] = ['lost', 'won'];
    const h = repeaterHarness({ claim: async () => verdicts.shift() ?? 'won' });
    await h.say({ plain: '今天 天气' });
    await h.say({ plain: '适合 出门' });
    const job = h.learning.queue.take();
    assert.equal(job?.input.keywords, '今天 天气');
    assert.equal(job?.input.answerKeywords, '适合 出门');
  });

  it('messages arriving faster than their claims are answered still learn after their true predecessor', async () => {
    // A burst: every message is parsed before the first claim is answered, and the claims go in
    // batches; each message must join the window before the next one reads its predecessor.
    const store: ClaimStore = {
      claimAll: (keys) => new Promise((resolve) => setTimeout(() => resolve(new Set(keys)), 5)),
      prune: async () => 0,
    };
    const claims = new FleetClaims(store, { origin: 'a', log: silentLog, monotonicMs: () => 0, waitMs: 10_000 });
    const h = repeaterHarness({ claim: (key, groupId) => claims.claim(key, groupId) });
    const texts = ['周末 爬山', '好主意 带水', '明天 下雨', '晚上 火锅', '火锅 安排'];
    const decided = Promise.all(texts.map((plain, i) => h.say({ userId: 2 + (i % 2), plain })));
    await decided;
    assert.equal(claims.counters.won, texts.length, 'every claim was answered by the store');
    const learned: [string, string][] = [];
    for (let job = h.learning.queue.take(); job; job = h.learning.queue.take())
      learned.push([job.input.keywords, job.input.answerKeywords]);
    assert.deepEqual(
      learned,
      texts.slice(1).map((answer, i) => [texts[i], answer]),
    );
  });

  it("the bots' own messages start no claim", async () => {
    const { h, keys } = harness('won');
    await h.say({ userId: BOT, plain: '早上好' });
    await h.say({ userId: OTHER_BOT, plain: '早上好' });
    assert.deepEqual(keys, []);
  });

  it('the fingerprint is the same for every receiving account, and differs by group, sender, second and text', () => {
    const base = { groupId: GROUP, userId: 7, time: 1_700_000_000 };
    const a = groupMessage({ ...base, selfId: BOT, messageId: 1, raw: '[CQ:image,file=x.image,url=https://a/1]' });
    const b = groupMessage({
      ...base,
      selfId: OTHER_BOT,
      messageId: 2,
      raw: '[CQ:image,file=x.image,url=https://b/2]',
    });
    assert.equal(claimKey(a), claimKey(b), 'message ids and picture URLs differ per account');
    const text = groupMessage({ ...base, raw: '你好' });
    assert.notEqual(claimKey(text), claimKey({ ...text, groupId: GROUP + 1 }));
    assert.notEqual(claimKey(text), claimKey({ ...text, userId: 8 }));
    assert.notEqual(claimKey(text), claimKey({ ...text, time: base.time + 1 }));
    assert.notEqual(claimKey(text), claimKey({ ...text, rawMessage: '你好!' }));
  });
});
