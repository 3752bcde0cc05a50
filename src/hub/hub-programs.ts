/**
 * The hub store's units of work that span several statements (hub-store.ts): a contribution's
 * upsert or insert with its merge rules and the contributor's own share, the hot snapshot's
 * replacement, and row conversions.
 */
import { exec, first, rows, type Program } from '../sql/program.ts';
import { STORED_MESSAGES_PER_ANSWER_MAX } from './limits.ts';
import { insertTriggerCount, parseMessages, planInsert, upsertMessages, type StoredAnswer } from './merge.ts';
import { ROWS_PER_STATEMENT, type AgreedAnswerRow, type HubQueries, type PolicyRow, type VoteRow } from './queries.ts';
import type { Contribution, HotItemInput, Policy, StoredContextAnswer } from './hub-types.ts';

export function policyOf(row: PolicyRow): Policy {
  return {
    read: Number(row.read_enabled) === 1,
    contribute: Number(row.contribute_enabled) === 1,
    readPerMinute: Number(row.read_per_minute),
    contributionsPerDay: Number(row.contributions_per_day),
  };
}

export function agreedAnswerOf(row: AgreedAnswerRow): StoredContextAnswer {
  return {
    keywords: row.keywords,
    count: Number(row.count),
    time: Number(row.time),
    messages: parseMessages(row.messages),
  };
}

/**
 * An upsert_answer by `deploymentId`: the answer's total + 1 and the deployment's own share + 1
 * (hub_answer_vote), in the caller's transaction.
 */
export function* upsertAnswer(
  q: HubQueries,
  deploymentId: string,
  input: Extract<Contribution, { op: 'upsert_answer' }>,
): Program<void> {
  // The context row is written (and, on PostgreSQL, locked) first, so concurrent contributions to
  // one context queue behind each other and the read-then-write of the answer below is safe.
  const context = yield* first(
    q.touchContextForAnswer({ keywords: input.keywords, hash: input.hash, time: input.time }),
  );
  if (!context) throw new Error('context upsert returned no row');
  const contextId = Number(context.id);
  const stored = yield* first(q.answerByKey({ contextId, hash: input.answerHash }));
  let answerId: number;
  if (!stored) {
    const messages = upsertMessages(null, input.message, input.appendOnExisting, STORED_MESSAGES_PER_ANSWER_MAX);
    const inserted = yield* first(
      q.insertAnswer({
        context_id: contextId,
        keywords: input.answerKeywords,
        keywords_hash: input.answerHash,
        count: 1,
        time: input.time,
        messages: JSON.stringify(messages),
      }),
    );
    if (!inserted) throw new Error('answer insert returned no row');
    answerId = Number(inserted.id);
  } else {
    const messages = upsertMessages(
      parseMessages(stored.messages),
      input.message,
      input.appendOnExisting,
      STORED_MESSAGES_PER_ANSWER_MAX,
    );
    answerId = Number(stored.id);
    yield* exec(q.bumpAnswer({ id: answerId, time: input.time, messages: JSON.stringify(messages) }));
  }
  yield* exec(q.bumpVote({ answerId, deploymentId, contextId, time: input.time }));
}

/**
 * An insert by `deploymentId`: its own share of each answer becomes the given count, and each
 * answer's total moves by the difference, so an insert never lowers what others contributed.
 */
export function* insertContext(
  q: HubQueries,
  deploymentId: string,
  input: Extract<Contribution, { op: 'insert' }>,
): Program<void> {
  const context = yield* first(
    q.touchContextForInsert({
      keywords: input.keywords,
      hash: input.hash,
      time: input.time,
      // The stored trigger count becomes max(old, this) in the statement.
      triggerCount: insertTriggerCount(null, input.answers.length),
    }),
  );
  if (!context) throw new Error('context upsert returned no row');
  const contextId = Number(context.id);
  if (input.answers.length === 0) return;
  const hashes = [...new Set(input.answers.map((answer) => answer.hash))];
  const stored = new Map<string, StoredAnswer>();
  for (let start = 0; start < hashes.length; start += ROWS_PER_STATEMENT) {
    const found = yield* rows(
      q.answersByKeys({ contextId, hashes: q.listParam(hashes.slice(start, start + ROWS_PER_STATEMENT)) }),
    );
    if (found.length === 0) continue;
    const own = new Map<number, number>();
    const votes = yield* rows(q.ownVotes({ deploymentId, ids: q.listParam(found.map((row) => Number(row.id))) }));
    for (const vote of votes) own.set(Number(vote.answer_id), Number(vote.count));
    for (const row of found) {
      stored.set(row.keywords_hash, {
        count: Number(row.count),
        own: own.get(Number(row.id)) ?? 0,
        messages: parseMessages(row.messages),
      });
    }
  }
  const plan = planInsert(input.answers, stored, STORED_MESSAGES_PER_ANSWER_MAX);
  for (let start = 0; start < plan.rows.length; start += ROWS_PER_STATEMENT) {
    const slice = plan.rows.slice(start, start + ROWS_PER_STATEMENT);
    const written = yield* rows(
      q.writeAnswers(
        slice.map((answer) => ({
          context_id: contextId,
          keywords: answer.keywords,
          keywords_hash: answer.hash,
          count: answer.count,
          time: answer.time,
          messages: JSON.stringify(answer.messages),
        })),
      ),
    );
    const idOf = new Map(written.map((row) => [row.keywords_hash, Number(row.id)]));
    const votes: VoteRow[] = [];
    for (const answer of slice) {
      const answerId = idOf.get(answer.hash);
      if (answerId === undefined) throw new Error('answer write returned no id');
      votes.push({
        answer_id: answerId,
        deployment_id: deploymentId,
        context_id: contextId,
        count: answer.own,
        time: answer.time,
      });
    }
    yield* exec(q.writeVotes(votes));
  }
  if (plan.countDelta !== 0) yield* exec(q.addCountSum({ contextId, delta: plan.countDelta }));
}

export function* replaceHotSnapshot(
  q: HubQueries,
  deploymentId: string,
  asOf: number,
  items: readonly HotItemInput[],
): Program<void> {
  yield* exec(q.deleteHotSnapshot({ deploymentId }));
  for (let start = 0; start < items.length; start += ROWS_PER_STATEMENT) {
    yield* exec(
      q.insertHotSnapshot(
        items.slice(start, start + ROWS_PER_STATEMENT).map((item) => ({
          deployment_id: deploymentId,
          keywords_hash: item.hash,
          keywords: item.keywords,
          score: item.score,
          as_of: asOf,
        })),
      ),
    );
  }
}
