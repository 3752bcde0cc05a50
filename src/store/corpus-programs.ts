import type { Answer, Ban, Context, LearnInput } from '../domain/corpus.ts';
import { STORE_CHUNK } from '../common/limits.ts';
import type { CorpusQueries, NewAnswerRow, PhraseMatch } from './corpus-queries.ts';
import { keywordsHash } from '../domain/keywords-hash.ts';
import { exec, first, rows, type BoundQuery, type Program } from '../sql/program.ts';

/**
 * The write units of work of the corpus store, each defined once for both engines (program.ts).
 * Inputs arrive NUL-free (the store cleans them). Concurrency: every write locks the context row
 * before its answers (same order everywhere), and "insert if missing, else update" is two
 * statements that are safe under PostgreSQL's READ COMMITTED (a concurrent insert makes ours wait,
 * then do nothing, and the update sees the committed row).
 *
 * `context.answer_count_sum` (the sum of its answers' counts) is kept exact by every program here,
 * inside the statements that already write the context row: learn and upsert add 1 in
 * `touchContext` (a context created by learn starts at 1), insert and save write the sum of the
 * answers given, replace_answers and the contamination cleanup set or recount it.
 */

/** Count one learn event on an answer of an existing context; returns the answer id. */
function* countAnswer(q: CorpusQueries, contextId: number, input: LearnInput): Program<void> {
  const hash = keywordsHash(input.answerKeywords);
  const created = yield* first(
    q.insertAnswerIfMissing({
      contextId,
      keywords: input.answerKeywords,
      hash,
      groupId: input.groupId,
      time: input.answerTime,
    }),
  );
  let answerId = created?.id;
  if (answerId === undefined) {
    const touched = yield* first(q.touchAnswer({ contextId, hash, groupId: input.groupId, time: input.answerTime }));
    answerId = touched?.id;
  }
  // A new answer always stores its message; an existing one only when asked to append.
  if (answerId !== undefined && (created || input.appendOnExisting)) {
    yield* exec(q.insertMessage({ answerId, message: input.message }));
  }
}

/** learn_answer: creates the context when missing; returns whether it did. */
export function* learnAnswer(q: CorpusQueries, input: LearnInput): Program<boolean> {
  const hash = keywordsHash(input.keywords);
  const inserted = yield* first(
    q.insertContextIfMissing({
      keywords: input.keywords,
      hash,
      time: input.answerTime,
      triggerCount: 1,
      clearTime: 0,
      answerCountSum: 1,
    }),
  );
  let contextId = inserted?.id;
  if (contextId === undefined) {
    contextId = (yield* first(q.touchContext({ hash, time: input.answerTime })))?.id;
    if (contextId === undefined) return false; // deleted between the two statements: nothing to learn into
  }
  yield* countAnswer(q, contextId, input);
  return inserted !== undefined;
}

/** upsert_answer: no-op when the context is missing. Returns whether anything was written. */
export function* upsertAnswer(q: CorpusQueries, input: LearnInput): Program<boolean> {
  const touched = yield* first(q.touchContext({ hash: keywordsHash(input.keywords), time: input.answerTime }));
  if (!touched) return false;
  yield* countAnswer(q, touched.id, input);
  return true;
}

/** save: create or overwrite the context; its answers and bans are replaced by the given ones. */
export function* saveContext(q: CorpusQueries, context: Context): Program<void> {
  const row = yield* first(q.upsertContext(wholeContextValues(context)));
  if (!row) throw new Error('upsert of a context returned no id');
  yield* exec(q.deleteAnswersOfContext({ contextId: row.id }));
  yield* exec(q.deleteBansOfContext({ contextId: row.id }));
  yield* insertChildren(q, row.id, context.answers, context.bans);
}

