import type { HotAnswerRow, HotContextRow } from './corpus-queries.ts';

/** What `CorpusStore.hotKeywords` ranks (docs/rules.md#local-hot). */
export interface HotKeywordsQuery {
  /** 'group' with a groupId: scores and answers count that group's answers only. Otherwise global. */
  scope: 'global' | 'group';
  groupId?: number | null;
  /** Items the caller wants; the store returns up to HOT_KEYWORDS_OVERFETCH times as many contexts. */
  limit: number;
  answersPerKeyword: number;
}

export interface HotKeywordAnswer {
  answerKeywords: string;
  /** The answer's first message (lowest id), or '' when it has none. */
  message: string;
  count: number;
}

export interface HotKeywordRow {
  /** The context keywords, as stored. */
  keywords: string;
  score: number;
  /** Top answers by count desc, answer keywords asc; may be empty. */
  answers: HotKeywordAnswer[];
}

/** The caller filters contexts out (empty labels, no usable answer): fetch this many per item. */
export const HOT_KEYWORDS_OVERFETCH = 4;

/**
 * Order of strings as both engines sort them (SQLite BINARY, PostgreSQL "C" on UTF-8): by code
 * point. JavaScript's `<` compares UTF-16 code units, which differs above U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const x = a.codePointAt(index) ?? 0;
    const y = b.codePointAt(index) ?? 0;
    if (x !== y) return x - y;
    if (x > 0xffff) index++;
  }
  return a.length - b.length;
}

/** Hot order: score desc, then keywords by code point. */
export function compareHotContexts(a: HotContextRow, b: HotContextRow): number {
  return b.score - a.score || compareCodePoints(a.keywords, b.keywords);
}

/**
 * The best `size` contexts seen over several id windows, each window having returned its own best
 * (at most `size`, in hot order). Every context lies in exactly one window, so the best of the
 * windows' bests is the overall best. `minScore` is the lowest score that can still enter.
 */
export class TopContexts {
  #rows: HotContextRow[] = [];

  constructor(private readonly size: number) {}

  get rows(): readonly HotContextRow[] {
    return this.#rows;
  }

  /** Ties with the current last entry may still win on keywords, so they stay eligible. */
  get minScore(): number {
    return this.#rows.length < this.size ? 1 : (this.#rows.at(-1)?.score ?? 1);
  }

  add(windowBest: readonly HotContextRow[]): void {
    if (windowBest.length === 0) return;
    this.#rows = [...this.#rows, ...windowBest].sort(compareHotContexts).slice(0, this.size);
  }
}

/** Attach each context's answers (rows ordered by context, then answer rank) in context order. */
export function hotKeywordRows(contexts: readonly HotContextRow[], answers: readonly HotAnswerRow[]): HotKeywordRow[] {
  const byContext = new Map<number, HotKeywordAnswer[]>();
  for (const row of answers) {
    const contextId = Number(row.context_id);
    let list = byContext.get(contextId);
    if (!list) byContext.set(contextId, (list = []));
    list.push({ answerKeywords: row.keywords, message: row.message, count: Number(row.count) });
  }
  return contexts.map((row) => ({
    keywords: row.keywords,
    score: Number(row.score),
    answers: byContext.get(Number(row.id)) ?? [],
  }));
}
