/**
 * The cleanup scan (docs/rules.md#maintenance): contexts that may need pruning, over id windows, each page
 * loaded whole in short steps so no synchronous SQLite call holds the event loop for long.
 */
import type { Answer, Ban, Context } from '../domain/corpus.ts';
import { STORE_CHUNK } from '../common/limits.ts';
import { AdaptiveChunk, yieldToEventLoop } from '../common/adaptive-chunk.ts';
import { answersWithMessages, banFromRow, contextFromRows } from './context-rows.ts';
import type { AnswerRow, BanRow, ContextRow, MessageRow } from './corpus-queries.ts';
import { rows, type Program } from '../sql/program.ts';
import { readRows } from '../sql/engine.ts';
import { BULK_STEP_TARGET_MS, maxId as readMaxId, type StoreAccess } from './store-access.ts';

export async function* iterateCleanupCandidates(
  store: StoreAccess,
  triggerThreshold: number,
  expiration: number,
): AsyncIterable<Context[]> {
  const maxId = await readMaxId(store, store.q.maxContextId({}));
  const scan = new AdaptiveChunk(STORE_CHUNK.scanIds, 64, 200_000, BULK_STEP_TARGET_MS);
  const load = {
    page: new AdaptiveChunk(STORE_CHUNK.cleanupPage, 1, 1000, BULK_STEP_TARGET_MS),
    messages: new AdaptiveChunk(STORE_CHUNK.cleanupMessageAnswers, 16, 5000, BULK_STEP_TARGET_MS),
  };
  for (let fromId = 0; fromId < maxId;) {
    const limit = load.page.size;
    // Fixed before the step is timed: recording it resizes the next range, not this one.
    const toId = Math.min(maxId, fromId + scan.size);
    const query = store.q.cleanupCandidatesInRange({ fromId, toId, triggerThreshold, expiration, limit });
    const started = performance.now();
    const candidates = await readRows(store.engine, query);
    scan.record(performance.now() - started);
    // A full page may stop short of the range's end: continue right after its last row.
    const last = candidates.at(-1);
    fromId = candidates.length === limit && last ? last.id : toId;
    if (candidates.length === 0) {
      await yieldToEventLoop();
      continue;
    }
    await yieldToEventLoop();
    yield await loadContexts(store, candidates, load);
    await yieldToEventLoop();
  }
}

/**
 * Loads whole contexts in short steps: their answers and bans in one call (the page size adapts
 * to its time), then the messages in batches of answer ids (adapting too), yielding between
 * calls. Cleanup candidates are the biggest contexts; one call for all their messages held the
 * SQLite event loop for tens of ms at a million contexts (bench:store).
 */
async function loadContexts(
  store: StoreAccess,
  contextRows: ContextRow[],
  steps: { page: AdaptiveChunk; messages: AdaptiveChunk },
): Promise<Context[]> {
  const q = store.q;
  const ids = contextRows.map((row) => row.id);
  let started = performance.now();
  const [answerRows, banRows] = await store.engine.run(function* (): Program<
    [(AnswerRow & { context_id: number })[], BanRow[]]
  > {
    const answers = yield* rows(q.answersOfContexts(ids));
    const bans = yield* rows(q.bansOfContexts(ids));
    return [answers, bans];
  });
  steps.page.record(performance.now() - started);
  const messageRows: MessageRow[] = [];
  for (let index = 0; index < answerRows.length;) {
    const batch = answerRows.slice(index, index + steps.messages.size).map((row) => row.id);
    index += batch.length;
    await yieldToEventLoop();
    started = performance.now();
    const query = q.messagesOfAnswers(batch);
    messageRows.push(...(await readRows(store.engine, query)));
    steps.messages.record(performance.now() - started);
  }
  const answersById = answersWithMessages(answerRows, messageRows);
  const answersByContext = new Map<number, Answer[]>();
  for (const row of answerRows) {
    const answer = answersById.get(row.id);
    if (!answer) continue;
    const list = answersByContext.get(row.context_id) ?? [];
    list.push(answer);
    answersByContext.set(row.context_id, list);
  }
  const bansByContext = new Map<number, Ban[]>();
  for (const row of banRows) {
    const list = bansByContext.get(row.context_id) ?? [];
    list.push(banFromRow(row));
    bansByContext.set(row.context_id, list);
  }
  return contextRows.map((row) =>
    contextFromRows(row, answersByContext.get(row.id) ?? [], bansByContext.get(row.id) ?? []),
  );
}