/** insert: create the whole context; when the key already exists, do nothing and return false. */
export function* insertContext(q: CorpusQueries, context: Context): Program<boolean> {
  const row = yield* first(q.insertContextIfMissing(wholeContextValues(context)));
  if (!row) return false;
  yield* insertChildren(q, row.id, context.answers, context.bans);
  return true;
}

export function* appendBan(q: CorpusQueries, keywords: string, ban: Ban): Program<boolean> {
  const row = yield* first(q.contextIdByHash({ hash: keywordsHash(keywords) }));
  if (!row) return false;
  yield* exec(
    q.insertBan({
      contextId: row.id,
      keywords: ban.keywords,
      groupId: ban.groupId,
      reason: ban.reason,
      time: ban.time,
    }),
  );
  return true;
}

/** replace_answers, part 1: set each given answer (values and messages); returns their ids. */
export function* putAnswers(q: CorpusQueries, contextId: number, answers: Answer[]): Program<number[]> {
  const ids: number[] = [];
  for (const answer of answers) {
    const row = yield* first(
      q.putAnswer({
        contextId,
        keywords: answer.keywords,
        hash: keywordsHash(answer.keywords),
        groupId: answer.groupId,
        count: answer.count,
        time: answer.time,
      }),
    );
    if (!row) throw new Error('upsert of an answer returned no id');
    ids.push(row.id);
    yield* exec(q.deleteMessagesOfAnswer({ answerId: row.id }));
    for (const batch of chunks(answer.messages, STORE_CHUNK.insertRows)) {
      yield* exec(q.insertMessages(batch.map((message) => ({ answer_id: row.id, message }))));
    }
  }
  return ids;
}

/** replace_answers, part 2: delete the context's answers that were not kept, in chunks. */
export function* deleteOrphanAnswers(
  q: CorpusQueries,
  contextId: number,
  keptIds: ReadonlySet<number>,
): Program<number> {
  const all = yield* rows(q.answerIdsOfContext({ contextId }));
  const orphans = all.map((row) => row.id).filter((id) => !keptIds.has(id));
  for (const batch of chunks(orphans, STORE_CHUNK.orphanDelete)) yield* exec(q.deleteAnswersById(batch));
  return orphans.length;
}

export function wholeContextValues(context: Context) {
  return {
    keywords: context.keywords,
    hash: keywordsHash(context.keywords),
    time: context.time,
    triggerCount: context.triggerCount,
    clearTime: context.clearTime,
    // Merging duplicate answers adds their counts, so the sum is the same before and after.
    answerCountSum: context.answers.reduce((sum, answer) => sum + answer.count, 0),
  };
}

/**
 * The answer count sum after replace_answers stores `answers`: each (group, keywords) once, the
 * last occurrence's count winning (putAnswers overwrites in order); every other answer is deleted.
 */
export function replacedAnswerCountSum(answers: readonly Answer[]): number {
  const countByKey = new Map<string, number>();
  for (const answer of answers) countByKey.set(`${answer.groupId}\u0000${answer.keywords}`, answer.count);
  let sum = 0;
  for (const count of countByKey.values()) sum += count;
  return sum;
}

export interface PollutedStepResult {
  /** Candidates found in the window (at most the limit asked for). */
  found: number;
  /** Id of the last candidate, to continue after it when the window was not finished. */
  lastId: number;
  answerMessages: number;
  emptyAnswers: number;
}

/**
 * Contamination cleanup, one step: the polluted answer messages of an id window (at most
 * `limit`), deleted with the answers they leave empty; those contexts' sums are recounted. Lock
 * order as everywhere: the contexts' rows first, then their answers and messages. Only answers
 * that lost a message here are candidates for deletion (an answer that was already empty is left
 * alone: that is some other writer's state, not pollution).
 */
