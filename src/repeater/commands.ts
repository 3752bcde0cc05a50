/**
 * The commands a group message may carry, obeyed before anything is learned or answered: the ban
 * commands (docs/rules.md#bans) and the group commands (silence-command.ts). A message another
 * process of the fleet claimed still comes here (docs/rules.md#fleet-claims): the command may be
 * addressed to an account of this process.
 */
import type { GroupChatMessage } from '../domain/chat.ts';
import { parseBanCommand } from './ban-command.ts';
import type { BanFlow } from './ban-flow.ts';
import { mentionsAccount } from './cq-text.ts';
import { skipped, type Verdict } from './decision.ts';
import type { MessageText } from './keywords.ts';
import { obeyGroupCommand, parseGroupCommand, type GroupCommandDeps } from './silence-command.ts';

export interface CommandDeps {
  banFlow: BanFlow;
  /** The names the receiving account answers to. */
  nicknames: readonly string[];
  group: () => GroupCommandDeps;
}

/** The verdict of the command the message carries, or null when it carries none for us. */
export async function obeyCommands(
  message: GroupChatMessage,
  text: MessageText,
  deps: CommandDeps,
): Promise<Verdict | null> {
  const command = parseBanCommand(message.plainText, text.rawMessage, message.replyToMessageId, deps.nicknames);
  if (command) {
    const outcome = await deps.banFlow.command(message, command);
    if (outcome.banned) return { outcome: 'banned', reason: 'ban', answerKeywords: outcome.result.answerKeywords };
    if (outcome.reason !== 'not-addressed') return skipped('ban-no-target');
  }
  const addressed = message.mentionsSelf || mentionsAccount(text.rawMessage, message.selfId);
  const groupCommand = parseGroupCommand(message.plainText, deps.nicknames, addressed);
  return groupCommand ? skipped(obeyGroupCommand(message, groupCommand, deps.group())) : null;
}
