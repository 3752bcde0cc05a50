/**
 * Milky event frames (`{ time, self_id, event_type, data }`) checked and turned into the domain's
 * chat values; anything else is ignored, and a frame of the wrong shape is a problem the caller
 * logs and drops (docs/rules.md#style-bad-input).
 */
import type { ChatRequest, GroupChatMessage, GroupRecall } from '../domain/chat.ts';
import { mentions, plainTextOf, renderCq, replyIdOf } from '../onebot/index.ts';
import { friendRequestFlag, groupRequestFlag, invitationFlag } from './requests.ts';
import { SegmentShapeError, segmentsToCq } from './segments.ts';

export type MilkyFrame =
  | { readonly kind: 'group_message'; readonly message: GroupChatMessage; readonly sentBySelf: boolean }
  | { readonly kind: 'group_recall'; readonly recall: GroupRecall }
  /** A friend request, a request to join a group, or the account invited into a group. */
  | { readonly kind: 'request'; readonly request: ChatRequest }
  /** The implementation says the account went offline (`bot_offline`). */
  | { readonly kind: 'offline'; readonly reason: string }
  | { readonly kind: 'ignored'; readonly what: string }
  | { readonly kind: 'problem'; readonly field: string; readonly detail: string };

type Json = Record<string, unknown>;

class ShapeError extends Error {
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(detail);
  }
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function account(object: Json, key: string, field = key): number {
  const value = object[key];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new ShapeError(field, 'expected a positive integer');
  }
  return value;
}

function integer(object: Json, key: string, field = key): number {
  const value = object[key];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new ShapeError(field, 'expected a non-negative integer');
  }
  return value;
}

function text(object: Json, key: string): string {
  const value = object[key];
  return typeof value === 'string' ? value : '';
}

/** A printable, bounded name for an event kind this adapter ignores (it goes to the log). */
const kindName = (kind: string): string => kind.replace(/[^\x20-\x7e]/g, '?').slice(0, 48);

const ROLES = new Set(['owner', 'admin', 'member']);

/** One decoded JSON frame from the event stream of `selfId`'s connection. */
export function milkyFrame(frame: unknown, selfId: number, nowMs: number): MilkyFrame {
  try {
    if (!isObject(frame)) throw new ShapeError('frame', 'expected an object');
    if (typeof frame.event_type !== 'string') throw new ShapeError('event_type', 'expected a string');
    const frameSelf = account(frame, 'self_id');
    if (frameSelf !== selfId) throw new ShapeError('self_id', `names another account than ${selfId}`);
    const data = frame.data;
    if (!isObject(data)) throw new ShapeError('data', 'expected an object');
    // An event's own time, else the envelope's (a recall carries none of its own), else now.
    const at = eventTime(frame, Math.floor(nowMs / 1000));
    switch (frame.event_type) {
      case 'message_receive':
        return groupMessage(data, selfId, at);
      case 'message_recall':
        return groupRecall(data, selfId, at);
      case 'friend_request':
      case 'group_join_request':
      case 'group_invited_join_request':
      case 'group_invitation':
        return { kind: 'request', request: chatRequest(frame.event_type, data, selfId, at) };
      case 'bot_offline':
        return { kind: 'offline', reason: kindName(text(data, 'reason')) };
      default:
        return { kind: 'ignored', what: kindName(frame.event_type) };
    }
  } catch (error) {
    if (error instanceof ShapeError || error instanceof SegmentShapeError) {
      return { kind: 'problem', field: error.field, detail: error.message };
    }
    throw error;
  }
}

/** Unix seconds. */
function eventTime(object: Json, fallback: number): number {
  const time = object.time;
  return typeof time === 'number' && Number.isSafeInteger(time) && time > 0 ? time : fallback;
}

function groupMessage(data: Json, selfId: number, at: number): MilkyFrame {
  const scene = text(data, 'message_scene');
  if (scene !== 'group') return { kind: 'ignored', what: `message_receive/${kindName(scene || '?')}` };
  const segments = segmentsToCq(data.segments, 'data.segments');
  const member = isObject(data.group_member) ? data.group_member : {};
  const role = text(member, 'role');
  const userId = account(data, 'sender_id', 'data.sender_id');
  const message: GroupChatMessage = {
    selfId,
    groupId: account(data, 'peer_id', 'data.peer_id'),
    userId,
    // A group's message_seq is the chat port's message id here (src/ports/chat.ts).
    messageId: integer(data, 'message_seq', 'data.message_seq'),
    time: eventTime(data, at),
    rawMessage: renderCq(segments),
    plainText: plainTextOf(segments),
    senderName: text(member, 'card') || text(member, 'nickname'),
    senderRole: ROLES.has(role) ? (role as GroupChatMessage['senderRole']) : 'unknown',
    replyToMessageId: replyIdOf(segments),
    mentionsSelf: mentions(segments, selfId),
  };
  return { kind: 'group_message', message, sentBySelf: userId === selfId };
}

function groupRecall(data: Json, selfId: number, at: number): MilkyFrame {
  const scene = text(data, 'message_scene');
  if (scene !== 'group') return { kind: 'ignored', what: `message_recall/${kindName(scene || '?')}` };
  const recall: GroupRecall = {
    selfId,
    groupId: account(data, 'peer_id', 'data.peer_id'),
    userId: account(data, 'sender_id', 'data.sender_id'),
    operatorId: account(data, 'operator_id', 'data.operator_id'),
    messageId: integer(data, 'message_seq', 'data.message_seq'),
    time: eventTime(data, at),
  };
  return { kind: 'group_recall', recall };
}

function nonEmpty(object: Json, key: string, field: string): string {
  const value = object[key];
  if (typeof value !== 'string' || value === '') throw new ShapeError(field, 'expected a non-empty string');
  return value;
}

/**
 * The four request events as the inbox keeps them, with OneBot's sub types (`add`: someone is to
 * join the group, `invite`: the account is invited); the flag holds what the answer needs.
 */
function chatRequest(eventType: string, data: Json, selfId: number, at: number): ChatRequest {
  const filtered = data.is_filtered === true;
  const base = { selfId, comment: text(data, 'comment'), time: eventTime(data, at) };
  if (eventType === 'friend_request') {
    const uid = nonEmpty(data, 'initiator_uid', 'data.initiator_uid');
    const userId = account(data, 'initiator_id', 'data.initiator_id');
    return { ...base, kind: 'friend', subType: '', userId, groupId: null, flag: friendRequestFlag(uid, filtered) };
  }
  const groupId = account(data, 'group_id', 'data.group_id');
  if (eventType === 'group_invitation') {
    const seq = integer(data, 'invitation_seq', 'data.invitation_seq');
    const userId = account(data, 'initiator_id', 'data.initiator_id');
    return { ...base, kind: 'group', subType: 'invite', userId, groupId, flag: invitationFlag(groupId, seq) };
  }
  const seq = integer(data, 'notification_seq', 'data.notification_seq');
  // An invited join names the one to join as target_user_id (the inviter is initiator_id).
  const invited = eventType === 'group_invited_join_request';
  const userId = invited
    ? account(data, 'target_user_id', 'data.target_user_id')
    : account(data, 'initiator_id', 'data.initiator_id');
  const flag = groupRequestFlag(invited ? 'invited_join_request' : 'join_request', groupId, seq, filtered);
  return { ...base, kind: 'group', subType: 'add', userId, groupId, flag };
}
