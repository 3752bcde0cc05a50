import { sql, type Expression, type Kysely, type RawBuilder } from 'kysely';
import type { EngineKind } from '../sql/engine-kind.ts';
import type { Database } from './schema.ts';

/** What every group of corpus statements is built from (src/store/corpus-queries.ts). */
export interface QueryContext {
  db: Kysely<Database>;
  kind: EngineKind;
  /** Keywords compare by code point on both engines: SQLite's BINARY, PostgreSQL's "C" collation. */
  byteOrder: RawBuilder<unknown>;
  /** The indexed keywords prefix expression of the hot-keywords order. */
  keywordsPrefix: RawBuilder<unknown>;
  /** An id list as one parameter, so the statement text does not depend on its length. */
  idList: (ids: readonly number[]) => unknown;
}

/** SUM(count) of the answers of the context `contextId` refers to, 0 when it has none. */
export function answerCountSumOf(contextId: Expression<number>): RawBuilder<number> {
  return sql<number>`(SELECT COALESCE(SUM(a.count), 0) FROM context_answer a WHERE a.context_id = ${contextId})`;
}
