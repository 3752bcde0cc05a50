/**
 * The silence command: a group's owner or admin, or one of the account's bot admins (console
 * bot-configs `admins`, treated as group admins), addresses the bot by name or mention with
 * 「闭嘴」/「安静」 and it stops answering in that group for SILENCE_MS (it keeps learning);
 * 「说话」 lets it answer again at once. Anyone else is ignored.
 */
import type { GroupChatMessage } from '../domain/chat.ts';
import { stripNickname } from './cq-text.ts';
import type { ReplyRecords } from './reply-records.ts';

export type SilenceCommand = 'silence' | 'resume';

export const SILENCE_MS = 30 * 60_000;
export const SILENCE_ACK = '好的，我先安静一会儿。';
export const RESUME_ACK = '我回来啦。';

const SILENCE_WORDS = new Set(['闭嘴', '安静', '别说话']);
const RESUME_WORDS = new Set(['说话', '可以说话了']);

/** The command in a message addressed to the bot (`addressedByMention`, or a leading nickname). */
export function parseSilenceCommand(
  plainText: string,
  nicknames: readonly string[],
  addressedByMention: boolean,
): SilenceCommand | null {
  const rest = stripNickname(plainText, nicknames);
  if (rest === plainText && !addressedByMention) return null;
  const word = rest.trim().replace(/[。！!.]+$/u, '');
  if (SILENCE_WORDS.has(word)) return 'silence';
  if (RESUME_WORDS.has(word)) return 'resume';
  return null;
}

/** Group owners and admins, and the account's bot admins. */
export function maySilence(role: string, userId: number, botAdmins: ReadonlySet<number>): boolean {
  return role === 'owner' || role === 'admin' || botAdmins.has(userId);
}

export interface SilenceDeps {
  records: Pick<ReplyRecords, 'quiet'>;
  /** The account's bot admins. */
  admins: ReadonlySet<number>;
  /** Sends the acknowledgement in the group (not awaited). */
  send: (text: string) => void;
}

/** Silences or resumes the bot in the message's group when the sender may; says which it was. */
export function obeySilence(
  message: Pick<GroupChatMessage, 'groupId' | 'selfId' | 'userId' | 'senderRole'>,
  command: SilenceCommand,
  deps: SilenceDeps,
): 'silence-command' | 'silence-refused' {
  if (!maySilence(message.senderRole, message.userId, deps.admins)) return 'silence-refused';
  deps.records.quiet(message.groupId, message.selfId, command === 'silence' ? SILENCE_MS : 0);
  deps.send(command === 'silence' ? SILENCE_ACK : RESUME_ACK);
  return 'silence-command';
}
