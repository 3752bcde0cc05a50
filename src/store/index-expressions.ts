/**
 * The indexed expressions of the store, in one leaf module that both the migrations (which create
 * the indexes) and the statements (which must repeat each expression exactly, constants inlined,
 * for the planner to use the index) import. Every prefix compares in byte (code point) order on
 * both engines: SQLite's default BINARY collation, PostgreSQL's "C" (whatever the database's default).
 */
import type { EngineKind } from '../sql/engine-kind.ts';

/** Characters (code points) of the keywords held by the paging index. */
export const KEYWORDS_PAGE_PREFIX_CHARS = 64;

/**
 * The indexed expression, in the byte (code point) order both engines sort by. Queries repeat it
 * exactly (constants inlined) so the planner matches the index.
 */
export const KEYWORDS_PAGE_PREFIX: Record<EngineKind, string> = {
  sqlite: `substr(keywords, 1, ${KEYWORDS_PAGE_PREFIX_CHARS})`,
  postgres: `substr(keywords, 1, ${KEYWORDS_PAGE_PREFIX_CHARS}) COLLATE "C"`,
};

/** The index itself (SQLite appends the rowid to every index entry; PostgreSQL needs the id). */
export const KEYWORDS_PAGE_INDEX: Record<EngineKind, string> = {
  sqlite: KEYWORDS_PAGE_PREFIX.sqlite,
  postgres: `${KEYWORDS_PAGE_PREFIX.postgres}, id`,
};

export const KEYWORDS_PAGE_INDEX_NAME = 'ix_context_keywords_prefix';

/** Characters of an answer message held by the moderation search index. */
export const MESSAGE_PREFIX_CHARS = 64;
/** The indexed expression, repeated exactly by queries (code point order on both engines). */
export const MESSAGE_PREFIX: Record<EngineKind, string> = {
  sqlite: `substr(message, 1, ${MESSAGE_PREFIX_CHARS})`,
  postgres: `substr(message, 1, ${MESSAGE_PREFIX_CHARS}) COLLATE "C"`,
};
export const MESSAGE_PREFIX_INDEX: Record<EngineKind, string> = {
  sqlite: MESSAGE_PREFIX.sqlite,
  postgres: `${MESSAGE_PREFIX.postgres}, answer_id`,
};
export const MESSAGE_PREFIX_INDEX_NAME = 'ix_context_answer_message_prefix';

/**
 * The keywords prefix of `ix_context_answer_count_sum`, in the byte (code point) order both engines
 * sort by: SQLite's default BINARY collation, PostgreSQL's "C" (whatever the database's default).
 * Queries must repeat this exact expression (constants inlined) for the planner to use the index.
 */
export const HOT_KEYWORDS_PREFIX: Record<EngineKind, string> = {
  sqlite: 'substr(keywords, 1, 64)',
  postgres: 'substr(keywords, 1, 64) COLLATE "C"',
};
