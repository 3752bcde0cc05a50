/**
 * One group's past messages offered to learning in the order they were said (learning from
 * history, docs/guide/groups.md#learning-from-history): the same exclusions as a live message
 * (the bots' own messages, a banned or switched-off group, banned, blocked and bot users,
 * commands, ignored users), the same learning queue and so the same guard, and never a reply.
 * Each message's predecessor is the one before it in the history, as the live window would have
 * had it. A message the live path already saw here, or another process claimed
 * (docs/rules.md#fleet-claims), is not learned again.
 */
import type { GroupChatMessage } from '../domain/chat.ts';
import type { GroupConfig, UserConfig } from '../domain/chat-controls.ts';
import { carriedCommands } from './commands.ts';
import { claimKey, type ClaimVerdict } from './fleet-claim.ts';
import { controlGate } from './group-controls.ts';
import { describeText, type KeywordExtractor } from './keywords.ts';
import { offerLearning } from './message-log-buffer.ts';
import type { MessageWindow } from './message-window.ts';
import type { LearningSink } from './repeater-options.ts';

/** What happened to one message: learned, or why not. */
export type HistoryOutcome =
  | 'learned'
  | 'self'
  | 'group-off'
  | 'account-off'
  | 'user-excluded'
  | 'command'
  | 'seen-live'
  | 'claimed-elsewhere'
  | 'ignored-user'
  | 'not-learnable';

/** The repeater's state a history learner reads (Repeater.historyDeps). */
export interface HistoryLearnDeps {
  botIds(): ReadonlySet<number>;
  group(groupId: number): GroupConfig;
  user(userId: number): UserConfig;
  accountEnabled(selfId: number): boolean;
  ignored(userId: number): boolean;
  nicknames(selfId: number): readonly string[];
  keywords: KeywordExtractor;
  learning: LearningSink;
  window: MessageWindow;
  claim?: (key: string, groupId: number) => Promise<ClaimVerdict> | undefined;
}

export class HistoryLearner {
  #predecessor: { rawMessage: string; keywords: string } | null = null;

  constructor(private readonly deps: HistoryLearnDeps) {}

  async offer(message: GroupChatMessage): Promise<HistoryOutcome> {
    const deps = this.deps;
    const { groupId, selfId, userId } = message;
    if (userId === selfId || deps.botIds().has(userId)) return 'self';
    const group = deps.group(groupId);
    if (group.banned || !group.learn) return 'group-off';
    if (!deps.accountEnabled(selfId)) return 'account-off';
    if (controlGate(group, deps.user(userId))) return 'user-excluded';
    const text = describeText(message.rawMessage, message.plainText, deps.keywords);
    if (carriedCommands(message, text, deps.nicknames(selfId))) return 'command';
    const current = { rawMessage: text.rawMessage, keywords: text.keywords };
    if (deps.window.hasSeen(groupId, message.messageId, `${userId}|${message.time}|${text.rawMessage}`)) {
      this.#predecessor = current;
      return 'seen-live';
    }
    const claim = deps.claim?.(claimKey(message), groupId);
    const elsewhere = claim !== undefined && (await claim) === 'lost';
    const predecessor = this.#predecessor;
    this.#predecessor = current;
    if (elsewhere) return 'claimed-elsewhere';
    if (deps.ignored(userId)) return 'ignored-user';
    return offerLearning(deps.learning, message, text, predecessor) === 'queued' ? 'learned' : 'not-learnable';
  }
}
