import type { GroupChatMessage } from '../domain/chat.ts';

/**
 * What the repeater may ask of the chat platform, per bot account. Implemented by the OneBot and
 * Milky adapters (behind src/app/chat-platforms.ts); tests use a recording fake. Failures are
 * thrown (an action failed or timed out).
 *
 * A message id is the adapter's: OneBot's `message_id` (unique per account), Milky's
 * `message_seq` (unique only within its group), which is why the calls on one message carry its
 * group as well.
 */
export interface ChatActions {
  sendGroupMessage(selfId: number, groupId: number, message: string): Promise<{ messageId: number }>;
  deleteMessage(selfId: number, messageId: number, groupId: number): Promise<void>;
  /** The CQ-coded text of a message, or null when the implementation no longer has it. */
  getMessage(
    selfId: number,
    messageId: number,
    groupId: number,
  ): Promise<{ rawMessage: string; userId: number } | null>;
}

/** A group message from the implementation's history, with its place in the group's order. */
export interface HistoryMessage {
  readonly message: GroupChatMessage;
  /** The implementation's sequence number (`message_seq`, else `message_id`): where the next older page starts. */
  readonly seq: number;
}

/**
 * One page of a group's history (`get_group_msg_history`): the messages up to and including
 * `beforeSeq` (0: the newest), oldest first; or `unsupported` when the implementation lacks the
 * action (OneBot retcode 1404), which the console says plainly.
 */
export type HistoryPage =
  | { readonly kind: 'page'; readonly messages: readonly HistoryMessage[]; readonly dropped: number }
  | { readonly kind: 'unsupported'; readonly detail: string };

export interface ChatHistory {
  /** Throws when the action failed for another reason (not in the group, timeout, no connection). */
  groupHistory(selfId: number, groupId: number, beforeSeq: number, count: number): Promise<HistoryPage>;
}
