/** Reading the local hot keywords (docs/rules.md#local-hot) in short steps; ranking in hot-keywords.ts. */
import { AdaptiveChunk, yieldToEventLoop } from '../common/adaptive-chunk.ts';
import { positiveInt } from './corpus-clean.ts';
import type { HotAnswerRow, HotContextRow } from './corpus-queries.ts';
import {
  HOT_KEYWORDS_OVERFETCH,
  hotKeywordRows,
  TopContexts,
  type HotKeywordRow,
  type HotKeywordsQuery,
} from './hot-keywords.ts';
import { readRows } from '../sql/engine.ts';
import { BULK_STEP_TARGET_MS, maxId as readMaxId, type StoreAccess } from './store-access.ts';

/**
 * Local hot keywords (docs/rules.md#local-hot): up to `limit × HOT_KEYWORDS_OVERFETCH` contexts
 * by answer count sum desc, keywords asc (code point order on both engines), each with its top
 * `answersPerKeyword` answers (count desc, answer keywords asc) and their first messages. With
 * scope 'group' and a groupId, scores and answers count only that group's answers.
 *
 * PostgreSQL: two statements. SQLite: the global ranking is one index walk; the per-group
 * aggregate walks context id windows and the answers come in groups of contexts, each step
 * short (adaptive), so that no synchronous call holds the event loop long at any corpus size.
 */
export async function hotKeywords(store: StoreAccess, query: HotKeywordsQuery): Promise<HotKeywordRow[]> {
  const size = positiveInt(query.limit, 'limit') * HOT_KEYWORDS_OVERFETCH;
  const perContext = positiveInt(query.answersPerKeyword, 'answersPerKeyword');
  const groupId = query.scope === 'group' && typeof query.groupId === 'number' ? query.groupId : undefined;
  const contexts =
    groupId === undefined
      ? await readRows(store.engine, store.q.hotContexts({ limit: size }))
      : await hotContextsOfGroup(store, groupId, size);
  if (contexts.length === 0) return [];
  const answers: HotAnswerRow[] = [];
  const step = new AdaptiveChunk(64, 8, 4096, BULK_STEP_TARGET_MS);
  for (let start = 0; start < contexts.length;) {
    const count = store.engine.longTransactions ? contexts.length : step.size;
    const ids = contexts.slice(start, start + count).map((row) => row.id);
    const statement =
      groupId === undefined ? store.q.hotAnswers(ids, perContext) : store.q.hotAnswersOfGroup(ids, groupId, perContext);
    if (start > 0) await yieldToEventLoop();
    const started = performance.now();
    answers.push(...(await readRows(store.engine, statement)));
    step.record(performance.now() - started);
    start += ids.length;
  }
  return hotKeywordRows(contexts, answers);
}

/**
 * The best `size` contexts of one group. PostgreSQL: one aggregate over the group's answers.
 * SQLite: the same statement over context id windows, keeping the best so far; a window only
 * joins contexts scoring at least the current last place, so later windows cost little.
 */
async function hotContextsOfGroup(
  store: StoreAccess,
  groupId: number,
  size: number,
): Promise<readonly HotContextRow[]> {
  const q = store.q;
  if (store.engine.longTransactions) {
    const query = q.hotContextsOfGroupInRange({
      groupId,
      fromId: 0,
      toId: Number.MAX_SAFE_INTEGER,
      minScore: 1,
      limit: size,
      lastPlace: size - 1,
    });
    return readRows(store.engine, query);
  }
  const maxId = await readMaxId(store, q.maxContextId({}));
  const best = new TopContexts(size);
  const step = new AdaptiveChunk(16_384, 256, 4_000_000, BULK_STEP_TARGET_MS);
  for (let fromId = 0; fromId < maxId;) {
    const toId = Math.min(maxId, fromId + step.size);
    const query = q.hotContextsOfGroupInRange({
      groupId,
      fromId,
      toId,
      minScore: best.minScore,
      limit: size,
      lastPlace: size - 1,
    });
    const started = performance.now();
    best.add(await readRows(store.engine, query));
    step.record(performance.now() - started);
    fromId = toId;
    if (fromId < maxId) await yieldToEventLoop();
  }
  return best.rows;
}
