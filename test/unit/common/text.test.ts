import assert from 'node:assert/strict';
import { test } from 'node:test';
import { plainMessageText, stripNul, truncate } from '../../../src/common/text.ts';

test('plainMessageText removes CQ segments entirely, in either case, and collapses whitespace', () => {
  assert.equal(plainMessageText('早啊[CQ:face,id=178]呀'), '早啊呀');
  assert.equal(plainMessageText('[cq:image,file=a.jpg] 你好  \n 世界 '), '你好 世界');
  assert.equal(plainMessageText('a\u0000b[CQ:at,qq=1]'), 'ab');
  assert.equal(plainMessageText('[CQ:image,file=x]'), '');
});

test('stripNul and truncate', () => {
  assert.equal(stripNul('a\u0000b\u0000'), 'ab');
  assert.equal(truncate('一二三四五', 5), '一二三四五');
  assert.equal(truncate('一二三四五六', 5), '一二三四…');
});
