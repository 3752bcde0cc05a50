/**
 * The de-identification rule (src/domain/deidentify.ts) on adversarial input: every CQ segment
 * goes whatever its spelling, numbers that could name a person or group are withheld, and
 * contexts and learn events carry group 0, cleaned messages and no bans.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Context } from '../../../src/domain/corpus.ts';
import {
  communityContext,
  communityLabel,
  communityLearnInput,
  holdsNumber,
  shareableText,
  withheldCounters,
  withheldKeywords,
} from '../../../src/domain/deidentify.ts';

const ok = (text: string) => ({ ok: true, text });
const no = (reason: string) => ({ ok: false, reason });

describe('de-identification', () => {
  it('removes every CQ segment, however it is spelled', () => {
    const cases: [string, string][] = [
      ['早上好[CQ:at,qq=123456789]', '早上好'],
      ['[CQ:at ,qq=123456789] 早上好', '早上好'],
      ['[CQ:reply,id=-20394]收到', '收到'],
      ['戳[CQ:poke,qq=987654321]一下', '戳一下'],
      ['[CQ:json,data={"app":"com.tencent.contact"&#44;"uin":123456789}]名片', '名片'],
      ['[CQ:node,user_id=10001,nickname=x,content=hi]转发', '转发'],
      ['[CQ:share,url=https://qm.qq.com/?uin=123456789,title=群]分享', '分享'],
      ['[CQ:image,file=abc.jpg,url=https://gchat.qpic.cn/gchatpic_new/123456789/0]图', '图'],
      ['[cq:Face,id=178]好耶', '好耶'],
      ['好耶 [CQ:at,qq=123456789', '好耶'],
      ['a\u0000b   c\n\td', 'ab c d'],
    ];
    for (const [raw, expected] of cases) assert.deepEqual(shareableText(raw), ok(expected), raw);
  });

  it('withholds empty, long and number-bearing texts; one digit repeated is fine', () => {
    assert.deepEqual(shareableText('[CQ:image,file=1.jpg]'), no('empty'));
    assert.deepEqual(shareableText('   '), no('empty'));
    assert.deepEqual(shareableText('啊'.repeat(101)), no('too-long'));
    assert.deepEqual(shareableText('啊'.repeat(100)), ok('啊'.repeat(100)));
    assert.deepEqual(shareableText('加我 12345678'), no('number'));
    assert.deepEqual(shareableText('电话１３８００１３８０００'), no('number'), 'full-width digits');
    assert.deepEqual(shareableText('12345'), no('number'));
    assert.deepEqual(shareableText('666666'), ok('666666'));
    assert.deepEqual(shareableText('2026年'), ok('2026年'), 'four digits');
    assert.equal(holdsNumber('88888 和 1234'), false);
    assert.equal(holdsNumber('11111x22223'), true);
  });

  it('counts digits across single spaces, dashes and dots: a number however it is written', () => {
    for (const text of [
      '打我电话 138 1234 5678',
      '139-8765-4321',
      '138.1234.5678',
      '群 123 45',
      '１３８ １２３４ ５６７８',
      '１３９－８７６５－４３２１',
      '1-2-3-4-5',
      '138 1234-5678 好的',
    ]) {
      assert.deepEqual(shareableText(text), no('number'), text);
      assert.equal(withheldKeywords(text), 'number', text);
    }
    // One digit repeated stays allowed however it is spaced; a word or two separators end the run.
    for (const text of ['666 666', '888-888', '6.6.6.6.6', '2026年', '12 点 34 分', '12--345', '3.5 分', 'a 12 b 345'])
      assert.deepEqual(shareableText(text), ok(text), text);
    assert.equal(holdsNumber('1234  5678'), false, 'two spaces end the run in keywords');
    assert.deepEqual(shareableText('1234  5678'), no('number'), 'a text collapses its spaces first');
  });

  it('keywords are withheld whole when they hold a segment or a number', () => {
    assert.equal(withheldKeywords('[CQ:image,file=a.jpg]'), 'cq-keywords');
    assert.equal(withheldKeywords('找 [CQ:at,qq=1]'), 'cq-keywords');
    assert.equal(withheldKeywords('qq 123456789'), 'number');
    assert.equal(withheldKeywords(' '), 'empty');
    assert.equal(withheldKeywords('早上 好'), null);
  });

  it('a context goes out with group 0, cleaned distinct messages, no bans; what may not leave is counted', () => {
    const counters = withheldCounters();
    const context: Context = {
      keywords: '晚上 吃 什么',
      time: 10,
      triggerCount: 3,
      clearTime: 0,
      answers: [
        {
          keywords: '火锅',
          groupId: 123456789,
          count: 4,
          time: 9,
          messages: ['火锅[CQ:at,qq=55555555]', '火锅', '火锅 '],
        },
        {
          keywords: '[CQ:image,file=x.jpg]',
          groupId: 123456789,
          count: 9,
          time: 9,
          messages: ['[CQ:image,file=x.jpg]'],
        },
        { keywords: '加我', groupId: 42, count: 2, time: 9, messages: ['加我 3344556677'] },
      ],
      bans: [{ keywords: '火锅', groupId: 123456789, reason: '10001', time: 1 }],
    };
    assert.deepEqual(communityContext(context, counters.sink), {
      ...context,
      answers: [{ keywords: '火锅', groupId: 0, count: 4, time: 9, messages: ['火锅'] }],
      bans: [],
    });
    assert.deepEqual(counters.counts, {
      withheld_cq_keywords: 1,
      withheld_number: 1,
      withheld_empty: 0,
      withheld_too_long: 0,
    });
    assert.equal(communityContext({ ...context, keywords: '[CQ:face,id=1]' }), null);
    assert.equal(communityContext({ ...context, answers: [context.answers[1]!] }), null, 'nothing left');
  });

  it('a learn event goes out with group 0 and the cleaned message, or not at all', () => {
    const input = {
      keywords: '早',
      groupId: 987654321,
      answerKeywords: '早 安',
      answerTime: 5,
      message: '早安[CQ:at,qq=123456789]',
      appendOnExisting: true,
    };
    assert.deepEqual(communityLearnInput(input), { ...input, groupId: 0, message: '早安' });
    assert.equal(communityLearnInput({ ...input, message: '[CQ:record,file=a.amr]' }), null);
    assert.equal(communityLearnInput({ ...input, answerKeywords: '[CQ:image,file=a]' }), null);
    assert.equal(communityLearnInput({ ...input, keywords: '群 12345678' }), null);
  });

  it('hot-word labels are cleaned or withheld', () => {
    assert.equal(communityLabel('早上  好'), '早上 好');
    assert.equal(communityLabel('[CQ:face,id=1]'), null);
    assert.equal(communityLabel('群号 1234567'), null);
  });
});
