import type { CorpusQueries } from './corpus-queries.ts';
import { readFirst } from '../sql/engine.ts';
import type { StoreEngine } from './schema.ts';

/** What the store's helpers run on: the engine and the compiled corpus statements. */
export interface StoreAccess {
  readonly engine: StoreEngine;
  readonly q: CorpusQueries;
}

/** Target duration of one synchronous step of bulk work (well under the 20 ms stall budget). */
export const BULK_STEP_TARGET_MS = 4;

/** The largest id a MAX(id) statement returns, 0 for an empty table. */
export async function maxId(store: StoreAccess, query: ReturnType<CorpusQueries['maxContextId']>): Promise<number> {
  const row = await readFirst(store.engine, query);
  return Number(row?.max_id ?? 0);
}
