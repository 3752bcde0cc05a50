import { createRequire } from 'node:module';
import type * as JiebaModule from '@node-rs/jieba';
import type { Jieba, TfIdf } from '@node-rs/jieba';
import { LRUCache } from 'lru-cache';
import { isImage, isPlainText, normaliseRaw } from './cq-text.ts';

/** The number of TF-IDF tags that make a message's keywords (docs/rules.md#rep-text). */
export const KEYWORD_TAGS = 2;
/** Tag lists kept for recently seen texts. */
export const KEYWORD_CACHE_MAX = 4096;

/** Top-`topK` keywords of a text, best first. */
export type Tagger = (text: string, topK: number) => string[];

/**
 * jieba's TF-IDF over its bundled dictionaries. Loading them takes about half a second, so it
 * happens on the first call (or on `warm()`), never at import.
 */
export function jiebaTagger(): Tagger {
  let loaded: { jieba: Jieba; tfidf: TfIdf } | undefined;
  return (text, topK) => {
    if (!loaded) {
      const require = createRequire(import.meta.url);
      const lib = require('@node-rs/jieba') as typeof JiebaModule;
      const dicts = require('@node-rs/jieba/dict.js') as { dict: Uint8Array; idf: Uint8Array };
      loaded = { jieba: lib.Jieba.withDict(dicts.dict), tfidf: lib.TfIdf.withDict(dicts.idf) };
    }
    return loaded.tfidf.extractKeywords(loaded.jieba, text, topK).map((tag) => tag.keyword);
  };
}

/**
 * Keyword tags of message texts, cached by stripped text. One instance belongs to the
 * composition root and is shared by everything that needs keywords.
 */
export class KeywordExtractor {
  readonly #tagger: Tagger;
  readonly #cache: LRUCache<string, readonly string[]>;

  constructor(options: { tagger?: Tagger; cacheMax?: number } = {}) {
    this.#tagger = options.tagger ?? jiebaTagger();
    this.#cache = new LRUCache({ max: options.cacheMax ?? KEYWORD_CACHE_MAX });
  }

  /** Loads the dictionaries now (start-up) rather than on the first message. */
  warm(): void {
    this.tags('预热');
  }

  /** The top tags of `text`, best first (at most KEYWORD_TAGS). */
  tags(text: string): readonly string[] {
    const key = text.trim();
    if (key === '') return EMPTY;
    const cached = this.#cache.get(key);
    if (cached) return cached;
    const tags = Object.freeze(this.#tagger(key, KEYWORD_TAGS).slice(0, KEYWORD_TAGS));
    this.#cache.set(key, tags);
    return tags;
  }
}

const EMPTY: readonly string[] = Object.freeze([]);

/** What the repeater knows about one message's text (docs/rules.md#rep-text). */
export interface MessageText {
  /** Normalised raw form (image attributes dropped). */
  readonly rawMessage: string;
  readonly plainText: string;
  readonly isPlainText: boolean;
  readonly isImage: boolean;
  readonly tags: readonly string[];
  /** The corpus key of this message. */
  readonly keywords: string;
}

export function describeText(raw: string, plainText: string, extractor: KeywordExtractor): MessageText {
  const rawMessage = normaliseRaw(raw);
  const plain = isPlainText(rawMessage, plainText);
  const text = plainText.trim();
  const tags = !plain && text === '' ? EMPTY : extractor.tags(text);
  return {
    rawMessage,
    plainText,
    isPlainText: plain,
    isImage: isImage(rawMessage),
    tags,
    keywords: keywordString(rawMessage, text, plain, tags),
  };
}

/**
 * The keywords string (docs/rules.md#rep-text): a message without text (a picture, a face) keys by its raw CQ form;
 * a text without tags by the text itself; otherwise the tags joined by one space.
 */
export function keywordString(raw: string, text: string, plain: boolean, tags: readonly string[]): string {
  if (!plain && text === '') return raw.trim();
  if (tags.length === 0) return text;
  return tags.join(' ');
}
