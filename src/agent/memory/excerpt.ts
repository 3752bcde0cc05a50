/**
 * What of a conversation the memory keeps and shows the model (docs/agent-memory.md): speakers by
 * alias only, message codes reduced to their kind, and any run of digits as long as a QQ number
 * replaced, so no member's number is stored in the excerpt text or sent to the model. An @ of a
 * consented member becomes their alias; an @ of anyone else becomes 「某人」.
 */
import type { ConversationExcerpt } from '../parts.ts';
import type { StoredExcerpt } from '../../store/agent-memory-tables.ts';

/** At most this many lines of one excerpt are kept, the newest; each line at most this long. */
export const EXCERPT_LIMITS = { lines: 30, lineChars: 300, aliasChars: 32 } as const;

const AT = /\[CQ:at,qq=(\d+|all)[^\]]*\]/gu;
const CQ = /\[CQ:([a-z_]+)[^\]]*\]/gu;
/** QQ numbers have 5 to 11 digits; longer runs (ids, phone numbers) go too. */
const NUMBER_RUN = /\d{5,}/gu;

export function redactNumbers(text: string): string {
  return text.replace(NUMBER_RUN, '[数字]');
}

function cleanAlias(alias: string, fallback: string): string {
  const clean = redactNumbers(alias.replace(/[\r\n]+/gu, ' ').trim()).slice(0, EXCERPT_LIMITS.aliasChars);
  return clean === '' ? fallback : clean;
}

/**
 * The excerpt as stored: only the consented members in `userIds`, their aliases made unique,
 * lines with numbers removed. Null when no line is left.
 */
export function storedExcerpt(excerpt: ConversationExcerpt, userIds: readonly number[]): StoredExcerpt | null {
  const aliases: Record<string, string> = {};
  const taken = new Set<string>(['bot']);
  userIds.forEach((userId, index) => {
    let alias = cleanAlias(excerpt.aliasByUserId[userId] ?? '', `成员${index + 1}`);
    if (taken.has(alias)) alias = `${alias}#${index + 1}`;
    taken.add(alias);
    aliases[String(userId)] = alias;
  });
  const lines = excerpt.lines.slice(-EXCERPT_LIMITS.lines).flatMap((line) => {
    const text = redactNumbers(
      line.text
        .replace(AT, (_, qq: string) => (aliases[qq] !== undefined ? `@${aliases[qq]}` : '@某人'))
        .replace(CQ, (_, kind: string) => `[${kind}]`),
    )
      .trim()
      .slice(0, EXCERPT_LIMITS.lineChars);
    return text === '' ? [] : [{ speaker: cleanAlias(line.speaker, '某人'), text, time: line.time }];
  });
  return lines.length === 0 ? null : { aliases, lines };
}
