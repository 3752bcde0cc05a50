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
