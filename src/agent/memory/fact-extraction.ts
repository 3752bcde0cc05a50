/**
 * Turning a stored excerpt into facts with the model (docs/agent-memory.md): the prompt names the
 * consented members by alias only, asks for short stable facts as JSON, and the answer is
 * validated and attributed back to members by alias; anything else in it is dropped.
 */
import type { ModelMessage } from '../model.ts';
import type { StoredExcerpt } from '../../store/agent-memory-tables.ts';

export const EXTRACTION_LIMITS = { factsPerExcerpt: 5, factChars: 120 } as const;

export interface ExtractedFact {
  readonly userId: number;
  readonly content: string;
  readonly confidence: number;
}

const INSTRUCTIONS = [
  '你在帮一个QQ群聊机器人整理它对群成员的长期记忆。',
  '只从对话中提取关于"成员"列表里这些人的、简短且长期稳定的事实（比如爱好、职业、所在城市、喜欢的称呼），',
  '不要提取一时的情绪、玩笑、别人的隐私或关于其他人的信息；没有就返回空列表。',
  '只回答 JSON，格式：{"facts":[{"member":"成员的称呼","fact":"一句话事实","confidence":0到1的小数}]}。',
].join('');

export function extractionPrompt(excerpt: StoredExcerpt): ModelMessage[] {
  const members = Object.values(excerpt.aliases);
  const conversation = excerpt.lines.map((line) => `${line.speaker}: ${line.text}`).join('\n');
  return [
    { role: 'system', content: INSTRUCTIONS },
    { role: 'user', content: `成员：${members.join('、')}\n对话：\n${conversation}` },
  ];
}

function jsonOf(text: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/u.exec(text);
  const body = (fenced?.[1] ?? text).trim();
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  if (start < 0 || end < start) throw new Error('the answer holds no JSON object');
  return JSON.parse(body.slice(start, end + 1));
}

/**
 * The facts of a model's answer, attributed by alias; throws when the answer is not the JSON
 * asked for (the observation is then retried). Facts about unknown aliases are dropped.
 */
export function parseExtraction(text: string | null, excerpt: StoredExcerpt): ExtractedFact[] {
  if (text === null) throw new Error('the answer has no text');
  const answer = jsonOf(text);
  if (typeof answer !== 'object' || answer === null || !Array.isArray((answer as { facts?: unknown }).facts)) {
    throw new Error('the answer has no "facts" list');
  }
  const byAlias = new Map(Object.entries(excerpt.aliases).map(([userId, alias]) => [alias, Number(userId)]));
  const facts: ExtractedFact[] = [];
  for (const item of (answer as { facts: unknown[] }).facts) {
    if (typeof item !== 'object' || item === null) continue;
    const { member, fact, confidence } = item as Record<string, unknown>;
    if (typeof member !== 'string' || typeof fact !== 'string') continue;
    const userId = byAlias.get(member.trim().replace(/^@/u, ''));
    const content = fact.replace(/\s+/gu, ' ').trim();
    if (userId === undefined || content === '' || content.length > EXTRACTION_LIMITS.factChars) continue;
    // A fact carrying a number as long as a QQ number is not kept (it may be someone's).
    if (/\d{5,}/u.test(content)) continue;
    const sure = typeof confidence === 'number' && Number.isFinite(confidence) ? confidence : 0.5;
    facts.push({ userId, content, confidence: Math.min(1, Math.max(0, sure)) });
    if (facts.length >= EXTRACTION_LIMITS.factsPerExcerpt) break;
  }
  return facts;
}
