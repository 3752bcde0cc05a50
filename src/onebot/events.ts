/**
 * Incoming OneBot v11 frames, checked by hand and turned into domain values. A frame is an event
 * (it has `post_type`) or the answer to one of our actions (it has `echo`). Nothing here throws:
 * a frame that is not JSON or has the wrong shape becomes a `malformed` value naming the field.
 */
import type { ChatRequest, GroupChatMessage, GroupMute, GroupRecall } from '../domain/chat.ts';
import { mentions, parseCq, plainTextOf, renderCq, replyIdOf, type Segment } from './cq-code.ts';
import { normaliseForStorage, picturesOf } from './stored-form.ts';
import {
  ONEBOT_KIND_MAX_CHARS,
  ONEBOT_MESSAGE_MAX_CHARS,
  ONEBOT_MESSAGE_MAX_RAW_CHARS,
  ONEBOT_MESSAGE_MAX_SEGMENTS,
} from './limits.ts';

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

/**
 * Why an event was refused: a message over the size limits, or an event naming another account
 * than the connection's (X-Self-ID), which would otherwise be attributed to the wrong bot.
 */
export type RefusalReason = 'oversized' | 'self_id_mismatch';

/** Thrown inside this module only; `parseFrame` turns it into a value. */
class RefusedError extends Error {
  constructor(
    readonly reason: RefusalReason,
    detail: string,
  ) {
    super(detail);
  }
}

/** Thrown inside this module only; `parseFrame` turns it into a value. */
class ShapeError extends Error {
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(detail);
  }
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const DIGITS = /^-?\d{1,16}$/;

/** Integers arrive as numbers; a few implementations send some ids as decimal strings. */
function toInteger(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : null;
  if (typeof value === 'string' && DIGITS.test(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : null;
  }
  return null;
}

function integer(frame: Json, key: string): number {
  const n = toInteger(frame[key]);
  if (n === null) throw new ShapeError(key, 'expected an integer');
  return n;
}

/** QQ numbers and group numbers are positive. */
function account(frame: Json, key: string): number {
  const n = integer(frame, key);
  if (n <= 0) throw new ShapeError(key, 'expected a positive integer');
  return n;
}

function optionalString(frame: Json, key: string, at = key): string {
  const value = frame[key];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new ShapeError(at, 'expected a string');
  return value;
}

function requiredString(frame: Json, key: string): string {
  const value = frame[key];
  if (typeof value !== 'string') throw new ShapeError(key, 'expected a string');
  return value;
}

/** Unix seconds; a frame without a time gets the arrival time. */
function eventTime(frame: Json, nowMs: number): number {
  return frame.time === undefined ? Math.floor(nowMs / 1000) : integer(frame, 'time');
}

const SEGMENT_TYPE = /^[A-Za-z0-9_.-]{1,64}$/;
const PARAM_KEY = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * Array-form values may be numbers or booleans (Lagrange sends `qq: 123`); they become the text
 * the CQ form would carry. Nested objects (rare, implementation extras) are kept as JSON text.
 * Keys that could not be written in a CQ code are dropped so the two forms stay equivalent.
 */
function segmentData(raw: unknown, field: string): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  if (!isObject(raw)) throw new ShapeError(field, 'expected an object');
  const data: Record<string, string> = {};
  for (const key of Object.keys(raw)) {
    if (!PARAM_KEY.test(key)) continue;
    const value = raw[key];
    if (value === undefined || value === null) continue;
    data[key] = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  return data;
}

/**
 * The message of an event or of a get_msg answer, in either form, as stored segments. The size
 * limit counts what is kept (normaliseForStorage), not per-delivery extras an implementation
 * attaches and Chorus drops: NapCat sends a ~410-character `raw` object with every face, so a
 * flood of 40 faces is ~16,000 characters on the wire and ~80 stored. What arrives is bounded
 * too, more loosely (ONEBOT_MESSAGE_MAX_RAW_CHARS), before anything is parsed or kept.
 */
function storedSegments(message: unknown, field = 'message'): Segment[] {
  return storedFormOf(messageSegments(message, field));
}

/** The delivered segments in their stored form, within the stored size limit. */
function storedFormOf(delivered: Segment[]): Segment[] {
  const segments = normaliseForStorage(delivered);
  let chars = 0;
  for (const segment of segments) for (const value of Object.values(segment.data)) chars += value.length;
  if (chars > ONEBOT_MESSAGE_MAX_CHARS) throw oversized(`${chars} characters`);
  return segments;
}

/** The message in either form as segments, everything it carries kept (storedSegments drops). */
function messageSegments(message: unknown, field: string): Segment[] {
  if (typeof message === 'string') {
    if (message.length > ONEBOT_MESSAGE_MAX_RAW_CHARS) throw oversized(`${message.length} characters as sent`);
    const segments = parseCq(message);
    if (segments.length > ONEBOT_MESSAGE_MAX_SEGMENTS) throw oversized(`${segments.length} segments`);
    return segments;
  }
  if (!Array.isArray(message)) throw new ShapeError(field, 'expected a segment array or a CQ string');
  if (message.length > ONEBOT_MESSAGE_MAX_SEGMENTS) throw oversized(`${message.length} segments`);
  let rawChars = 0;
  return message.map((item: unknown, index): Segment => {
    const at = `${field}[${index}]`;
    if (!isObject(item)) throw new ShapeError(at, 'expected a segment object');
    if (typeof item.type !== 'string' || !SEGMENT_TYPE.test(item.type)) {
      throw new ShapeError(`${at}.type`, 'expected a segment type name');
    }
    const data = segmentData(item.data, `${at}.data`);
    if (item.type === 'text' && typeof data.text !== 'string')
      throw new ShapeError(`${at}.data.text`, 'expected a string');
    for (const value of Object.values(data)) rawChars += value.length;
    if (rawChars > ONEBOT_MESSAGE_MAX_RAW_CHARS) throw oversized(`more than ${rawChars} characters as sent`);
    return { type: item.type, data };
  });
}

const oversized = (detail: string): RefusedError =>
  new RefusedError(
    'oversized',
    `message too large (${detail}; limits ${ONEBOT_MESSAGE_MAX_CHARS} characters, ${ONEBOT_MESSAGE_MAX_SEGMENTS} segments)`,
  );

/** Peers name event kinds; only a short, printable prefix of a name is kept or logged. */
const kindName = (text: string): string =>
  text.length > ONEBOT_KIND_MAX_CHARS || /[^\x20-\x7e]/.test(text)
    ? `${text.slice(0, ONEBOT_KIND_MAX_CHARS).replace(/[^\x20-\x7e]/g, '?')}…`
    : text;

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

function optionalBoolean(frame: Json, key: string): boolean | null {
  return typeof frame[key] === 'boolean' ? frame[key] : null;
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
