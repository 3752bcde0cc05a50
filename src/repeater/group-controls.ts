/**
 * The per-group and per-user controls as the repeater sees them (docs/guide/groups.md):
 * read from memory on every message, never from the database.
 */
import {
  defaultGroupConfig,
  defaultUserConfig,
  type GroupConfig,
  type GroupConfigPatch,
  type UserConfig,
} from '../domain/chat-controls.ts';
import type { DecisionReason } from './decision.ts';

export interface ChatControls {
  group(groupId: number): GroupConfig;
  user(userId: number): UserConfig;
  /** A chat command's change: applied in memory at once, then stored and told to other processes. */
  saveGroup(groupId: number, patch: GroupConfigPatch): void;
}

/** Every group and user as default (no controls wired). */
export const NO_CONTROLS: ChatControls = {
  group: defaultGroupConfig,
  user: defaultUserConfig,
  saveGroup: () => undefined,
};

/**
 * Why a message is neither learned nor answered because of who sent it or where, or null.
 * Another bot's messages are not counted for repeats either: the caller stops before the window.
 */
export function controlGate(group: GroupConfig, user: UserConfig): DecisionReason | null {
  if (user.bot) return 'bot-user';
  if (user.banned) return 'user-banned';
  if (group.blockedUserIds.includes(user.userId)) return 'blocked-user';
  return null;
}

/** Whether the bot may not answer in the group now (switched off or silenced). */
export function replyBlocked(group: GroupConfig, nowSec: number): DecisionReason | null {
  if (!group.reply) return 'reply-off';
  if (group.silenceUntil > nowSec) return 'silenced';
  return null;
}
