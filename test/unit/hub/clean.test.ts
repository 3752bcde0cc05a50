import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cleanMessages, cleanText, hotMessage, identifiesPerson } from '../../../src/hub/clean.ts';

describe('hub cleaning rule', () => {
  it('removes CQ segments without leaving a space, as the origin (tests/test_corpus_util.py)', () => {
    assert.equal(cleanText('你好[CQ:face,id=178]早上'), '你好早上');
    assert.equal(cleanText('早啊[CQ:face,id=178]呀'), '早啊呀');
    assert.equal(cleanText('[CQ:image,file=abc.jpg,url=https://x/y?a=1]'), '');
    assert.equal(cleanText('  hi  '), 'hi');
  });

  it('is case-insensitive for the CQ tag, removes NUL, collapses whitespace', () => {
    assert.equal(cleanText('a[cq:Face,id=1]b'), 'ab');
    assert.equal(cleanText('a\u0000b'), 'ab');
    assert.equal(cleanText(' one \n\t two  [CQ:at,qq=1] three '), 'one two three');
    assert.equal(cleanText('[not cq] [CQ:'), '[not cq] [CQ:');
  });

  it('cleanMessages keeps the first of equal texts and drops empty ones, in order', () => {
    assert.deepEqual(cleanMessages(['b', ' a ', '[CQ:image,file=1]', 'a', 'b[CQ:face,id=2]', '']), ['b', 'a']);
  });

  it('identifiesPerson spots mentions, quoted replies and shared contacts only', () => {
    assert.equal(identifiesPerson('[CQ:at,qq=12345] hi'), true);
    assert.equal(identifiesPerson('[CQ:reply,id=99]ok'), true);
    assert.equal(identifiesPerson('[CQ:contact,type=qq,id=1]'), true);
    assert.equal(identifiesPerson('[CQ:AT,qq=all]'), true);
    assert.equal(identifiesPerson('[CQ:face,id=1]'), false);
    assert.equal(identifiesPerson('[CQ:attack]'), false);
    assert.equal(identifiesPerson('at the station'), false);
  });

  it('hotMessage keeps 120 characters and cuts longer ones to 117 and an ellipsis (code points)', () => {
    assert.equal(hotMessage('a'.repeat(120)), 'a'.repeat(120));
    assert.equal(hotMessage('a'.repeat(121)), `${'a'.repeat(117)}…`);
    const emoji = '😀'.repeat(120);
    assert.equal(hotMessage(emoji), emoji, '120 code points, 240 UTF-16 units');
  });
});
