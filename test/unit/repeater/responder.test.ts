/**
 * The reply algorithm as pure functions (docs/rules.md#rep-reply, #community-evidence).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeText, KeywordExtractor } from '../../../src/repeater/keywords.ts';
import { seededRandom, type RandomSource } from '../../../src/repeater/random.ts';
import {
  chooseReply,
  pickThreshold,
  repeatVerdict,
  selectCandidates,
  shouldSkipLookup,
  type CandidateInput,
  type ChoiceInput,
  type ReplyCandidate,
} from '../../../src/repeater/responder.ts';
import { contextWith, wordTagger } from './support.ts';

const extractor = new KeywordExtractor({ tagger: wordTagger });
const text = (raw: string, plain?: string) => describeText(raw, plain ?? raw.replace(/\[CQ:[^\]]*\]/g, ''), extractor);

/** A random source that returns the given values in turn. */
function sequence(...values: number[]): RandomSource {
  let index = 0;
  return { next: () => values[index++ % values.length] as number };
}

function input(overrides: Partial<CandidateInput> = {}): CandidateInput {
  return {
    groupId: 1,
    keywords: '你好',
    isImage: false,
    toMe: false,
    nicknames: ['chorus'],
    threshold: 3,
    crossGroupThreshold: 2,
    banned: new Set(),
    recentReplyKeywords: new Set(),
    recentRaws: new Set(),
    topicCount: () => 0,
    ...overrides,
  };
}

const keys = (candidates: ReplyCandidate[]) => candidates.map((c) => c.keywords);

describe('repeat rule (docs/rules.md#rep-reply)', () => {
  it('echoes when the last two human messages equal the raw and the bot said something else last', () => {
    assert.equal(repeatVerdict('哈哈', ['嗯', '哈哈', '哈哈'], 3, '早'), 'echo');
  });

  it('does not echo twice, nor before the bot has spoken in the group', () => {
    assert.equal(repeatVerdict('哈哈', ['哈哈', '哈哈'], 3, '哈哈'), 'already');
    assert.equal(repeatVerdict('哈哈', ['哈哈', '哈哈'], 3, undefined), 'already');
  });

  it('needs threshold - 1 equal messages in a row; a threshold below 2 turns it off', () => {
    assert.equal(repeatVerdict('哈哈', ['哈哈'], 3, '早'), 'not-a-repeat');
    assert.equal(repeatVerdict('哈哈', ['哈哈', '嗯'], 3, '早'), 'not-a-repeat');
    assert.equal(repeatVerdict('哈哈', ['哈哈'], 2, '早'), 'echo');
    assert.equal(repeatVerdict('哈哈', ['哈哈', '哈哈'], 1, '早'), 'not-a-repeat');
  });
});

describe('lookup skip rules (docs/rules.md#rep-reply)', () => {
  it('pure CQ skips; CQ with text and a keyword does not', () => {
    assert.equal(shouldSkipLookup(text('[CQ:face,id=1]', ''), false), true);
    assert.equal(shouldSkipLookup(text('[CQ:at,qq=5] 早上好', '早上好'), false), false);
  });

  it('"草" (one character) skips; addressed text never skips', () => {
    assert.equal(shouldSkipLookup(text('草'), false), true);
    assert.equal(shouldSkipLookup(text('草'), true), false);
  });

  it('no tag: up to 4 characters skip; one tag: up to 2 characters skip', () => {
    assert.equal(shouldSkipLookup(text('啊 哦 嗯'), false), false, '5 chars, 0 tags');
    assert.equal(shouldSkipLookup(text('啊 哦'), false), true, '3 chars, 0 tags');
    assert.equal(shouldSkipLookup(text('早上'), false), true, '2 chars, 1 tag');
    assert.equal(shouldSkipLookup(text('早上好'), false), false, '3 chars, 1 tag');
    assert.equal(shouldSkipLookup(text('早上 好呀'), false), false, '2 tags');
  });

  it('a CQ message with text but no tag skips only when its key is 256 characters or more', () => {
    const long = '啊 '.repeat(160).trim();
    assert.equal(shouldSkipLookup(text(`[CQ:face,id=1]${long}`, long), false), true);
    assert.equal(shouldSkipLookup(text('[CQ:face,id=1]啊', '啊'), false), false);
  });
});

