/**
 * The commands a group message may carry, obeyed before anything is learned or answered: the ban
 * commands (docs/rules.md#bans) and the group commands (silence-command.ts). A message another
 * process of the fleet claimed still comes here (docs/rules.md#fleet-claims): the command may be
 * addressed to an account of this process.
 */
import type { TaskSet } from '../common/task-set.ts';
import type { ActivityRecorder } from '../domain/activity.ts';
import type { GroupChatMessage } from '../domain/chat.ts';
import { parseBanCommand, type BanCommand } from './ban-command.ts';
import type { BanFlow } from './ban-flow.ts';
import { mentionsAccount } from './cq-text.ts';
import { skipped, type Verdict } from './decision.ts';
import type { MessageText } from './keywords.ts';
import { parseMemberCommand, type MemberCommand, type MemberCommandHandler } from './member-command.ts';
import { obeyGroupCommand, parseGroupCommand, type GroupCommand, type GroupCommandDeps } from './silence-command.ts';

export interface CommandDeps {
  banFlow: BanFlow;
  group: () => GroupCommandDeps;
  /** The member memory's 「记住我」/「忘记我」 (agent memory); absent: not recognised. */
  member?: { handler: MemberCommandHandler; send: (text: string) => void };
}

/** The commands a message carries for the receiving account, parsed without waiting on anything. */
export interface CarriedCommands {
  ban: BanCommand | null;
  group: GroupCommand | null;
  member: MemberCommand | null;
}

/**
 * What the message carries, or null when it carries no command. Synchronous on purpose: a message
 * without a command goes on to join the group's window with no await in between, so a group's
 * messages join it in the order they arrived (docs/rules.md#fleet-claims).
 */
export function carriedCommands(
  message: GroupChatMessage,
  text: MessageText,
  nicknames: readonly string[],
): CarriedCommands | null {
  const ban = parseBanCommand(message.plainText, text.rawMessage, message.replyToMessageId, nicknames);
  const addressed = message.mentionsSelf || mentionsAccount(text.rawMessage, message.selfId);
  const group = parseGroupCommand(message.plainText, nicknames, addressed);
  const member = parseMemberCommand(message.plainText, nicknames, addressed);
  return ban || group || member ? { ban, group, member } : null;
}

/** The verdict of the commands carried, or null when none of them was for us after all. */
export async function obeyCommands(
  message: GroupChatMessage,
  carried: CarriedCommands,
  deps: CommandDeps,
): Promise<Verdict | null> {
  if (carried.ban) {
    const outcome = await deps.banFlow.command(message, carried.ban);
    if (outcome.banned) return { outcome: 'banned', reason: 'ban', answerKeywords: outcome.result.answerKeywords };
    if (outcome.reason !== 'not-addressed') return skipped('ban-no-target');
  }
  if (carried.member && deps.member) {
    const answer = await deps.member.handler.obey(message, carried.member);
    if (answer !== null) deps.member.send(answer);
    return skipped('memory-command');
  }
  return carried.group ? skipped(obeyGroupCommand(message, carried.group, deps.group())) : null;
}

/** Records an obeyed group command with the member who gave it (docs/rules.md#activity-log), not awaited. */
export function commandRecorder(
  activity: ActivityRecorder,
  message: GroupChatMessage,
  nowSec: number,
  tasks: TaskSet,
): NonNullable<GroupCommandDeps['record']> {
  return (kind, params) =>
    tasks.run('group-command-activity', () =>
      activity.record({
        kind,
        actor: { kind: 'chat', userId: message.userId, name: message.senderName },
        groupId: message.groupId,
        time: nowSec,
        params: { ...params, bot_id: message.selfId },
      }),
    );
}
