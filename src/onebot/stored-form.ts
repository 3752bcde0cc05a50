/**
 * The stored form of a message (docs/rules.md#rep-text): what is learned and compared, without the
 * attributes that change between two sightings of the same thing. Kept apart from cq-code.ts, which
 * the web console imports as it is.
 */
import { textSegment, type Segment } from './cq-code.ts';
import { pictureSource, storedImageData, type PictureSource } from './image-identity.ts';

/**
 * Parameters kept when a message is stored, per segment type. A face keeps its id (NapCat adds a
 * bulky `raw` object). An image keeps its stable identity and the sticker mark
 * (image-identity.ts): the rest of its attributes (url with its expiring key, file_size) change
 * between sightings of the same picture; the origin dropped them too (docs/rules.md#rep-text), so
 * the same picture learns as the same text.
 */
const STORED_PARAMS: Readonly<Record<string, readonly string[]>> = {
  face: ['id'],
};

/** Segments as stored and learned: volatile attributes dropped, adjacent text merged, empty text gone. */
export function normaliseForStorage(segments: readonly Segment[]): Segment[] {
  const out: Segment[] = [];
  for (const segment of segments) {
    if (segment.type === 'text') {
      const text = segment.data.text ?? '';
      if (text === '') continue;
      const last = out.at(-1);
      if (last?.type === 'text') out[out.length - 1] = textSegment((last.data.text ?? '') + text);
      else out.push(textSegment(text));
      continue;
    }
    if (segment.type === 'image') {
      out.push({ type: 'image', data: storedImageData(segment.data) });
      continue;
    }
    const keep = STORED_PARAMS[segment.type];
    if (keep === undefined) {
      out.push(segment);
      continue;
    }
    const data: Record<string, string> = {};
    for (const key of keep) {
      const value = segment.data[key];
      if (value !== undefined) data[key] = value;
    }
    out.push({ type: segment.type, data });
  }
  return out;
}

/** The pictures of a message as delivered (before normalisation), with their download URLs. */
export function picturesOf(segments: readonly Segment[]): PictureSource[] {
  const out: PictureSource[] = [];
  for (const segment of segments) {
    if (segment.type !== 'image') continue;
    const source = pictureSource(segment.data);
    if (source !== null && source.url !== '') out.push(source);
  }
  return out;
}
