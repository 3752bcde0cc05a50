/**
 * The member memory commands (docs/agent-memory.md): a member addresses the bot by name or mention
 * with 「记住我」 (the bot may keep facts about them) or 「忘记我」 (it deletes every fact and the
 * consent). Anyone may give them, for themselves only. The agent memory obeys them and words the
 * answer; the repeater only recognises them and sends the answer.
 */
import type { GroupChatMessage } from '../domain/chat.ts';
import { stripNickname } from './cq-text.ts';

export type MemberCommand = 'remember' | 'forget';

const REMEMBER_WORDS = new Set(['记住我', '请记住我']);
const FORGET_WORDS = new Set(['忘记我', '忘掉我', '请忘记我']);

/** The command in a message addressed to the bot (`addressedByMention`, or a leading nickname). */
export function parseMemberCommand(
  plainText: string,
  nicknames: readonly string[],
  addressedByMention: boolean,
): MemberCommand | null {
  const rest = stripNickname(plainText, nicknames);
  if (rest === plainText && !addressedByMention) return null;
  const word = rest
    .trim()
    .replace(/^[，,]\s*/u, '')
    .replace(/[。！!.~～]+$/u, '');
  if (REMEMBER_WORDS.has(word)) return 'remember';
  if (FORGET_WORDS.has(word)) return 'forget';
  return null;
}

/** Obeys a member command; answers what the bot says in the group (Chinese), or null for nothing. */
export interface MemberCommandHandler {
  obey(message: GroupChatMessage, command: MemberCommand): Promise<string | null>;
}
