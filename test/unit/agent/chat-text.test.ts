/**
 * What the model reads and what the bot may say of its answer (src/agent/chat): speakers by name
 * or a stable alias, never a QQ number (names holding one, @-mentions, long digit runs in text);
 * the answer without CQ codes, a name prefix or quotes, and bounded; the budgets per day.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ANSWER_MAX_CHARS, sayable } from '../../../src/agent/chat/chat-prompt.ts';
import { DailyBudget } from '../../../src/agent/chat/daily-budget.ts';
import { SpeakerAliases } from '../../../src/agent/chat/speaker-aliases.ts';

const BOTS = new Set([9001]);

describe('speaker aliases', () => {
  it('names members by card or nickname, aliases names holding a number, keeps aliases stable', () => {
    const aliases = new SpeakerAliases();
    aliases.observe(1, 123456789, '小明');
    aliases.observe(1, 223456789, '阿强 123456789');
    aliases.observe(1, 323456789, '小明');
    assert.equal(aliases.aliasOf(1, 123456789, BOTS), '小明');
    const numbered = aliases.aliasOf(1, 223456789, BOTS);
    assert.match(numbered, /^群友\d+$/);
    assert.notEqual(aliases.aliasOf(1, 323456789, BOTS), '小明', 'two members never share a name');
    aliases.observe(1, 223456789, '改名了');
    assert.equal(aliases.aliasOf(1, 223456789, BOTS), numbered, 'stable for the life of the process');
    assert.equal(aliases.aliasOf(1, 9001, BOTS), 'bot');
  });

  it('turns mentions into aliases and strips every long number from text', () => {
    const aliases = new SpeakerAliases();
    aliases.observe(7, 123456789, '小明');
    const text = aliases.textFor(
      7,
      '[CQ:at,qq=123456789] 加我 2233445566 [CQ:image,file=a.jpg] [CQ:at,qq=all] 2024年',
      BOTS,
    );
    assert.equal(text, '@小明 加我 [数字] [图片] @全体成员 2024年');
    assert.doesNotMatch(text, /\d{5,}/);
    const unknown = aliases.textFor(7, '[CQ:at,qq=555666777] 在吗', BOTS);
    assert.match(unknown, /^@群友\d+ 在吗$/);
  });
});

describe('sayable answers', () => {
  it('drops CQ codes, a name prefix, quotes, think blocks, and bounds the length', () => {
    assert.equal(sayable('小合：「好呀[CQ:at,qq=all]」', '小合'), '好呀');
    assert.equal(sayable('<think>想想</think>\n\n行', ''), '行');
    assert.equal(sayable(null, ''), '');
    assert.equal([...sayable('长'.repeat(500), '')].length, ANSWER_MAX_CHARS);
  });
});

describe('daily budget', () => {
  it('refuses once a group or member budget is spent, and starts again the next day', () => {
    let day = 'd1';
    const budget = new DailyBudget(() => day);
    const limits = { groupCalls: 3, groupTokens: 0, memberCalls: 2, memberTokens: 100 };
    const tokensOnly = { groupCalls: 0, groupTokens: 0, memberCalls: 0, memberTokens: 100 };
    budget.charge(0, 1, 10, 40);
    budget.charge(0, 1, 10, 40);
    assert.deepEqual(budget.check(0, 1, 10, limits), { scope: 'member', kind: 'calls', limit: 2 });
    assert.equal(budget.check(0, 1, 11, limits), null);
    budget.charge(0, 1, 11, 70);
    assert.deepEqual(budget.check(0, 1, 12, limits), { scope: 'group', kind: 'calls', limit: 3 });
    assert.deepEqual(budget.check(0, 2, 11, limits), null, 'another group; member 11 spent 70 of 100 tokens');
    budget.charge(0, 2, 11, 40);
    assert.deepEqual(budget.check(0, 3, 11, limits), { scope: 'member', kind: 'calls', limit: 2 });
    assert.deepEqual(budget.check(0, 3, 11, tokensOnly), { scope: 'member', kind: 'tokens', limit: 100 });
    day = 'd2';
    assert.equal(budget.check(0, 1, 10, limits), null);
    assert.deepEqual(budget.today(0), { calls: 0, tokens: 0 });
  });
});
