/**
 * Bulk work over the whole corpus in short steps (docs/rules.md#store-chunks): expiry and the
 * contamination cleanup. Each step is its own short transaction sized to BULK_STEP_TARGET_MS, so
 * a million-row corpus never holds the event loop (SQLite) or long locks (PostgreSQL). The store
 * drops its snapshot cache after a call that deleted something.
 */
import { STORE_CHUNK } from '../common/limits.ts';
import { stripNul } from '../common/text.ts';
import { AdaptiveChunk, yieldToEventLoop } from '../common/adaptive-chunk.ts';
import * as programs from './corpus-programs.ts';
import type { PhraseMatch } from './corpus-queries.ts';
import { BULK_STEP_TARGET_MS, maxId as readMaxId, type StoreAccess } from './store-access.ts';

/** Contamination cleanup (docs/rules.md#cleanup): what to delete, and how much at most per call. */
export interface PollutedMessagesOptions {
  /** A message containing one of these is polluted; empty strings are ignored. */
  phrases: readonly string[];
  /** ...unless it also contains one of these. */
  exempt: readonly string[];
  /** At most this many answer messages, and at most this many group log rows, per call. */
  maxDelete: number;
}

export interface PollutedMessagesDeleted {
  answerMessages: number;
  /** Answers deleted because this call removed their last message. */
  emptyAnswers: number;
  logMessages: number;
}

/** Rows deleted per cleanup statement, at most (the origin deletes in chunks of 500). */
const POLLUTED_DELETE_CHUNK = 500;

/**
 * Deletes in steps over id ranges, each its own short transaction, so that a million-row
 * corpus never holds the event loop (SQLite) or long locks (PostgreSQL).
 */
export async function deleteExpired(
  store: StoreAccess,
  expiration: number,
  threshold: number,
): Promise<number> {
  const maxId = await readMaxId(store, store.q.maxContextId({}));
  // A delete cascades to answers and messages and dirties pages across every index: start
  // small and let the step grow, rather than start at the scan size and overrun the budget.
  const step = new AdaptiveChunk(STORE_CHUNK.deleteIds, 16, 200_000, BULK_STEP_TARGET_MS);
  let deleted = 0;
  for (let fromId = 0; fromId < maxId;) {
    const toId = Math.min(maxId, fromId + step.size);
    const query = store.q.deleteExpiredInRange({ fromId, toId, expiration, threshold });
    const started = performance.now();
    deleted += await store.engine.run(() => programs.execOnly(query), { write: true });
    step.record(performance.now() - started);
    fromId = toId;
    await yieldToEventLoop();
  }
  return deleted;
}

/**
 * Contamination cleanup (docs/rules.md#cleanup): deletes answer messages containing a phrase and no
 * exempt phrase, then the answers this left without any message (recounting their contexts'
 * sums), then group log rows likewise; at most `maxDelete` of each kind. Works over id windows
 * in short transactions. An empty phrase list deletes nothing.
 */
export async function deletePollutedMessages(
  store: StoreAccess,
  options: PollutedMessagesOptions,
): Promise<PollutedMessagesDeleted> {
  const deleted: PollutedMessagesDeleted = { answerMessages: 0, emptyAnswers: 0, logMessages: 0 };
  const cleanList = (list: readonly string[]) => [...new Set(list.map(stripNul).filter((text) => text !== ''))];
  const match: PhraseMatch = { phrases: cleanList(options.phrases), exempt: cleanList(options.exempt) };
  const cap = Number.isFinite(options.maxDelete) ? Math.floor(options.maxDelete) : 0;
  if (match.phrases.length === 0 || cap <= 0) return deleted;
  const q = store.q;

  const answerMessagesMaxId = await readMaxId(store, q.maxAnswerMessageId({}));
  await scanWindows(answerMessagesMaxId, cap, async (window) => {
    const result = await store.engine.run(() => programs.deletePollutedAnswerMessages(q, window, match), {
      write: true,
    });
    deleted.answerMessages += result.answerMessages;
    deleted.emptyAnswers += result.emptyAnswers;
    return { ...result, deleted: result.answerMessages };
  });

  const logMaxId = await readMaxId(store, q.maxLogMessageId({}));
  await scanWindows(logMaxId, cap, async (window) => {
    const result = await store.engine.run(() => programs.deletePollutedLogMessages(q, window, match), {
      write: true,
    });
    deleted.logMessages += result.deleted;
    return result;
  });

  return deleted;
}

/**
 * Runs `step` over id windows (0, maxId], sized to stay short, until `cap` rows were deleted. A
 * step asks for at most the rest of the cap (and POLLUTED_DELETE_CHUNK); when it found as many
 * as it asked for, the next window starts right after its last row.
 */
async function scanWindows(
  maxId: number,
  cap: number,
  step: (window: {
    fromId: number;
    toId: number;
    limit: number;
  }) => Promise<{ found: number; lastId: number; deleted: number }>,
): Promise<void> {
  const size = new AdaptiveChunk(STORE_CHUNK.scanIds, 64, 1_000_000, BULK_STEP_TARGET_MS);
  let remaining = cap;
  for (let fromId = 0; fromId < maxId && remaining > 0;) {
    const toId = Math.min(maxId, fromId + size.size);
    const limit = Math.min(remaining, POLLUTED_DELETE_CHUNK);
    const started = performance.now();
    const result = await step({ fromId, toId, limit });
    size.record(performance.now() - started);
    remaining -= result.deleted;
    fromId = result.found === limit ? result.lastId : toId;
    await yieldToEventLoop();
  }
}
