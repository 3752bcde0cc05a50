/**
 * What the repeater may ask of the chat platform, per bot account. Implemented by the OneBot
 * adapter; tests use a recording fake. Failures are thrown (an action failed or timed out).
 */
export interface ChatActions {
  sendGroupMessage(selfId: number, groupId: number, message: string): Promise<{ messageId: number }>;
  deleteMessage(selfId: number, messageId: number): Promise<void>;
  /** The CQ-coded text of a message, or null when the implementation no longer has it. */
  getMessage(selfId: number, messageId: number): Promise<{ rawMessage: string; userId: number } | null>;
}
