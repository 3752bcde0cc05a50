import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { bulkQueries } from './corpus-queries-bulk.ts';
import { hotQueries } from './corpus-queries-hot.ts';
import { learnBatchQueries } from './corpus-queries-learn.ts';
import { readQueries } from './corpus-queries-read.ts';
import { writeQueries } from './corpus-queries-write.ts';
import type { EngineKind } from '../sql/engine-kind.ts';
import { HOT_KEYWORDS_PREFIX } from './index-expressions.ts';
import type { QueryContext } from './query-context.ts';
import type { Database } from './schema.ts';

export type * from './corpus-rows.ts';

/**
 * Every statement of the corpus store, built with Kysely in the engine's dialect, grouped by job
 * (reads, writes, the PostgreSQL learn batch, bulk work, hot keywords). Hot statements are
 * templates compiled once; statements whose text varies (multi-row inserts, id lists) are compiled
 * per call.
 */
export function corpusQueries(db: Kysely<Database>) {
  const kind: EngineKind = db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
  const ctx: QueryContext = {
    db,
    kind,
    byteOrder: sql.raw(kind === 'postgres' ? ' COLLATE "C"' : ''),
    keywordsPrefix: sql.raw(HOT_KEYWORDS_PREFIX[kind]),
    idList: (ids) => (kind === 'postgres' ? [...ids] : JSON.stringify(ids)),
  };
  return { ...readQueries(ctx), ...writeQueries(ctx), ...learnBatchQueries(ctx), ...bulkQueries(ctx), ...hotQueries(ctx) };
}

export type CorpusQueries = ReturnType<typeof corpusQueries>;
