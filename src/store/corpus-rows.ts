/** Row shapes of the corpus statements (src/store/corpus-queries.ts). */

export interface ContextRow {
  id: number;
  keywords: string;
  time: number;
  trigger_count: number;
  clear_time: number;
}

export interface SnapshotContextRow extends ContextRow {
  ban_keywords: string | null;
  ban_group_id: number | null;
  ban_reason: string | null;
  ban_time: number | null;
}

export interface AnswerRow {
  id: number;
  keywords: string;
  group_id: number;
  count: number;
  time: number;
}

export interface AnswerWithMessageRow extends AnswerRow {
  message: string | null;
}

export interface BanRow {
  context_id: number;
  keywords: string;
  group_id: number;
  reason: string;
  time: number;
}

export interface MessageRow {
  answer_id: number;
  message: string;
}

/** A context ranked by hot keywords: `score` is its answer count sum (of one group's answers, or all). */
export interface HotContextRow {
  id: number;
  keywords: string;
  score: number;
}

/** One of the top answers of a hot context, with its first message ('' when it has none). */
export interface HotAnswerRow {
  context_id: number;
  keywords: string;
  count: number;
  message: string;
}

/** A polluted answer message found by the contamination cleanup, with its answer and context. */
export interface PollutedMessageRow {
  id: number;
  answer_id: number;
  context_id: number;
}

/** Phrases a text must contain one of, and must contain none of (contamination cleanup). */
export interface PhraseMatch {
  phrases: readonly string[];
  exempt: readonly string[];
}

export interface NewAnswerRow {
  context_id: number;
  keywords: string;
  keywords_hash: string;
  group_id: number;
  count: number;
  time: number;
}
