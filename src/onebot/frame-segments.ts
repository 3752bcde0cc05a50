/**
 * The message of a OneBot frame, in either form (CQ string or segment array), as segments within
 * the size limits. Too large: `RefusedError('oversized')`; wrong shape: `ShapeError` naming the field.
 */
import { parseCq, type Segment } from './cq-code.ts';
import { ShapeError, RefusedError, isObject } from './frame-fields.ts';
import {
  ONEBOT_KIND_MAX_CHARS,
  ONEBOT_MESSAGE_MAX_CHARS,
  ONEBOT_MESSAGE_MAX_RAW_CHARS,
  ONEBOT_MESSAGE_MAX_SEGMENTS,
} from './limits.ts';
import { normaliseForStorage } from './stored-form.ts';

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
export function storedSegments(message: unknown, field = 'message'): Segment[] {
  return storedFormOf(messageSegments(message, field));
}

/** The delivered segments in their stored form, within the stored size limit. */
export function storedFormOf(delivered: Segment[]): Segment[] {
  const segments = normaliseForStorage(delivered);
  let chars = 0;
  for (const segment of segments) for (const value of Object.values(segment.data)) chars += value.length;
  if (chars > ONEBOT_MESSAGE_MAX_CHARS) throw oversized(`${chars} characters`);
  return segments;
}

/** The message in either form as segments, everything it carries kept (storedSegments drops). */
export function messageSegments(message: unknown, field: string): Segment[] {
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
export const kindName = (text: string): string =>
  text.length > ONEBOT_KIND_MAX_CHARS || /[^\x20-\x7e]/.test(text)
    ? `${text.slice(0, ONEBOT_KIND_MAX_CHARS).replace(/[^\x20-\x7e]/g, '?')}…`
    : text;