export function* deletePollutedAnswerMessages(
  q: CorpusQueries,
  window: { fromId: number; toId: number; limit: number },
  match: PhraseMatch,
): Program<PollutedStepResult> {
  const found = yield* rows(q.pollutedAnswerMessagesInRange(window.fromId, window.toId, match, window.limit));
  const last = found.at(-1);
  if (!last) return { found: 0, lastId: window.toId, answerMessages: 0, emptyAnswers: 0 };
  const contextIds = [...new Set(found.map((row) => row.context_id))].sort((a, b) => a - b);
  yield* rows(q.lockContexts(contextIds));
  const answerMessages = yield* exec(q.deleteAnswerMessagesById(found.map((row) => row.id)));
  const emptyAnswers = yield* exec(q.deleteEmptyAnswersById([...new Set(found.map((row) => row.answer_id))]));
  if (emptyAnswers > 0) yield* exec(q.recountContexts(contextIds));
  return { found: found.length, lastId: last.id, answerMessages, emptyAnswers };
}

/** Contamination cleanup of the group message log, one step over an id window. */
export function* deletePollutedLogMessages(
  q: CorpusQueries,
  window: { fromId: number; toId: number; limit: number },
  match: PhraseMatch,
): Program<{ found: number; lastId: number; deleted: number }> {
  const found = yield* rows(q.pollutedLogMessagesInRange(window.fromId, window.toId, match, window.limit));
  const last = found.at(-1);
  if (!last) return { found: 0, lastId: window.toId, deleted: 0 };
  const deleted = yield* exec(q.deleteLogMessagesById(found.map((row) => row.id)));
  return { found: found.length, lastId: last.id, deleted };
}

function* insertChildren(q: CorpusQueries, contextId: number, answers: Answer[], bans: Ban[]): Program<void> {
  const unique = mergeDuplicateAnswers(answers);
  for (const batch of chunks(unique, STORE_CHUNK.insertRows)) {
    const values: NewAnswerRow[] = batch.map((answer) => ({
      context_id: contextId,
      keywords: answer.keywords,
      keywords_hash: keywordsHash(answer.keywords),
      group_id: answer.groupId,
      count: answer.count,
      time: answer.time,
    }));
    const inserted = yield* rows(q.insertAnswers(values));
    // RETURNING order is not guaranteed by PostgreSQL: match rows back by their unique key.
    const idByKey = new Map(inserted.map((row) => [`${row.group_id}\u0000${row.keywords_hash}`, row.id]));
    const messages: { answer_id: number; message: string }[] = [];
    for (const [index, answer] of batch.entries()) {
      const value = values[index];
      const answerId = value && idByKey.get(`${value.group_id}\u0000${value.keywords_hash}`);
      if (answerId === undefined) continue;
      for (const message of answer.messages) messages.push({ answer_id: answerId, message });
    }
    for (const messageBatch of chunks(messages, STORE_CHUNK.insertRows)) yield* exec(q.insertMessages(messageBatch));
  }
  for (const batch of chunks(bans, STORE_CHUNK.insertRows)) {
    yield* exec(
      q.insertBans(
        batch.map((ban) => ({
          context_id: contextId,
          keywords: ban.keywords,
          group_id: ban.groupId,
          reason: ban.reason,
          time: ban.time,
        })),
      ),
    );
  }
}

/** Two answers with the same (group, keywords) are one answer: counts add, messages concatenate. */
function mergeDuplicateAnswers(answers: Answer[]): Answer[] {
  const byKey = new Map<string, Answer>();
  for (const answer of answers) {
    const key = `${answer.groupId}\u0000${answer.keywords}`;
    const seen = byKey.get(key);
    if (!seen) {
      byKey.set(key, { ...answer, messages: [...answer.messages] });
      continue;
    }
    seen.count += answer.count;
    seen.time = Math.max(seen.time, answer.time);
    seen.messages.push(...answer.messages);
  }
  return [...byKey.values()];
}

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size) result.push(items.slice(start, start + size));
  return result;
}

/** A unit of work of one statement run for its effect. */
export function* execOnly(query: BoundQuery): Program<number> {
  return yield* exec(query);
}
