/**
 * Incoming OneBot v11 frames, checked by hand and turned into domain values. A frame is an event
 * (it has `post_type`) or the answer to one of our actions (it has `echo`). Nothing here throws:
 * a frame that is not JSON or has the wrong shape becomes a `malformed` value naming the field.
 */
import type { ChatRequest, GroupChatMessage, GroupMute, GroupRecall } from '../domain/chat.ts';
import { mentions, plainTextOf, renderCq, replyIdOf } from './cq-code.ts';
import { picturesOf } from './stored-form.ts';
import {
  RefusedError,
  ShapeError,
  account,
  eventTime,
  integer,
  isObject,
  optionalBoolean,
  optionalString,
  requiredString,
  toInteger,
  type Json,
  type RefusalReason,
} from './frame-fields.ts';
import { kindName, messageSegments, storedFormOf, storedSegments } from './frame-segments.ts';

export interface FrameProblem {
  readonly reason: 'json' | 'shape';
  /** The JSON path of the offending field (`message[2].type`), '' for the frame itself. */
  readonly field: string;
  readonly detail: string;
}

export interface HeartbeatInfo {
  readonly intervalMs: number | null;
  /** `status.online` / `status.good` when the implementation reports them. */
  readonly online: boolean | null;
  readonly good: boolean | null;
}

export interface ActionResponse {
  readonly echo: string;
  readonly status: 'ok' | 'failed' | 'async';
  readonly retcode: number;
  readonly data: unknown;
  /** The implementation's explanation of a failure (`wording` preferred over `message`). */
  readonly message: string;
}

export type OneBotFrame =
  /** `sentBySelf`: a `message_sent` event (NapCat reports the bot's own messages this way). */
  | { readonly kind: 'group_message'; readonly message: GroupChatMessage; readonly sentBySelf: boolean }
  | { readonly kind: 'group_recall'; readonly recall: GroupRecall }
  | { readonly kind: 'group_mute'; readonly mute: GroupMute }
  | { readonly kind: 'request'; readonly request: ChatRequest }
  | { readonly kind: 'lifecycle'; readonly subType: string }
  | { readonly kind: 'heartbeat'; readonly heartbeat: HeartbeatInfo }
  | { readonly kind: 'response'; readonly response: ActionResponse }
  /** A well-formed event this adapter does not use; `what` names its kind for logging (cut short). */
  | { readonly kind: 'ignored'; readonly what: string }
  /** A well-formed event refused by policy before any expensive work, counted by reason. */
  | { readonly kind: 'refused'; readonly reason: RefusalReason; readonly detail: string }
  | { readonly kind: 'malformed'; readonly problem: FrameProblem };

export type { RefusalReason } from './frame-fields.ts';

/** The normalised CQ string of a message in either form (what is stored and learned). */
export function storedMessageText(
  message: unknown,
  field = 'message',
): { readonly ok: true; readonly text: string } | { readonly ok: false; readonly problem: FrameProblem } {
  try {
    return { ok: true, text: renderCq(storedSegments(message, field)) };
  } catch (error) {
    if (error instanceof RefusedError) return { ok: false, problem: { reason: 'shape', field, detail: error.message } };
    return { ok: false, problem: shapeProblem(error) };
  }
}

const ROLES = new Set(['owner', 'admin', 'member']);

function groupMessage(frame: Json, selfId: number, nowMs: number, sentBySelf: boolean): OneBotFrame {
  const messageType = optionalString(frame, 'message_type');
  if (messageType !== 'group') return { kind: 'ignored', what: kindName(`${frame.post_type}/${messageType || '?'}`) };
  const body = frame.message ?? frame.raw_message;
  const delivered = messageSegments(body, 'message');
  const segments = storedFormOf(delivered);
  // The pictures as delivered (with their download URLs), for the media cache.
  const pictures = picturesOf(delivered);
  const sender = frame.sender ?? {};
  if (!isObject(sender)) throw new ShapeError('sender', 'expected an object');
  const role = optionalString(sender, 'role', 'sender.role');
  const message: GroupChatMessage = {
    selfId,
    groupId: account(frame, 'group_id'),
    // NapCat's message_sent carries the bot as sender; others may omit user_id there.
    userId: sentBySelf && frame.user_id === undefined ? selfId : account(frame, 'user_id'),
    messageId: integer(frame, 'message_id'),
    time: eventTime(frame, nowMs),
    rawMessage: renderCq(segments),
    plainText: plainTextOf(segments),
    senderName: optionalString(sender, 'card', 'sender.card') || optionalString(sender, 'nickname', 'sender.nickname'),
    senderRole: ROLES.has(role) ? (role as GroupChatMessage['senderRole']) : 'unknown',
    replyToMessageId: replyIdOf(segments),
    mentionsSelf: mentions(segments, selfId),
    ...(pictures.length > 0 ? { pictures } : {}),
  };
  // go-cqhttp reports the bot's own messages as ordinary message events (report-self-message).
  return { kind: 'group_message', message, sentBySelf: sentBySelf || message.userId === selfId };
}

function notice(frame: Json, selfId: number, nowMs: number): OneBotFrame {
  const noticeType = optionalString(frame, 'notice_type');
  if (noticeType === 'group_ban') return groupMute(frame, selfId);
  if (noticeType !== 'group_recall') return { kind: 'ignored', what: kindName(`notice/${noticeType || '?'}`) };
  const recall: GroupRecall = {
    selfId,
    groupId: account(frame, 'group_id'),
    userId: account(frame, 'user_id'),
    operatorId: frame.operator_id === undefined ? account(frame, 'user_id') : account(frame, 'operator_id'),
    messageId: integer(frame, 'message_id'),
    time: eventTime(frame, nowMs),
  };
  return { kind: 'group_recall', recall };
}

