/**
 * Sending a message that holds pictures (issue 30). A stored picture is named by its stable
 * identity (image-identity.ts), which the implementation resolves only while its own cache holds
 * it (NapCat: 5,000 names for 24 h, in memory). So a send goes out by name first, which costs
 * nothing while the implementation still knows the picture; when it is refused, the pictures the
 * media cache holds go again as `base64://` bytes, and their names are remembered as stale so the
 * next send of them goes as bytes at once instead of failing first. Why not always bytes: a
 * picture by name is a few dozen bytes on the socket instead of up to the per-picture bound, and
 * the implementation sends its own copy (original quality, sticker attributes intact).
 *
 * Any refusal of a message with cached pictures is tried once more with the bytes (the words of a
 * refusal differ between implementations and versions); a refusal for another reason (the bot is
 * muted) fails the same way again and is reported as it is.
 *
 * A refusal that concerns a picture (the words of the answer say so, or the bytes went through
 * where the name did not) is marked `mediaFailure`: not the text's fault, never a ban reason.
 */
import type { Log } from '../common/log.ts';
import type { ChatPicture } from '../domain/chat.ts';
import type { ChatActions } from '../ports/chat.ts';
import { parseCq, renderCq, type Segment } from './cq-code.ts';
import { ActionFailedError } from './errors.ts';
import { isUrl } from './image-identity.ts';
import { MEDIA_STALE_NAMES_MAX } from './limits.ts';
import type { MediaCache, MediaCacheCounters } from './media-cache.ts';

/** A send refused because of a picture, with no bytes to send instead. */
export class MediaSendError extends ActionFailedError {
  readonly mediaFailure = true;
  constructor(cause: ActionFailedError) {
    super(cause.action, cause.retcode, cause.detail);
  }
}

/**
 * Words of a refusal that name a picture or a file (NapCat answers retcode 1200 with the reason in
 * its message; Lagrange and LLBot word theirs similarly).
 */
const MEDIA_WORDS = /file|image|picture|pic\b|photo|media|download|upload|ENOENT|图片|文件|资源|下载|上传|富媒体/i;

export function isMediaRefusal(error: unknown): error is ActionFailedError {
  return error instanceof ActionFailedError && MEDIA_WORDS.test(error.detail);
}

/** QQ's sticker summary: NapCat shows a sticker as one with it. */
const STICKER_SUMMARY = '[动画表情]';

export interface MediaSendCounters {
  /** Sends that went again with bytes after the name was refused, and succeeded. */
  resent_base64: number;
  /** Sends that went with bytes at once (a name known to be stale). */
  sent_base64: number;
  /** Sends refused for a picture with no bytes to send instead. */
  media_failures: number;
}

export class MediaSender {
  readonly #stale = new Set<string>();
  readonly #counters: MediaSendCounters = { resent_base64: 0, sent_base64: 0, media_failures: 0 };

  constructor(
    private readonly cache: MediaCache | null,
    private readonly log: Log,
  ) {}

