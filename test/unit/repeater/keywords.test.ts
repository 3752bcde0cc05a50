/**
 * Message text facts and keywords (docs/rules.md#rep-text: a pure CQ
 * message keys by its raw form).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  isImage,
  isPlainText,
  leadingNickname,
  mentionsAccount,
  normaliseRaw,
  quotedMessageId,
  stripEmptyUrl,
  stripNickname,
} from '../../../src/repeater/cq-text.ts';
import { describeText, jiebaTagger, KeywordExtractor, keywordString } from '../../../src/repeater/keywords.ts';
import { wordTagger } from './support.ts';

describe('CQ text facts', () => {
  it('plain text: no CQ segment and some text; image: an image or face segment', () => {
    assert.equal(isPlainText('早上好', '早上好'), true);
    assert.equal(isPlainText('[CQ:at,qq=1] 早上好', '早上好'), false);
    assert.equal(isPlainText('   ', '   '), false);
    assert.equal(isImage('[CQ:image,file=a.image]'), true);
    assert.equal(isImage('[CQ:face,id=1]'), true);
    assert.equal(isImage('[CQ:at,qq=1]'), false);
  });

  it('image attributes after the file name are dropped, so the same picture compares equal', () => {
    assert.equal(
      normaliseRaw('看[CQ:image,file=abc.image,url=https://x/y?z=1,subType=0]'),
      '看[CQ:image,file=abc.image]',
    );
    assert.equal(normaliseRaw('[CQ:face,id=1]'), '[CQ:face,id=1]');
  });

  it('nicknames match at the start, ignoring case, and are stripped with the blanks after them', () => {
    const names = ['chorus', '小合'];
    assert.equal(leadingNickname('Chorus 你好', names), 'chorus');
    assert.equal(leadingNickname('  小合在吗', names), '小合');
    assert.equal(leadingNickname('你好 chorus', names), undefined);
    assert.equal(stripNickname('CHORUS  你好', names), '你好');
    assert.equal(stripNickname('你好', names), '你好');
  });

  it('mentions of an account, both CQ forms, and not of a longer number', () => {
    assert.equal(mentionsAccount('[CQ:at,qq=123] hi', 123), true);
    assert.equal(mentionsAccount('[CQ:at,qq=123,name=x] hi', 123), true);
    assert.equal(mentionsAccount('[at:qq=123] hi', 123), true);
    assert.equal(mentionsAccount('[CQ:at,qq=1234] hi', 123), false);
  });

  it('quoted message ids and empty url attributes', () => {
    assert.equal(quotedMessageId('[CQ:reply,id=77]不可以'), 77);
    assert.equal(quotedMessageId('[reply:id=-5]不可以'), -5);
    assert.equal(quotedMessageId('不可以'), null);
    assert.equal(stripEmptyUrl('[CQ:image,file=a.image,url=]'), '[CQ:image,file=a.image]');
    assert.equal(stripEmptyUrl('[CQ:image,file=a.image,url=,x=1]'), '[CQ:image,file=a.image,x=1]');
  });
});

describe('keywords string (docs/rules.md#rep-text)', () => {
  const extractor = new KeywordExtractor({ tagger: wordTagger });

  it('tags joined by one space in tag order; no tags: the text; no text: the raw CQ form', () => {
    assert.equal(describeText('早上 好呀 大家', '早上 好呀 大家', extractor).keywords, '早上 好呀');
    assert.equal(describeText('草', '草', extractor).keywords, '草');
    const picture = describeText('[CQ:image,file=a.image,url=x]', '', extractor);
    assert.equal(picture.keywords, '[CQ:image,file=a.image]');
    assert.deepEqual(picture.tags, []);
    assert.equal(picture.isPlainText, false);
    assert.equal(picture.isImage, true);
    assert.equal(keywordString('[CQ:at,qq=1] 你好', '你好', false, ['你好']), '你好');
  });

  it('a message without text never reaches the tagger', () => {
    let calls = 0;
    const counting = new KeywordExtractor({
      tagger: (text, k) => {
        calls++;
        return wordTagger(text, k);
      },
    });
    describeText('[CQ:face,id=1]', '', counting);
    describeText('[CQ:image,file=b.image]', '  ', counting);
    assert.equal(calls, 0);
  });

  it('tags are cached by stripped text (LRU) and at most two', () => {
    const seen: string[] = [];
    const counting = new KeywordExtractor({
      tagger: (text) => {
        seen.push(text);
        return ['一一', '二二', '三三'];
      },
      cacheMax: 2,
    });
    assert.deepEqual(counting.tags(' 你好 '), ['一一', '二二']);
    counting.tags('你好');
    counting.tags('再见');
    counting.tags('第三');
    counting.tags('你好');
    assert.deepEqual(seen, ['你好', '再见', '第三', '你好']);
  });

  it('jieba TF-IDF gives the top two tags best first', () => {
    const jieba = new KeywordExtractor({ tagger: jiebaTagger() });
    assert.deepEqual(jieba.tags('今天天气真不错啊'), ['今天天气', '真不错']);
    assert.deepEqual(jieba.tags('早上好'), ['早上好']);
    assert.equal(describeText('今天天气真不错啊', '今天天气真不错啊', jieba).keywords, '今天天气 真不错');
  });
});