/** A mute or its lifting (proactive speech keeps quiet in a group where the bot is muted). */
function groupMute(frame: Json, selfId: number): OneBotFrame {
  const lifted = optionalString(frame, 'sub_type') === 'lift_ban';
  const userId = frame.user_id === undefined ? 0 : integer(frame, 'user_id');
  const duration = frame.duration === undefined ? 0 : integer(frame, 'duration');
  // A mute without a duration (some report a whole-group mute so) lasts until it is lifted.
  const durationSec = lifted ? 0 : duration === 0 ? -1 : duration;
  const mute: GroupMute = { selfId, groupId: account(frame, 'group_id'), userId, durationSec };
  return { kind: 'group_mute', mute };
}

function request(frame: Json, selfId: number, nowMs: number): OneBotFrame {
  const requestType = optionalString(frame, 'request_type');
  if (requestType !== 'friend' && requestType !== 'group') {
    return { kind: 'ignored', what: kindName(`request/${requestType || '?'}`) };
  }
  const chatRequest: ChatRequest = {
    selfId,
    kind: requestType,
    subType: optionalString(frame, 'sub_type'),
    userId: account(frame, 'user_id'),
    groupId: requestType === 'group' ? account(frame, 'group_id') : null,
    comment: optionalString(frame, 'comment'),
    flag: requiredString(frame, 'flag'),
    time: eventTime(frame, nowMs),
  };
  if (chatRequest.flag === '') throw new ShapeError('flag', 'expected a non-empty string');
  return { kind: 'request', request: chatRequest };
}

function metaEvent(frame: Json): OneBotFrame {
  const metaType = optionalString(frame, 'meta_event_type');
  if (metaType === 'lifecycle') return { kind: 'lifecycle', subType: optionalString(frame, 'sub_type') };
  if (metaType !== 'heartbeat') return { kind: 'ignored', what: kindName(`meta_event/${metaType || '?'}`) };
  const status = frame.status ?? {};
  if (!isObject(status)) throw new ShapeError('status', 'expected an object');
  const interval = frame.interval === undefined ? null : integer(frame, 'interval');
  const heartbeat: HeartbeatInfo = {
    intervalMs: interval !== null && interval > 0 ? interval : null,
    online: optionalBoolean(status, 'online'),
    good: optionalBoolean(status, 'good'),
  };
  return { kind: 'heartbeat', heartbeat };
}

const STATUSES = new Set(['ok', 'failed', 'async']);

function response(frame: Json): OneBotFrame {
  const echo = frame.echo;
  if (typeof echo !== 'string' && typeof echo !== 'number') throw new ShapeError('echo', 'expected a string');
  const status = frame.status;
  if (typeof status !== 'string' || !STATUSES.has(status))
    throw new ShapeError('status', 'expected ok, failed or async');
  const retcode = frame.retcode === undefined ? 0 : integer(frame, 'retcode');
  const wording = optionalString(frame, 'wording');
  return {
    kind: 'response',
    response: {
      echo: String(echo),
      status: status as ActionResponse['status'],
      retcode,
      data: frame.data ?? null,
      message: wording || optionalString(frame, 'message') || optionalString(frame, 'msg'),
    },
  };
}

function classify(frame: Json, selfId: number, nowMs: number): OneBotFrame {
  const postType = frame.post_type;
  if (postType === undefined) return response(frame);
  checkSelfId(frame, selfId);
  switch (postType) {
    case 'message':
      return groupMessage(frame, selfId, nowMs, false);
    case 'message_sent':
      return groupMessage(frame, selfId, nowMs, true);
    case 'notice':
      return notice(frame, selfId, nowMs);
    case 'request':
      return request(frame, selfId, nowMs);
    case 'meta_event':
      return metaEvent(frame);
    default:
      if (typeof postType !== 'string') throw new ShapeError('post_type', 'expected a string');
      return { kind: 'ignored', what: kindName(`post_type/${postType}`) };
  }
}

/**
 * An event names its account in `self_id`; one that names another account than the connection
 * was opened for is refused rather than attributed to the wrong bot. Events without it pass.
 */
function checkSelfId(frame: Json, selfId: number): void {
  if (frame.self_id === undefined) return;
  const named = toInteger(frame.self_id);
  if (named !== selfId) {
    throw new RefusedError(
      'self_id_mismatch',
      `event for account ${String(named ?? '?')} on the connection of ${selfId}`,
    );
  }
}

/**
 * One frame from connection `selfId` (the account named by its X-Self-ID header, which is the
 * account the events are attributed to). `nowMs` dates frames that carry no time.
 */
export function parseFrame(text: string, selfId: number, nowMs: number): OneBotFrame {
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch {
    return { kind: 'malformed', problem: { reason: 'json', field: '', detail: 'not valid JSON' } };
  }
  return parseEvent(frame, selfId, nowMs);
}

/** One frame already read from JSON (a history answer's messages are events too). */
export function parseEvent(frame: unknown, selfId: number, nowMs: number): OneBotFrame {
  if (!isObject(frame)) {
    return { kind: 'malformed', problem: { reason: 'shape', field: '', detail: 'expected a JSON object' } };
  }
  try {
    return classify(frame, selfId, nowMs);
  } catch (error) {
    if (error instanceof RefusedError) return { kind: 'refused', reason: error.reason, detail: error.message };
    return { kind: 'malformed', problem: shapeProblem(error) };
  }
}

function shapeProblem(error: unknown): FrameProblem {
  return error instanceof ShapeError
    ? { reason: 'shape', field: error.field, detail: error.message }
    : { reason: 'shape', field: '', detail: String(error) };
}