describe('threshold (docs/rules.md#rep-reply)', () => {
  it('draws from [1, 2, 3] with weights 7/23/70, one lower with two keywords', () => {
    const weights = [7, 23, 70];
    assert.equal(pickThreshold(3, weights, 1, sequence(0.0)), 1);
    assert.equal(pickThreshold(3, weights, 1, sequence(0.069)), 1);
    assert.equal(pickThreshold(3, weights, 1, sequence(0.071)), 2);
    assert.equal(pickThreshold(3, weights, 1, sequence(0.31)), 3);
    assert.equal(pickThreshold(3, weights, 2, sequence(0.31)), 2);
    assert.equal(pickThreshold(3, [1], 0, sequence(0.5)), 3);
  });

  it('a seeded source gives the weighted frequencies', () => {
    const random = seededRandom(42);
    const seen = [0, 0, 0, 0];
    for (let i = 0; i < 10_000; i++) seen[pickThreshold(3, [7, 23, 70], 1, random)]!++;
    assert.ok(Math.abs((seen[3] ?? 0) / 10_000 - 0.7) < 0.03, String(seen));
    assert.ok(Math.abs((seen[1] ?? 0) / 10_000 - 0.07) < 0.02, String(seen));
  });
});

describe('candidate filter and group rules (docs/rules.md#rep-reply)', () => {
  it('threshold 3 excludes the count-1 answer', () => {
    const context = contextWith('你好', [
      ['ans_low', 1, 1, ['low_msg']],
      ['ans_high', 1, 5, ['high_msg']],
    ]);
    const candidates = selectCandidates(context, input());
    assert.deepEqual(keys(candidates), ['ans_high']);
    assert.deepEqual(candidates[0]?.messages, ['high_msg']);
    assert.equal(candidates[0]?.origin, 'group');
  });

  it('skips banned, recently replied and equal-to-message keywords, and answers without messages', () => {
    const context = contextWith('你好', [
      ['banned', 1, 5],
      ['recent', 1, 5],
      ['你好', 1, 5],
      ['empty', 1, 5, []],
      ['ok', 1, 5],
    ]);
    const candidates = selectCandidates(
      context,
      input({ banned: new Set(['banned']), recentReplyKeywords: new Set(['recent']) }),
    );
    assert.deepEqual(keys(candidates), ['ok']);
  });

  it('sample rules: images get CQ answers only; nickname, xml card and newline samples are skipped', () => {
    const context = contextWith('你好', [
      ['text', 1, 5, ['文字']],
      ['face', 1, 5, ['[CQ:face,id=2]']],
      ['nick', 1, 5, ['chorus 你好']],
      ['card', 1, 5, ['[CQ:xml,data=1]']],
      ['lines', 1, 5, ['一\n二']],
    ]);
    assert.deepEqual(keys(selectCandidates(context, input({ isImage: true }))), ['face']);
    assert.deepEqual(keys(selectCandidates(context, input())), ['text', 'face']);
    const longNick = contextWith('你好', [['nick', 1, 5, ['chorus 今天一起去吃饭吧']]]);
    assert.deepEqual(keys(selectCandidates(longNick, input({ toMe: true }))), ['nick'], 'addressed and long');
    assert.deepEqual(keys(selectCandidates(longNick, input())), [], 'not addressed');
  });

  it('an answer below count 3 whose text was just said in the group is skipped', () => {
    const context = contextWith('你好', [
      ['a', 1, 2, ['刚说过']],
      ['b', 1, 3, ['也说过']],
    ]);
    const candidates = selectCandidates(context, input({ threshold: 1, recentRaws: new Set(['刚说过', '也说过']) }));
    assert.deepEqual(keys(candidates), ['b']);
  });

  it('an answer of one other group is parked; a second group releases both, merged', () => {
    const one = contextWith('你好', [['x', 2, 3, ['二组']]]);
    assert.deepEqual(keys(selectCandidates(one, input())), []);
    const two = contextWith('你好', [
      ['x', 2, 3, ['二组']],
      ['x', 3, 4, ['三组']],
    ]);
    const candidates = selectCandidates(two, input());
    assert.deepEqual(keys(candidates), ['x']);
    assert.equal(candidates[0]?.count, 7);
    assert.deepEqual(candidates[0]?.messages, ['三组', '二组']);
    assert.equal(candidates[0]?.origin, 'cross-group');
    assert.deepEqual(keys(selectCandidates(one, input({ crossGroupThreshold: 1 }))), ['x']);
  });

  it('other groups: answers below the threshold give no evidence; mentions are never used', () => {
    const context = contextWith('你好', [
      ['x', 2, 1],
      ['x', 3, 4],
      ['at', 2, 5, ['[CQ:at,qq=9] 你']],
      ['at', 3, 5, ['[CQ:at,qq=9] 你']],
    ]);
    assert.deepEqual(keys(selectCandidates(context, input())), []);
  });

  it('a community answer (group 0) stands on its own once its count reaches the threshold', () => {
    const context = contextWith('你好', [
      ['c', 0, 3, ['社区']],
      ['low', 0, 2],
    ]);
    const candidates = selectCandidates(context, input());
    assert.deepEqual(keys(candidates), ['c']);
    assert.equal(candidates[0]?.origin, 'community');
    // It also counts as one group of evidence for another group's same answer.
    const shared = contextWith('你好', [
      ['y', 2, 3, ['二组']],
      ['y', 0, 3, ['社区']],
    ]);
    const merged = selectCandidates(shared, input());
    assert.deepEqual(keys(merged), ['y']);
    assert.equal(merged[0]?.count, 6);
    assert.equal(merged[0]?.origin, 'cross-group');
  });

  it('merging copies: a frozen snapshot is not changed, same-group answers come first in origin', () => {
    const context = contextWith('你好', [
      ['m', 1, 3, ['一']],
      ['m', 2, 3, ['二']],
      ['m', 3, 3, ['三']],
    ]);
    for (const answer of context.answers) Object.freeze(Object.freeze(answer).messages);
    Object.freeze(context.answers);
    const [merged] = selectCandidates(Object.freeze(context), input());
    assert.equal(merged?.count, 9);
    assert.deepEqual([...(merged?.messages ?? [])].sort(), ['一', '三', '二'].sort());
    assert.equal(merged?.origin, 'group');
    assert.deepEqual(context.answers[0]?.messages, ['一']);
    assert.equal(context.answers[0]?.count, 3);
  });

  it('topicality counts recent-topic occurrences of each keyword token (not for CQ keywords)', () => {
    const context = contextWith('你好', [
      ['猫 狗', 1, 3],
      ['[CQ:face,id=1]', 1, 3],
    ]);
    const topics: Record<string, number> = { 猫: 2, 狗: 1, '[CQ:face,id=1]': 5 };
    const candidates = selectCandidates(context, input({ topicCount: (token) => topics[token] ?? 0 }));
    assert.deepEqual(
      candidates.map((c) => c.topical),
      [3, 0],
    );
  });
});

