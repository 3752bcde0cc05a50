/**
 * OneBot v11 message codes: a message is either an array of segments `{type, data}` or a CQ-coded
 * string (`text[CQ:type,key=value,...]text`), depending on the implementation's message format.
 * Both forms carry the same information; this module converts between them exactly:
 * `parseCq(renderCq(segments))` gives back the segments (text segments non-empty and never two in
 * a row, as a parse produces them) and `renderCq(parseCq(text))` gives back any canonically
 * escaped string.
 *
 * Escaping (OneBot v11 "CQ 码"): in text `&` → `&amp;`, `[` → `&#91;`, `]` → `&#93;`; in a
 * parameter value additionally `,` → `&#44;`.
 */

export interface Segment {
  readonly type: string;
  /** Parameter values are strings in the CQ form, so they are strings here too. */
  readonly data: Readonly<Record<string, string>>;
}

const TEXT_ESCAPES = /[&[\]]/g;
const PARAM_ESCAPES = /[&[\],]/g;
const ESCAPED: Readonly<Record<string, string>> = { '&': '&amp;', '[': '&#91;', ']': '&#93;', ',': '&#44;' };
const TEXT_ENTITIES = /&(?:amp|#91|#93);/g;
const PARAM_ENTITIES = /&(?:amp|#91|#93|#44);/g;
const UNESCAPED: Readonly<Record<string, string>> = { '&amp;': '&', '&#91;': '[', '&#93;': ']', '&#44;': ',' };

const escapeChar = (char: string): string => ESCAPED[char] ?? char;
const unescapeEntity = (entity: string): string => UNESCAPED[entity] ?? entity;

export function escapeText(text: string): string {
  return text.replace(TEXT_ESCAPES, escapeChar);
}

/** One pass, so `&amp;#91;` becomes `&#91;` and not `[`. */
export function unescapeText(text: string): string {
  return text.includes('&') ? text.replace(TEXT_ENTITIES, unescapeEntity) : text;
}

export function escapeParam(value: string): string {
  return value.replace(PARAM_ESCAPES, escapeChar);
}

export function unescapeParam(value: string): string {
  return value.includes('&') ? value.replace(PARAM_ENTITIES, unescapeEntity) : value;
}

const CQ_OPEN = '[CQ:';

/**
 * Segments of a CQ-coded string. A `[CQ:` without a closing `]`, or with an empty type, is not a
 * code and stays text (an implementation always escapes `[` in text, so this only happens in
 * malformed input). A parameter without `=` gets the empty value; a value may contain `=`.
 *
 * Linear in the length of the input, whatever it holds: the closing `]` found for one `[CQ:` is
 * reused by the next ones until it is passed, and a candidate holding a raw `[` resumes the scan
 * at that `[`, so no stretch of the input is searched twice (a peer's broken escaping must not
 * turn one frame into seconds of work; docs/guide/troubleshooting.md#limits).
 */
export function parseCq(message: string): Segment[] {
  const segments: Segment[] = [];
  let textStart = 0;
  let cursor = 0;
  let close = -1;
  while (cursor < message.length) {
    const open = message.indexOf(CQ_OPEN, cursor);
    if (open < 0) break;
    const bodyStart = open + CQ_OPEN.length;
    if (close < bodyStart) close = message.indexOf(']', bodyStart);
    if (close < 0) break;
    // A raw '[' inside a code would be text that was not escaped; the scan resumes there.
    const innerOpen = message.indexOf('[', bodyStart);
    if (innerOpen >= 0 && innerOpen < close) {
      cursor = innerOpen;
      continue;
    }
    const code = parseCode(message.slice(bodyStart, close));
    if (code === null) {
      cursor = close;
      continue;
    }
    if (open > textStart) segments.push(textSegment(unescapeText(message.slice(textStart, open))));
    segments.push(code);
    textStart = close + 1;
    cursor = textStart;
  }
  if (textStart < message.length) segments.push(textSegment(unescapeText(message.slice(textStart))));
  return segments;
}

function parseCode(body: string): Segment | null {
  const parts = body.split(',');
  const type = parts[0] ?? '';
  if (type === '') return null;
  const data: Record<string, string> = {};
  for (let index = 1; index < parts.length; index++) {
    const part = parts[index] ?? '';
    const equals = part.indexOf('=');
    const key = equals < 0 ? part : part.slice(0, equals);
    data[key] = equals < 0 ? '' : unescapeParam(part.slice(equals + 1));
  }
  return { type, data };
}

export const textSegment = (text: string): Segment => ({ type: 'text', data: { text } });

/** The CQ-coded string of some segments; text segments are escaped, the rest become codes. */
export function renderCq(segments: readonly Segment[]): string {
  let out = '';
  for (const segment of segments) out += renderSegment(segment);
  return out;
}

function renderSegment(segment: Segment): string {
  if (segment.type === 'text') return escapeText(segment.data.text ?? '');
  let out = CQ_OPEN + segment.type;
  for (const key of Object.keys(segment.data)) out += `,${key}=${escapeParam(segment.data[key] ?? '')}`;
  return `${out}]`;
}

/** The text segments joined, unescaped; codes (images, mentions, faces) contribute nothing. */
export function plainTextOf(segments: readonly Segment[]): string {
  let out = '';
  for (const segment of segments) if (segment.type === 'text') out += segment.data.text ?? '';
  return out;
}

const INTEGER = /^-?\d{1,16}$/;

/** The id of the message quoted by the first `[CQ:reply,id=N]`, or null (no reply, or not a number). */
export function replyIdOf(segments: readonly Segment[]): number | null {
  for (const segment of segments) {
    if (segment.type !== 'reply') continue;
    const id = segment.data.id ?? '';
    return INTEGER.test(id) && Number.isSafeInteger(Number(id)) ? Number(id) : null;
  }
  return null;
}

/** Whether some `[CQ:at,qq=N]` names this account (`qq=all` does not count). */
export function mentions(segments: readonly Segment[], qq: number): boolean {
  const wanted = String(qq);
  return segments.some((segment) => segment.type === 'at' && segment.data.qq === wanted);
}
