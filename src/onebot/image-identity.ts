/**
 * The stable identity of a picture (issue 30): what an image segment is stored and learned as, so
 * that every sighting of the same picture gives the same text and the same corpus context.
 *
 * - NapCat and LLBot name a picture by a file name built from its md5 (`ABCDEF0123….jpg`), the same
 *   on every sighting: kept as it is.
 * - Lagrange puts a download URL in `file` whose `rkey` query rotates; its `filename` (or, without
 *   it, the URL's `fileid`) names the picture instead. An old-style `gchat.qpic.cn` URL carries the
 *   md5 in its path. A URL with none of these keeps its address without the query's `rkey`.
 * - A sticker (`sub_type`/`subType` 1) keeps `sub_type=1`, so it goes back as a sticker.
 */

import type { ChatPicture } from '../domain/chat.ts';

/** A picture seen in a message, with where its bytes can be fetched now (for the media cache). */
export type PictureSource = ChatPicture;

const URL_SCHEME = /^https?:\/\//i;
const MD5 = /^[0-9a-f]{32}$/i;
/** `/gchatpic_new/<uin>/<group>-<n>-<MD5>/0`: the md5 is the last dash-separated part. */
const GCHAT_MD5 = /\/gchatpic_new\/\d+\/[\d-]*?-([0-9A-Fa-f]{32})\//;

export function isUrl(text: string): boolean {
  return URL_SCHEME.test(text);
}

/** Whether the segment is a sticker (QQ's "动画表情"), as NapCat, LLBot and Lagrange mark it. */
export function isSticker(data: Readonly<Record<string, string>>): boolean {
  return data.sub_type === '1' || data.subType === '1';
}

/** The identity of an image segment's data, '' when it has none that lasts. */
export function imageIdentity(data: Readonly<Record<string, string>>): string {
  const file = data.file ?? '';
  if (file !== '' && !isUrl(file) && !file.startsWith('base64://')) return file;
  if (data.filename) return data.filename;
  if (data.fileid) return data.fileid;
  if (data.md5 && MD5.test(data.md5)) return data.md5.toUpperCase();
  const url = isUrl(file) ? file : (data.url ?? '');
  return url === '' ? file : identityOfUrl(url);
}

/** A download URL without what rotates in it. */
export function identityOfUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  const fileId = parsed.searchParams.get('fileid');
  if (fileId) return fileId;
  const md5 = GCHAT_MD5.exec(parsed.pathname)?.[1];
  if (md5) return md5.toUpperCase();
  parsed.searchParams.delete('rkey');
  parsed.hash = '';
  return parsed.toString();
}

/** An image segment's data as stored: its identity, and `sub_type=1` for a sticker. */
export function storedImageData(data: Readonly<Record<string, string>>): Record<string, string> {
  const stored: Record<string, string> = { file: imageIdentity(data) };
  if (isSticker(data)) stored.sub_type = '1';
  return stored;
}

/** Where the bytes of an image segment can be fetched: its `url`, or a `file` that is a URL. */
export function pictureSource(data: Readonly<Record<string, string>>): PictureSource | null {
  const url = data.url && isUrl(data.url) ? data.url : isUrl(data.file ?? '') ? (data.file ?? '') : '';
  const file = imageIdentity(data);
  return file === '' ? null : { file, url };
}