describe('choice (docs/rules.md#rep-reply)', () => {
  const candidate = (keywords: string, count: number, messages: string[], topical = 0): ReplyCandidate => ({
    keywords,
    count,
    topical,
    messages,
    origin: 'group',
  });
  const choice = (overrides: Partial<ChoiceInput> = {}): ChoiceInput => ({
    random: seededRandom(1),
    nicknames: ['chorus'],
    splitProbability: 0,
    recentReplyKeywords: new Set(),
    recentTexts: new Set(),
    ...overrides,
  });

  it('weights are the count capped at 10 plus topicality × 10000', () => {
    const candidates = [candidate('a', 1000, ['A']), candidate('b', 10, ['B'])];
    assert.equal(chooseReply(candidates, choice({ random: sequence(0.49) }))?.answerKeywords, 'a');
    assert.equal(chooseReply(candidates, choice({ random: sequence(0.51) }))?.answerKeywords, 'b');
    const topical = [candidate('a', 10, ['A']), candidate('b', 1, ['B'], 1)];
    assert.equal(chooseReply(topical, choice({ random: sequence(0.01) }))?.answerKeywords, 'b');
  });

  it('no candidate, or only recently used answer keywords: no reply', () => {
    assert.equal(chooseReply([], choice()), null);
    assert.equal(chooseReply([candidate('a', 5, ['A'])], choice({ recentReplyKeywords: new Set(['a']) })), null);
  });

  it('a text said lately is not said again; none left is no reply', () => {
    const candidates = [candidate('a', 5, ['A1', 'A2'])];
    for (let seed = 0; seed < 20; seed++) {
      const got = chooseReply(candidates, choice({ random: seededRandom(seed), recentTexts: new Set(['A1']) }));
      assert.deepEqual(got?.texts, ['A2']);
    }
    assert.equal(chooseReply(candidates, choice({ recentTexts: new Set(['A1', 'A2']) })), null);
  });

  it('a leading nickname is stripped; nothing left is no reply', () => {
    assert.deepEqual(chooseReply([candidate('a', 5, ['Chorus 早'])], choice())?.texts, ['早']);
    assert.equal(chooseReply([candidate('a', 5, ['chorus'])], choice()), null);
  });

  it('splits at 1-3 full-width commas with the split probability, never CQ text', () => {
    const one = [candidate('a', 5, ['早，上，好'])];
    assert.deepEqual(chooseReply(one, choice({ splitProbability: 1 }))?.texts, ['早', '上', '好']);
    assert.deepEqual(chooseReply(one, choice({ splitProbability: 0 }))?.texts, ['早，上，好']);
    const four = [candidate('a', 5, ['一，二，三，四，五'])];
    assert.deepEqual(chooseReply(four, choice({ splitProbability: 1 }))?.texts, ['一，二，三，四，五']);
    const cq = [candidate('a', 5, ['看，[CQ:face,id=1]'])];
    assert.deepEqual(chooseReply(cq, choice({ splitProbability: 1 }))?.texts, ['看，[CQ:face,id=1]']);
  });
});
