/**
 * The group commands (docs/guide/groups.md): a group's owner or admin, or one of
 * the account's bot admins (console bot-configs `admins`, treated as group admins), addresses the
 * bot by name or mention with
 * - 「闭嘴」/「安静」/「别说话」, optionally followed by `N分钟` or `N小时`: no answers in that group until
 *   then (default 30 minutes, at most 24 hours; it keeps learning), stored as the group config's
 *   `silence_until`;
 * - 「说话」: answers again at once;
 * - 「别学了」: stops learning from that group (`learn` off); 「学习」: learns again.
 * The bot confirms briefly. Anyone else is ignored (not answered).
 */
import { DEFAULT_SILENCE_SEC, MAX_SILENCE_SEC, type GroupConfigPatch } from '../domain/chat-controls.ts';
import type { GroupChatMessage } from '../domain/chat.ts';
import { stripNickname } from './cq-text.ts';

export type GroupCommand =
  { kind: 'silence'; seconds: number } | { kind: 'resume' } | { kind: 'stop-learning' } | { kind: 'learn' };

export const RESUME_ACK = '我回来啦。';
export const STOP_LEARNING_ACK = '好的，这个群的话我先不学了。';
export const LEARN_ACK = '好的，我继续学习。';

/** The acknowledgement of a silence of `seconds`. */
export function silenceAck(seconds: number): string {
  const span = seconds % 3600 === 0 ? `${seconds / 3600} 小时` : `${Math.ceil(seconds / 60)} 分钟`;
  return `好的，我安静 ${span}。`;
}

const SILENCE = /^(?:闭嘴|安静|别说话)\s*(?:(\d{1,6})\s*(分钟|小时))?$/u;
const RESUME_WORDS = new Set(['说话', '可以说话了']);
const STOP_LEARNING_WORDS = new Set(['别学了', '不要学了']);
const LEARN_WORDS = new Set(['学习', '继续学习']);

/** The command in a message addressed to the bot (`addressedByMention`, or a leading nickname). */
export function parseGroupCommand(
  plainText: string,
  nicknames: readonly string[],
  addressedByMention: boolean,
): GroupCommand | null {
  const rest = stripNickname(plainText, nicknames);
  if (rest === plainText && !addressedByMention) return null;
  const word = rest.trim().replace(/[。！!.]+$/u, '');
  const silence = SILENCE.exec(word);
  if (silence) {
    const amount = silence[1] === undefined ? null : Number(silence[1]);
    const asked = amount === null ? DEFAULT_SILENCE_SEC : amount * (silence[2] === '小时' ? 3600 : 60);
    if (asked <= 0) return null;
    return { kind: 'silence', seconds: Math.min(asked, MAX_SILENCE_SEC) };
  }
  if (RESUME_WORDS.has(word)) return { kind: 'resume' };
  if (STOP_LEARNING_WORDS.has(word)) return { kind: 'stop-learning' };
  if (LEARN_WORDS.has(word)) return { kind: 'learn' };
  return null;
}

/** Group owners and admins, and the account's bot admins. */
export function maySilence(role: string, userId: number, botAdmins: ReadonlySet<number>): boolean {
  return role === 'owner' || role === 'admin' || botAdmins.has(userId);
}

export interface GroupCommandDeps {
  /** The account's bot admins. */
  admins: ReadonlySet<number>;
  /** Unix seconds now. */
  nowSec: number;
  /** Applies the change to the group config (in memory at once, then stored; not awaited). */
  save: (groupId: number, patch: GroupConfigPatch) => void;
  /** Sends the acknowledgement in the group (not awaited). */
  send: (text: string) => void;
  /** Records the obeyed command in the activity log (not awaited; docs/rules.md#activity-log). */
  record?: (kind: 'silence' | 'resume' | 'learn_off' | 'learn_on', params: Record<string, number>) => void;
}

export type GroupCommandOutcome = 'silence-command' | 'silence-refused' | 'learn-command' | 'learn-refused';

/** Applies the command to the message's group when the sender may; says which it was. */
export function obeyGroupCommand(
  message: Pick<GroupChatMessage, 'groupId' | 'userId' | 'senderRole'>,
  command: GroupCommand,
  deps: GroupCommandDeps,
): GroupCommandOutcome {
  const learning = command.kind === 'learn' || command.kind === 'stop-learning';
  if (!maySilence(message.senderRole, message.userId, deps.admins)) {
    return learning ? 'learn-refused' : 'silence-refused';
  }
  switch (command.kind) {
    case 'silence':
      deps.save(message.groupId, { silenceUntil: deps.nowSec + command.seconds });
      deps.send(silenceAck(command.seconds));
      deps.record?.('silence', { seconds: command.seconds, until: deps.nowSec + command.seconds });
      break;
    case 'resume':
      deps.save(message.groupId, { silenceUntil: 0 });
      deps.send(RESUME_ACK);
      deps.record?.('resume', {});
      break;
    case 'stop-learning':
      deps.save(message.groupId, { learn: false });
      deps.send(STOP_LEARNING_ACK);
      deps.record?.('learn_off', {});
      break;
    case 'learn':
      deps.save(message.groupId, { learn: true });
      deps.send(LEARN_ACK);
      deps.record?.('learn_on', {});
      break;
  }
  return learning ? 'learn-command' : 'silence-command';
}
