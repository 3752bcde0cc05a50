// The prompt of a model answer (docs/agent.md#the-prompt): a Chinese system message (the bot is a
// group member who answers briefly), the group's style hints and what the bot remembers of the
// member, then the recent lines by alias and the message that addressed the bot. No QQ number.

import type { ModelMessage } from '../model.ts';
import type { ExcerptLine } from '../parts.ts';

export interface PromptParts {
  /** What the group calls the bot (its first nickname), or '' for none. */
  readonly botName: string;
  readonly lines: readonly ExcerptLine[];
  /** The alias of the member who addressed the bot, and what they said (numbers stripped). */
  readonly asker: string;
  readonly question: string;
  readonly styleHints: readonly string[];
  readonly facts: readonly string[];
}

/** Longest answer kept (characters): a group member says a line or two. */
export const ANSWER_MAX_CHARS = 200;

export function chatPrompt(parts: PromptParts): ModelMessage[] {
  const name = parts.botName === '' ? '' : `，大家叫你「${parts.botName}」`;
  const system = [
    `你是这个QQ群里的一名普通群友${name}。`,
    '像群友一样说话：口语、简短，通常一句话，最多两三句，不超过五十个字；不用Markdown，不列清单，不自称AI或助手。',
    '群聊记录里的名字是群友的昵称或代号；不要编造别人的个人信息。',
  ];
  if (parts.styleHints.length > 0) {
    system.push(`这个群常说的话（合适时自然地用上，不要硬套）：${parts.styleHints.map((p) => `「${p}」`).join('、')}`);
  }
  if (parts.facts.length > 0) {
    system.push(`关于${parts.asker}你记得：${parts.facts.join('；')}`);
  }
  const history = parts.lines.map((line) => `${line.speaker === 'bot' ? '你' : line.speaker}：${line.text}`);
  const user = [
    history.length > 0 ? `最近的群聊：\n${history.join('\n')}` : '',
    `${parts.asker} 对你说：${parts.question === '' ? '（叫了你一声）' : parts.question}`,
    '请直接回复这句话。',
  ]
    .filter((part) => part !== '')
    .join('\n\n');
  return [
    { role: 'system', content: system.join('\n') },
    { role: 'user', content: user },
  ];
}

/**
 * The model's text as the bot may say it: no CQ code (the model cannot @everyone or send a
 * picture), no "name:" prefix, no surrounding quotes, blank lines squeezed, at most ANSWER_MAX_CHARS.
 */
export function sayable(text: string | null, botName: string): string {
  let said = (text ?? '')
    .replace(/\[CQ:[^\]]*\]?/g, '')
    .replace(/<think>[\s\S]*?<\/think>/g, '')
    .trim();
  for (const prefix of ['你：', '你:', botName === '' ? null : `${botName}：`, botName === '' ? null : `${botName}:`]) {
    if (prefix !== null && said.startsWith(prefix)) said = said.slice(prefix.length).trim();
  }
  if (/^[「"“].*[」"”]$/su.test(said)) said = said.slice(1, -1).trim();
  said = said.replace(/\n{2,}/g, '\n');
  const chars = [...said];
  return chars.length > ANSWER_MAX_CHARS ? chars.slice(0, ANSWER_MAX_CHARS).join('') : said;
}
