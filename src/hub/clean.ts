/**
 * The cleaning rule (reference "Cleaning rule"): NUL removed, every [CQ:…] segment removed
 * (case-insensitive), whitespace collapsed and trimmed. Applied to messages on write, to answer
 * keywords and messages on read, and to hot-word labels.
 */
import { LOCAL_HOT_KEYWORDS } from '../shared/limits.ts';
import { plainMessageText } from '../shared/text.ts';

/** `早啊[CQ:face,id=178]呀` → `早啊呀`: the bot's own `plainMessageText`, the same rule. */
export const cleanText = plainMessageText;

/** Cleaned, non-empty, distinct messages in their first-seen order. */
export function cleanMessages(messages: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const message of messages) {
    const cleaned = cleanText(message);
    if (cleaned !== '') seen.add(cleaned);
  }
  return [...seen];
}

/**
 * A CQ segment that names a person or points at one (a mention, a quoted reply, a shared contact).
 * Keywords are keyed by their exact text, so they cannot be cleaned on write; a contribution whose
 * keywords carry such a segment is not stored at all (de-identification, DECISIONS.md).
 */
const PERSON_SEGMENT = /\[CQ:(?:at|reply|contact)[,\]]/i;

export function identifiesPerson(text: string): boolean {
  return PERSON_SEGMENT.test(text);
}

/** A hot-word answer text: longer than 120 characters (code points) becomes the first 117 and '…'. */
export function hotMessage(text: string): string {
  const { messageMaxChars, messageCutChars } = LOCAL_HOT_KEYWORDS;
  if (text.length <= messageMaxChars) return text;
  const chars = [...text];
  return chars.length <= messageMaxChars ? text : `${chars.slice(0, messageCutChars).join('')}…`;
}
