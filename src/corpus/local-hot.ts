/**
 * Local hot keywords (docs/rules.md#local-hot): the contexts learned most
 * often, with their top answers, for the console (GET /api/local-corpus-hot) and the heartbeat's
 * corpus_hot_snapshot. Items are the console/heartbeat payload, hence snake_case.
 */
import type { HotKeywordRow, HotKeywordsQuery } from '../store/corpus-store.ts';
import { LOCAL_HOT_KEYWORDS } from '../common/limits.ts';
import { plainMessageText } from '../common/text.ts';

/** The store's ranking (CorpusStore.hotKeywords). */
export interface HotKeywordSource {
  hotKeywords(query: HotKeywordsQuery): Promise<HotKeywordRow[]>;
}

export interface LocalHotOptions {
  /** 'group' (with a groupId) ranks one group's answers; anything else is global. */
  scope?: string;
  groupId?: number | null;
  /** Items, clamped to 5..80 (default 40). */
  limit?: number;
  /** Answers per item, clamped to 1..8 (default 3). */
  answersPerKeyword?: number;
}

export interface LocalHotAnswer {
  answer_keywords: string;
  message: string;
  count: number;
}

export interface LocalHotItem {
  keywords: string;
  score: number;
  answers: LocalHotAnswer[];
}

export async function aggregateLocalHotKeywords(
  store: HotKeywordSource,
  options: LocalHotOptions = {},
): Promise<LocalHotItem[]> {
  const limits = LOCAL_HOT_KEYWORDS;
  const limit = clamp(options.limit, limits.limitMin, limits.limitMax, limits.limitDefault);
  const answersPerKeyword = clamp(
    options.answersPerKeyword,
    limits.answersMin,
    limits.answersMax,
    limits.answersDefault,
  );
  const groupId = typeof options.groupId === 'number' && Number.isFinite(options.groupId) ? options.groupId : null;
  const query: HotKeywordsQuery =
    options.scope === 'group' && groupId !== null
      ? { scope: 'group', groupId, limit, answersPerKeyword }
      : { scope: 'global', limit, answersPerKeyword };
  const items: LocalHotItem[] = [];
  for (const row of await store.hotKeywords(query)) {
    const item = hotItem(row);
    if (!item) continue;
    items.push(item);
    if (items.length >= limit) break;
  }
  return items;
}

/** One item per docs/rules.md#local-hot or null when the label or every answer is empty. */
function hotItem(row: HotKeywordRow): LocalHotItem | null {
  const label = plainMessageText(row.keywords);
  if (label === '') return null;
  const answers: LocalHotAnswer[] = [];
  for (const answer of row.answers) {
    const text = plainMessageText(answer.message) || plainMessageText(answer.answerKeywords);
    if (text === '') continue;
    answers.push({ answer_keywords: answer.answerKeywords, message: cut(text), count: answer.count });
  }
  if (answers.length === 0) return null;
  return { keywords: label, score: Math.trunc(row.score), answers };
}

/** Longer than 120 characters (code points): the first 117 and '…'. */
function cut(text: string): string {
  const { messageMaxChars, messageCutChars } = LOCAL_HOT_KEYWORDS;
  if (text.length <= messageMaxChars) return text;
  const chars = [...text];
  return chars.length <= messageMaxChars ? text : `${chars.slice(0, messageCutChars).join('')}…`;
}

/** An integer within min..max; a missing or non-numeric value takes the default. */
function clamp(value: number | undefined, min: number, max: number, fallback: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.trunc(value)));
}
