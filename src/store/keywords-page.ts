/**
 * Paging the whole corpus in keywords order, for the history backfill (docs/rules.md#backfill: contexts
 * ascending by keywords after a cursor). Ordering a million rows by a text column needs an index,
 * and a whole key may exceed PostgreSQL's btree entry limit (docs/rules.md#store-keys), so the index
 * (migration 0004) holds a 64-character prefix of the keywords, followed by the id: pages walk
 * (prefix, id) in code point order on both engines. Keys shorter than the prefix (nearly all) come
 * in exact keywords order; longer keys sharing a prefix come in id order among themselves.
 *
 * A page is at most two index range reads: the rest of the cursor's own prefix (by id), then the
 * prefixes after it. Neither sorts nor scans beyond the rows it returns, at any corpus size.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { EngineKind } from '../sql/engine-kind.ts';
import { template, type Param } from '../sql/query.ts';
import { KEYWORDS_PAGE_PREFIX, KEYWORDS_PAGE_PREFIX_CHARS } from './index-expressions.ts';
import type { ContextTable, Database } from './schema.ts';

/** Where a page starts: after this context. `id` null = look the keywords up (or start of prefix). */
export interface KeywordsCursor {
  keywords: string;
  id: number | null;
}

/** One context of a page: its id and keywords (the caller loads what it needs). */
export type ContextKey = Pick<Selectable<ContextTable>, 'id' | 'keywords'>;

/** The prefix a context is ordered by, computed as the engines do (by code point). */
export function keywordsPagePrefix(keywords: string): string {
  let prefix = '';
  let count = 0;
  for (const char of keywords) {
    if (count++ >= KEYWORDS_PAGE_PREFIX_CHARS) break;
    prefix += char;
  }
  return prefix;
}

/** The two statements of a page, compiled once. */
export function keywordsPageQueries(db: Kysely<Database>, kind: EngineKind) {
  const prefix = sql.raw(KEYWORDS_PAGE_PREFIX[kind]);
  return {
    /** The rest of one prefix: same prefix, larger id. */
    samePrefixAfter: template((p: Param<{ prefix: string; id: number; limit: number }>) => ({
      compile: () =>
        sql<ContextKey>`SELECT id, keywords FROM context
          WHERE ${prefix} = ${p('prefix')} AND id > ${p('id')}
          ORDER BY id
          LIMIT ${p('limit')}`.compile(db),
    })),
    /** The prefixes after one prefix, each by id. */
    prefixesAfter: template((p: Param<{ prefix: string; limit: number }>) => ({
      compile: () =>
        sql<ContextKey>`SELECT id, keywords FROM context
          WHERE ${prefix} > ${p('prefix')}
          ORDER BY ${prefix}, id
          LIMIT ${p('limit')}`.compile(db),
    })),
  };
}

export type KeywordsPageQueries = ReturnType<typeof keywordsPageQueries>;
