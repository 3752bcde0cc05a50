import { keywordsHash } from '../../src/domain/keywords-hash.ts';
import { cumulativeOf, intBetween, mulberry32, seedFor, weighted } from '../lib/rng.ts';

/**
 * The shape of the generated corpus: every distribution in one place. Keywords are derived from
 * an index, so a benchmark can name any existing (index < n) or missing key without keeping them.
 */

const CJK_FIRST = 0x4e00;
/** Common CJK Unified Ideographs, U+4E00..U+9FA5. */
const CJK_COUNT = 20902;
/** Indexes of keys that are never generated: lookups of missing keys draw from here. */
export const MISSING_BASE = 1 << 28;

/** Keyword length in characters, 1..12: mostly 2-5, a long tail up to 12. */
const KEYWORD_LENGTH = cumulativeOf([4, 22, 20, 15, 10, 8, 6, 5, 4, 3, 2, 1]);
const DAY_S = 86_400;
export const GROUP_COUNT = 64;
export const ANSWER_VOCABULARY = 100_000;

export interface ShapeOptions {
  seed: number;
  /** Unix seconds that every generated time is relative to. */
  now: number;
}

function cjk(code: number): string {
  return String.fromCharCode(CJK_FIRST + (code % CJK_COUNT));
}

/**
 * The context keywords of key `index`: 1-12 characters. Keys of two or more characters start with
 * two characters that encode the index, so all keys are distinct; one-character keys exist only
 * for the first CJK_COUNT indexes (they are their own code).
 */
export function contextKeywords(seed: number, index: number): string {
  const random = mulberry32(seedFor(seed, index));
  let length = weighted(random, KEYWORD_LENGTH) + 1;
  if (length === 1 && index >= CJK_COUNT) length = 2;
  if (length === 1) return cjk(index);
  let text = cjk(Math.floor(index / CJK_COUNT)) + cjk(index);
  for (let position = 2; position < length; position++) text += cjk(Math.floor(random() * CJK_COUNT));
  return text;
}

export interface VocabularyEntry {
  keywords: string;
  hash: string;
}

/** Answer keywords: short phrases (1-8 characters), hashed once. */
export function answerVocabulary(seed: number): VocabularyEntry[] {
  const random = mulberry32(seed ^ 0x5bd1e995);
  const entries: VocabularyEntry[] = [];
  const seen = new Set<string>();
  while (entries.length < ANSWER_VOCABULARY) {
    const length = intBetween(random, 1, 8);
    let keywords = '';
    for (let position = 0; position < length; position++) keywords += cjk(Math.floor(random() * CJK_COUNT));
    if (seen.has(keywords)) continue;
    seen.add(keywords);
    entries.push({ keywords, hash: keywordsHash(keywords) });
  }
  return entries;
}

/** Popular answers are picked far more often (a steep power law over the vocabulary). */
export function answerIndex(random: () => number): number {
  return Math.floor(ANSWER_VOCABULARY * random() ** 3);
}

export function groupId(index: number): number {
  return 100_000_000 + index * 7919;
}

/** Answers per context: most 1-3, some dozens, a few hundred. */
export function answersPerContext(random: () => number): number {
  const u = random();
  if (u < 0.6) return 1;
  if (u < 0.8) return 2;
  if (u < 0.88) return 3;
  if (u < 0.965) return intBetween(random, 4, 10);
  if (u < 0.998) return intBetween(random, 11, 60);
  return intBetween(random, 100, 400);
}

/** How often a context was learned: most once, some many times. */
export function triggerCount(random: () => number): number {
  const u = random();
  if (u < 0.7) return 1;
  if (u < 0.85) return 2;
  if (u < 0.95) return intBetween(random, 3, 20);
  if (u < 0.99) return intBetween(random, 21, 100);
  return intBetween(random, 101, 5000);
}

/** How often an answer followed its context: most once, a few very often. */
export function answerCount(random: () => number): number {
  const u = random();
  if (u < 0.7) return 1;
  if (u < 0.9) return intBetween(random, 2, 5);
  if (u < 0.99) return intBetween(random, 6, 50);
  return intBetween(random, 51, 2000);
}

/** Stored messages of an answer: 1-5, and a few popular answers hold hundreds. */
export function messagesPerAnswer(random: () => number, count: number): number {
  if (count > 50 && random() < 0.1) return intBetween(random, 100, 600);
  const u = random();
  if (u < 0.5) return 1;
  if (u < 0.75) return 2;
  if (u < 0.87) return 3;
  if (u < 0.95) return 4;
  return 5;
}

/**
 * Last learn time. The daily job deletes contexts older than 15 days that were learned fewer than
 * 3 times, so low-count contexts are recent: they spread over 20 days, as after five days without
 * the job (a bot that was down), which gives delete_expired a sizeable share. Contexts learned
 * more often spread over a year.
 */
export function contextTime(random: () => number, triggers: number, options: ShapeOptions): number {
  const spanDays = triggers < 3 ? 20 : 365;
  return options.now - Math.floor(random() * spanDays * DAY_S);
}

/**
 * Last cleanup time. The daily job rewrites every context not cleaned in 15 days, so clean times
 * spread over about 16 days; new contexts (10%) were never cleaned (0).
 */
export function clearTime(random: () => number, options: ShapeOptions): number {
  if (random() < 0.1) return 0;
  return options.now - Math.floor(random() * 16 * DAY_S);
}

/** Parameters of the daily job (docs/rules.md#maintenance): expiration = now - 15 days. */
export function dailyCleanup(options: ShapeOptions): {
  expiration: number;
  deleteThreshold: number;
  triggerThreshold: number;
} {
  return { expiration: options.now - 15 * DAY_S, deleteThreshold: 3, triggerThreshold: 100 };
}

/** A raw reply text: plain words, sometimes with a CQ face code. */
export function messageText(random: () => number, answerKeywords: string): string {
  const u = random();
  if (u < 0.6) return answerKeywords;
  if (u < 0.85) return `${answerKeywords}${cjk(Math.floor(random() * CJK_COUNT))}！`;
  return `[CQ:face,id=${intBetween(random, 1, 300)}]${answerKeywords}`;
}

export const BAN_REASONS = ['spam', 'manual', 'offensive'] as const;