  counters(): MediaSendCounters {
    return { ...this.#counters };
  }

  /** Sends `message` through `attempt`, by name first and with the cached bytes when refused. */
  async send<T>(message: string, attempt: (text: string) => Promise<T>): Promise<T> {
    if (!message.includes('[CQ:image,')) return attempt(message);
    const segments = parseCq(message).map(withStickerSummary);
    const named = segments.filter((segment) => isNamedPicture(segment));
    if (named.length === 0) return attempt(renderCq(segments));
    const stale = named.filter((segment) => this.#stale.has(segment.data.file ?? ''));
    const first = stale.length > 0 ? await this.#withBytes(segments, stale) : null;
    if (first !== null) this.#counters.sent_base64++;
    try {
      return await attempt(renderCq(first?.segments ?? segments));
    } catch (error) {
      if (!(error instanceof ActionFailedError)) throw error;
      // The pictures still named (those known stale went as bytes already).
      const stillNamed = first === null ? named : named.filter((segment) => !stale.includes(segment));
      const second = await this.#withBytes(first?.segments ?? segments, stillNamed);
      if (second === null) throw this.#refused(error);
      try {
        const sent = await attempt(renderCq(second.segments));
        for (const file of second.replaced) this.#markStale(file);
        this.#counters.resent_base64++;
        this.log.info({ pictures: second.replaced.length }, 'a picture the implementation forgot went again as bytes');
        return sent;
      } catch (retryError) {
        throw retryError instanceof ActionFailedError ? this.#refused(retryError) : retryError;
      }
    }
  }

  #refused(error: ActionFailedError): ActionFailedError {
    if (!isMediaRefusal(error)) return error;
    this.#counters.media_failures++;
    return new MediaSendError(error);
  }

  /** `segments` with the pictures of `which` the cache holds as base64; null when it holds none. */
  async #withBytes(
    segments: readonly Segment[],
    which: readonly Segment[],
  ): Promise<{ segments: Segment[]; replaced: string[] } | null> {
    if (this.cache === null) return null;
    const bytes = new Map<string, string>();
    for (const segment of which) {
      const file = segment.data.file ?? '';
      if (bytes.has(file)) continue;
      const data = await this.cache.bytes(file);
      if (data !== null) bytes.set(file, `base64://${data.toString('base64')}`);
    }
    if (bytes.size === 0) return null;
    const out = segments.map((segment) => {
      const encoded = isNamedPicture(segment) ? bytes.get(segment.data.file ?? '') : undefined;
      return encoded === undefined ? segment : { type: segment.type, data: { ...segment.data, file: encoded } };
    });
    return { segments: out, replaced: [...bytes.keys()] };
  }

  /** The implementation has just delivered these pictures: it knows their names again. */
  sawAgain(files: readonly string[]): void {
    for (const file of files) this.#stale.delete(file);
  }

  #markStale(file: string): void {
    this.#stale.delete(file);
    this.#stale.add(file);
    if (this.#stale.size > MEDIA_STALE_NAMES_MAX) {
      const [oldest] = this.#stale;
      if (oldest !== undefined) this.#stale.delete(oldest);
    }
  }
}

/** A picture named by an identity (not bytes, not a URL the implementation downloads itself). */
function isNamedPicture(segment: Segment): boolean {
  if (segment.type !== 'image') return false;
  const file = segment.data.file ?? '';
  return file !== '' && !file.startsWith('base64://') && !file.startsWith('file://') && !isUrl(file);
}

function withStickerSummary(segment: Segment): Segment {
  if (segment.type !== 'image' || segment.data.sub_type !== '1' || segment.data.summary !== undefined) return segment;
  return { type: 'image', data: { ...segment.data, summary: STICKER_SUMMARY } };
}

/**
 * The chat actions the repeater sends through: the OneBot endpoint's, with pictures kept sendable
 * (sends through a `MediaSender`) and learned pictures fetched into the media cache.
 */
export class PictureKeepingChat implements ChatActions {
  readonly #sender: MediaSender;

  constructor(
    private readonly chat: ChatActions,
    private readonly cache: MediaCache,
    log: Log,
  ) {
    this.#sender = new MediaSender(cache, log);
  }

  sendGroupMessage(selfId: number, groupId: number, message: string): Promise<{ messageId: number }> {
    return this.#sender.send(message, (text) => this.chat.sendGroupMessage(selfId, groupId, text));
  }

  deleteMessage(selfId: number, messageId: number, groupId: number): Promise<void> {
    return this.chat.deleteMessage(selfId, messageId, groupId);
  }

  getMessage(
    selfId: number,
    messageId: number,
    groupId: number,
  ): Promise<{ rawMessage: string; userId: number } | null> {
    return this.chat.getMessage(selfId, messageId, groupId);
  }

  /** Fetches the pictures of a learned message into the media cache, off the message path. */
  rememberPictures(pictures: readonly ChatPicture[] | undefined): void {
    if (pictures === undefined || pictures.length === 0) return;
    this.#sender.sawAgain(pictures.map((picture) => picture.file));
    this.cache.remember(pictures);
  }

  /** Whether the media cache holds a picture's bytes (tests, the demo). */
  holds(file: string): boolean {
    return this.cache.has(file);
  }

  /** The media cache's figures and the sends it rescued. */
  counters(): MediaCacheCounters & MediaSendCounters {
    return { ...this.cache.counters(), ...this.#sender.counters() };
  }
}
