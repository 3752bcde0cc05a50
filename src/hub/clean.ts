/**
 * Display helpers of the hub. What may be stored and served at all is decided by the
 * de-identification rule shared with the bot (src/domain/deidentify.ts).
 */
import { LOCAL_HOT_KEYWORDS } from '../shared/limits.ts';

/** A hot-word answer text: longer than 120 characters (code points) becomes the first 117 and '…'. */
export function hotMessage(text: string): string {
  const { messageMaxChars, messageCutChars } = LOCAL_HOT_KEYWORDS;
  if (text.length <= messageMaxChars) return text;
  const chars = [...text];
  return chars.length <= messageMaxChars ? text : `${chars.slice(0, messageCutChars).join('')}…`;
}
