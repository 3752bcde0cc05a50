/**
 * Row shapes of the corpus statements (src/store/corpus-queries.ts), derived from the schema
 * (schema.ts). Builder statements get theirs from Kysely; these name them for callers, and type
 * the raw `sql` ones.
 */
import type { Insertable, Selectable } from 'kysely';
import type { ContextAnswerMessageTable, ContextAnswerTable, ContextBanTable, ContextTable } from './schema.ts';

type Context = Selectable<ContextTable>;
type Answer = Selectable<ContextAnswerTable>;
type Ban = Selectable<ContextBanTable>;
type AnswerMessage = Selectable<ContextAnswerMessageTable>;

export type ContextRow = Pick<Context, 'id' | 'keywords' | 'time' | 'trigger_count' | 'clear_time'>;

/** A context with one of its bans (LEFT JOIN: the ban columns are null when it has none). */
export type SnapshotContextRow = ContextRow & {
  ban_keywords: Ban['keywords'] | null;
  ban_group_id: Ban['group_id'] | null;
  ban_reason: Ban['reason'] | null;
  ban_time: Ban['time'] | null;
};

export type AnswerRow = Pick<Answer, 'id' | 'keywords' | 'group_id' | 'count' | 'time'>;

/** An answer with the context it belongs to. */
export type ContextAnswerRow = AnswerRow & Pick<Answer, 'context_id'>;

/** An answer with one of its messages (LEFT JOIN: null when it has none). */
export type AnswerWithMessageRow = AnswerRow & { message: AnswerMessage['message'] | null };

export type BanRow = Pick<Ban, 'context_id' | 'keywords' | 'group_id' | 'reason' | 'time'>;

export type MessageRow = Pick<AnswerMessage, 'answer_id' | 'message'>;

/** A context ranked by hot keywords: `score` is its answer count sum (of one group's answers, or all). */
export type HotContextRow = Pick<Context, 'id' | 'keywords'> & { score: number };

/** One of the top answers of a hot context, with its first message ('' when it has none). */
export type HotAnswerRow = Pick<Answer, 'context_id' | 'keywords' | 'count'> & Pick<AnswerMessage, 'message'>;

/** A polluted answer message found by the contamination cleanup, with its answer and context. */
export type PollutedMessageRow = Pick<AnswerMessage, 'id' | 'answer_id'> & Pick<Answer, 'context_id'>;

/** Phrases a text must contain one of, and must contain none of (contamination cleanup). */
export interface PhraseMatch {
  phrases: readonly string[];
  exempt: readonly string[];
}

export type NewAnswerRow = Omit<Insertable<ContextAnswerTable>, 'id'>;
