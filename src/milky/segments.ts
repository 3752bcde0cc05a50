/**
 * Milky message segments ⇄ the CQ-coded text Chorus stores, learns and compares
 * (docs/rules.md#rep-text). Incoming segments become the same CQ form a OneBot implementation
 * would have sent, normalised for storage the same way, so a phrase learned over one protocol
 * answers over the other. Outgoing CQ text becomes Milky's outgoing segments.
 */
import { normaliseForStorage, parseCq, type Segment } from '../onebot/index.ts';

/** One segment as Milky carries it: `{ type, data }`. */
export interface MilkySegment {
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** A segment whose shape is not Milky's: the whole message is dropped (docs/rules.md#style-bad-input). */
export class SegmentShapeError extends Error {
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(`${field}: ${detail}`);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An id Milky types as int64 (a number) or string (face ids, resource ids): its decimal text. */
function idText(data: Record<string, unknown>, key: string, field: string): string {
  const value = data[key];
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value === 'string' && value !== '') return value;
  throw new SegmentShapeError(`${field}.${key}`, 'expected an id');
}

function optionalText(data: Record<string, unknown>, key: string): string | undefined {
  const value = data[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

const cq = (type: string, data: Record<string, string | undefined>): Segment => ({
  type,
  data: Object.fromEntries(Object.entries(data).filter((entry): entry is [string, string] => entry[1] !== undefined)),
});

/** One incoming Milky segment as its CQ segment (null: nothing a person would see, dropped). */
function incomingSegment(segment: unknown, field: string): Segment | null {
  if (!isObject(segment) || typeof segment.type !== 'string')
    throw new SegmentShapeError(field, 'expected { type, data }');
  const data = segment.data ?? {};
  if (!isObject(data)) throw new SegmentShapeError(`${field}.data`, 'expected an object');
  switch (segment.type) {
    case 'text': {
      if (typeof data.text !== 'string') throw new SegmentShapeError(`${field}.data.text`, 'expected a string');
      return cq('text', { text: data.text });
    }
    case 'mention':
      return cq('at', { qq: idText(data, 'user_id', `${field}.data`) });
    case 'mention_all':
      return cq('at', { qq: 'all' });
    case 'face':
      return cq('face', { id: idText(data, 'face_id', `${field}.data`) });
    case 'reply':
      return cq('reply', { id: idText(data, 'message_seq', `${field}.data`) });
    case 'image':
      // The resource id names the picture, not one delivery of it (its temp_url rotates), so the
      // same picture learns as the same text; it is also what sending it again resolves.
      return cq('image', { file: idText(data, 'resource_id', `${field}.data`) });
    case 'record':
    case 'video':
      return cq(segment.type, { file: idText(data, 'resource_id', `${field}.data`) });
    case 'forward':
      return cq('forward', { id: optionalText(data, 'forward_id') });
    case 'light_app':
      return cq('json', { data: optionalText(data, 'json_payload') });
    case 'xml':
      return cq('xml', { data: optionalText(data, 'xml_payload') });
    case 'market_face':
      return cq('mface', { summary: optionalText(data, 'summary') });
    default:
      // A kind this adapter does not know keeps its name (what OneBot does with its own unknowns).
      return cq(segment.type.replace(/[^a-z0-9_]/gi, '_').slice(0, 32) || 'unknown', {});
  }
}

/** Incoming Milky segments as CQ segments, normalised for storage; throws SegmentShapeError. */
export function segmentsToCq(segments: unknown, field = 'segments'): Segment[] {
  if (!Array.isArray(segments)) throw new SegmentShapeError(field, 'expected an array');
  const out: Segment[] = [];
  segments.forEach((segment, index) => {
    const converted = incomingSegment(segment, `${field}[${index}]`);
    if (converted) out.push(converted);
  });
  return normaliseForStorage(out);
}

/** A picture's CQ `file` as a Milky `uri`: a URI as it is, a Milky resource id resolved to a URL. */
export type ResolveImage = (file: string) => Promise<string>;

const URI = /^(?:https?|file|base64):\/\//i;

/** Whether a CQ `file` is already something Milky can fetch (else it is a resource id). */
export function isMilkyUri(file: string): boolean {
  return URI.test(file);
}

/** What cannot go out over Milky: the send fails naming it rather than sending half a message. */
export class UnsendableSegmentError extends Error {
  constructor(readonly segmentType: string) {
    super(`a [CQ:${segmentType}] segment cannot be sent over Milky`);
  }
}

function idNumber(text: string | undefined, segmentType: string): number {
  const value = Number(text);
  if (text === undefined || !Number.isSafeInteger(value)) throw new UnsendableSegmentError(segmentType);
  return value;
}

/**
 * CQ-coded text (a stored answer, an acknowledgement) as Milky's outgoing segments. Pictures and
 * voice clips are resolved through `resolve`; kinds Milky cannot send throw UnsendableSegmentError.
 */
export async function cqToSegments(raw: string, resolve: ResolveImage): Promise<MilkySegment[]> {
  const out: MilkySegment[] = [];
  for (const segment of parseCq(raw)) {
    const data = segment.data;
    switch (segment.type) {
      case 'text':
        if ((data.text ?? '') !== '') out.push({ type: 'text', data: { text: data.text } });
        break;
      case 'at':
        if (data.qq === 'all') out.push({ type: 'mention_all', data: {} });
        else out.push({ type: 'mention', data: { user_id: idNumber(data.qq, 'at') } });
        break;
      case 'face':
        out.push({ type: 'face', data: { face_id: data.id ?? '' } });
        break;
      case 'reply':
        out.push({ type: 'reply', data: { message_seq: idNumber(data.id, 'reply') } });
        break;
      case 'image': {
        const file = data.file ?? data.url ?? '';
        const uri = isMilkyUri(file) ? file : await resolve(file);
        // OneBot's sticker mark (subType=1) survives as Milky's sticker sub_type.
        const sticker = data.subType === '1' || data.sub_type === '1';
        out.push({ type: 'image', data: { uri, sub_type: sticker ? 'sticker' : 'normal' } });
        break;
      }
      case 'record': {
        const file = data.file ?? '';
        out.push({ type: 'record', data: { uri: isMilkyUri(file) ? file : await resolve(file) } });
        break;
      }
      default:
        throw new UnsendableSegmentError(segment.type);
    }
  }
  return out;
}
