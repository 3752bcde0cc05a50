/**
 * A learn batch (docs/rules.md#learn-write): many learn_answer pairs in ONE unit of work, with
 * exactly the per-pair semantics of `learnAnswer` (corpus-programs.ts) applied in the order given.
 *
 * SQLite runs the per-pair program once per pair inside the one transaction: its statements are
 * in-process calls of microseconds, and the whole batch costs one commit. PostgreSQL pays a round
 * trip per statement, so there the batch is set-based: the pairs are summed per context and per
 * answer and written with three multi-row statements (corpus-queries-learn.ts), whatever the size.
 * What one-by-one learning would have produced, the sums produce too:
 * - a context gets +1 trigger count and +1 answer count sum per pair, and the LAST pair's time;
 *   the first pair of a key that did not exist creates it and is the one whose result is "new";
 * - an answer gets +1 count per pair and the last pair's time;
 * - a message is stored for the first pair of an answer this batch created, and for every pair
 *   asking to append; in pair order, so their ids keep the learn order.
 * Contexts are written sorted by hash: two processes' batches lock them in the same order and
 * cannot deadlock on each other (a single-pair write holds one context; any other deadlock is
 * detected by the server and the batch is retried pair by pair by the store).
 */
import type { LearnBatchResult, LearnInput, LearnOutcome } from '../domain/corpus.ts';
import { errorMessage, PoolTimeoutError } from '../common/errors.ts';
import type { LearnBatchAnswer, LearnBatchContext } from './corpus-queries-learn.ts';
import type { CorpusQueries } from './corpus-queries.ts';
import { learnAnswer } from './corpus-programs.ts';
import { keywordsHash } from '../domain/keywords-hash.ts';
import { exec, rows, type Program } from '../sql/program.ts';
import type { StoreAccess } from './store-access.ts';

/**
 * Writes a batch of clean (NUL-free) pairs as one unit of work, or, when that fails, pair by pair
 * so that one bad pair cannot lose the others; `onWritten` is called with each written key after
 * its unit of work committed. A database that hands out no connection (a pool timeout, SQLite busy)
 * is not retried pair by pair: every pair would wait out the same timeout, so they all fail at once.
 * Runs as background work: not counted in pool pressure (docs/rules.md#store-pressure).
 */
export async function runLearnBatch(
  access: StoreAccess,
  inputs: readonly LearnInput[],
  onWritten: (keywords: string) => void,
): Promise<LearnBatchResult> {
  const { engine, q } = access;
  const options = { write: true, background: true } as const;
  const program = engine.kind === 'postgres' ? learnBatchSetBased : learnBatchPairwise;
  let batchError: unknown;
  try {
    const created = await engine.run(() => program(q, inputs), options);
    for (const input of inputs) onWritten(input.keywords);
    return { outcomes: created.map(outcomeOf), retriedPairByPair: false };
  } catch (error) {
    batchError = error;
  }
  const outcomes: LearnOutcome[] = inputs.map(() => 'failed');
  const error = errorMessage(batchError);
  if (inputs.length === 1 || batchError instanceof PoolTimeoutError) {
    return { outcomes, retriedPairByPair: false, error };
  }
  for (const [index, input] of inputs.entries()) {
    try {
      const created = await engine.run(() => learnAnswer(q, input), options);
      onWritten(input.keywords);
      outcomes[index] = outcomeOf(created);
    } catch (error) {
      if (error instanceof PoolTimeoutError) break;
    }
  }
  return { outcomes, retriedPairByPair: true, error };
}

function outcomeOf(created: boolean): LearnOutcome {
  return created ? 'created' : 'existing';
}

/** Per pair, one-by-one: for SQLite, inside the caller's one transaction. Returns "was new" per pair. */
export function* learnBatchPairwise(q: CorpusQueries, inputs: readonly LearnInput[]): Program<boolean[]> {
  const created: boolean[] = [];
  for (const input of inputs) created.push(yield* learnAnswer(q, input));
  return created;
}

/** Set-based, for PostgreSQL: three statements for the whole batch. Returns "was new" per pair. */
export function* learnBatchSetBased(q: CorpusQueries, inputs: readonly LearnInput[]): Program<boolean[]> {
  if (inputs.length === 0) return [];
  const hashed = inputs.map((input) => ({ input, hash: keywordsHash(input.keywords) }));
  const contexts = new Map<string, LearnBatchContext>();
  for (const { input, hash } of hashed) {
    const seen = contexts.get(hash);
    if (seen) {
      seen.events++;
      seen.time = input.answerTime;
    } else contexts.set(hash, { keywords: input.keywords, hash, events: 1, time: input.answerTime });
  }
  const contextRows = yield* rows(
    q.upsertLearnContexts([...contexts.values()].sort((a, b) => compare(a.hash, b.hash))),
  );
  const contextByHash = new Map(contextRows.map((row) => [row.keywords_hash, row]));

  const keyed: { input: LearnInput; key: string }[] = [];
  const answers = new Map<string, LearnBatchAnswer>();
  for (const { input, hash: contextHash } of hashed) {
    const context = contextByHash.get(contextHash);
    if (!context) throw new Error('learn batch: a context upsert returned no row');
    const hash = keywordsHash(input.answerKeywords);
    const key = answerKey(context.id, input.groupId, hash);
    keyed.push({ input, key });
    const seen = answers.get(key);
    if (seen) {
      seen.events++;
      seen.time = input.answerTime;
    } else {
      answers.set(key, {
        contextId: context.id,
        keywords: input.answerKeywords,
        hash,
        groupId: input.groupId,
        events: 1,
        time: input.answerTime,
      });
    }
  }
  const answerRows = yield* rows(
    q.upsertLearnAnswers(
      [...answers.values()].sort(
        (a, b) => a.contextId - b.contextId || a.groupId - b.groupId || compare(a.hash, b.hash),
      ),
    ),
  );
  const answerByKey = new Map(
    answerRows.map((row) => [answerKey(row.context_id, row.group_id, row.keywords_hash), row]),
  );

  const messages: { answerId: number; message: string }[] = [];
  const answered = new Set<string>();
  for (const { input, key } of keyed) {
    const answer = answerByKey.get(key);
    if (!answer) throw new Error('learn batch: an answer upsert returned no row');
    const firstOfNewAnswer = answer.inserted && !answered.has(key);
    answered.add(key);
    if (firstOfNewAnswer || input.appendOnExisting) messages.push({ answerId: answer.id, message: input.message });
  }
  if (messages.length > 0) yield* exec(q.insertLearnMessages(messages));

  const createdSeen = new Set<string>();
  return hashed.map(({ hash }) => {
    const context = contextByHash.get(hash);
    if (!context?.inserted || createdSeen.has(hash)) return false;
    createdSeen.add(hash);
    return true;
  });
}

function answerKey(contextId: number, groupId: number, hash: string): string {
  return `${contextId}\u0000${groupId}\u0000${hash}`;
}

/** Code-unit order: the same in every process, which is all the lock order needs. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
