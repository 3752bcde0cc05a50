/**
 * A group chat message as the repeater sees it, whatever protocol delivered it. The OneBot adapter
 * produces these; the repeater consumes them (the composition root connects the two).
 */
export interface GroupChatMessage {
  /** The bot account that received it. */
  selfId: number;
  groupId: number;
  userId: number;
  messageId: number;
  /** Unix seconds. */
  time: number;
  /** CQ-coded text (OneBot v11 string form), CQ-escaped as the protocol specifies. */
  rawMessage: string;
  /** The text segments only, unescaped. */
  plainText: string;
  senderName: string;
  /** owner | admin | member, when the implementation says. */
  senderRole: 'owner' | 'admin' | 'member' | 'unknown';
  /** The message this one quotes ([CQ:reply,id=N]), if any. */
  replyToMessageId: number | null;
  /** Whether the message @-mentions this bot ([CQ:at,qq=selfId]). */
  mentionsSelf: boolean;
  /** Its pictures with their download URLs for this sighting (absent: none), for the media cache. */
  pictures?: readonly ChatPicture[];
}

/** A picture in a message: its stable identity (the stored `file`) and where to fetch it now. */
export interface ChatPicture {
  readonly file: string;
  readonly url: string;
}

/**
 * A send the platform refused for a media reason (a picture it could no longer find or fetch):
 * not the text's fault, so never a reason to ban it (docs/rules.md#bans). The adapter marks such
 * errors with `mediaFailure: true`.
 */
export function isMediaFailure(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { mediaFailure?: unknown }).mediaFailure === true;
}

/** An admin or owner recalled (deleted) a message in a group. */
/**
 * A mute in a group (OneBot `group_ban` notice): of `userId`, or of the whole group when `userId`
 * is 0. `durationSec` 0 lifts it; negative: until lifted (a whole-group mute has no end).
 */
export interface GroupMute {
  selfId: number;
  groupId: number;
  userId: number;
  durationSec: number;
}

export interface GroupRecall {
  selfId: number;
  groupId: number;
  /** Whose message it was. */
  userId: number;
  operatorId: number;
  messageId: number;
  time: number;
}

/** A friend or group-join request, kept for the console (a later issue handles them). */
export interface ChatRequest {
  selfId: number;
  kind: 'friend' | 'group';
  subType: string;
  userId: number;
  groupId: number | null;
  comment: string;
  flag: string;
  time: number;
}
