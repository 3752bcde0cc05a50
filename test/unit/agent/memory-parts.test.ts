/**
 * The small parts of the member memory: 「记住我」/「忘记我」 recognised only when addressed
 * (src/repeater/member-command.ts), what of an excerpt is kept (no QQ numbers, aliases made
 * unique; src/agent/memory/excerpt.ts), and a model's answer checked and attributed by alias
 * (src/agent/memory/fact-extraction.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { storedExcerpt } from '../../../src/agent/memory/excerpt.ts';
import { parseExtraction } from '../../../src/agent/memory/fact-extraction.ts';
import { parseMemberCommand } from '../../../src/repeater/member-command.ts';

describe('member memory parts', () => {
  it('recognises 记住我 and 忘记我 only when the bot is addressed', () => {
    assert.equal(parseMemberCommand('小合 记住我', ['小合'], false), 'remember');
    assert.equal(parseMemberCommand('小合，忘记我。', ['小合'], false), 'forget');
    assert.equal(parseMemberCommand(' 忘记我', ['小合'], true), 'forget');
    assert.equal(parseMemberCommand('记住我', ['小合'], false), null, 'not addressed');
    assert.equal(parseMemberCommand('小合 记住我说的话', ['小合'], false), null, 'not the command itself');
  });

  it('keeps aliases, never a number, of the consented members only', () => {
    const kept = storedExcerpt(
      {
        selfId: 1,
        groupId: 2,
        consentedUserIds: [11111111, 22222222],
        aliasByUserId: { 11111111: '阿明', 22222222: '阿明', 33333333: '路人' },
        lines: [
          { speaker: '阿明', text: '[CQ:at,qq=22222222] 你好 [CQ:image,file=abc.jpg]', time: 1 },
          { speaker: '33333333', text: '[CQ:at,qq=33333333] 我的号 33333333', time: 2 },
          { speaker: 'bot', text: '[CQ:face,id=1]', time: 3 },
        ],
      },
      [11111111, 22222222],
    );
    assert.deepEqual(kept?.aliases, { 11111111: '阿明', 22222222: '阿明#2' });
    assert.deepEqual(
      kept?.lines.map((line) => `${line.speaker}: ${line.text}`),
      ['阿明: @阿明#2 你好 [image]', '[数字]: @某人 我的号 [数字]', 'bot: [face]'],
    );
  });

  it('checks the answer and attributes facts by alias', () => {
    const excerpt = { aliases: { 11111111: '阿明' }, lines: [] };
    assert.deepEqual(parseExtraction('{"facts":[{"member":"@阿明","fact":" 喜欢  跑步 ","confidence":7}]}', excerpt), [
      { userId: 11111111, content: '喜欢 跑步', confidence: 1 },
    ]);
    assert.deepEqual(parseExtraction('{"facts":[{"member":"别人","fact":"x"},{"member":"阿明"}]}', excerpt), []);
    assert.throws(() => parseExtraction('no json here', excerpt), /no JSON/);
    assert.throws(() => parseExtraction('{"fact":[]}', excerpt), /facts/);
    assert.throws(() => parseExtraction(null, excerpt), /no text/);
  });
});
