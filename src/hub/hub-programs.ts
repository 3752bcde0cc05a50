/**
 * The hub store's units of work that span several statements (hub-store.ts): a contribution's
 * upsert or insert with its merge rules, the hot snapshot's replacement, and row conversions.
 */
import { exec, first, rows, type Program } from '../sql/program.ts';
import { STORED_MESSAGES_PER_ANSWER_MAX } from './limits.ts';
import { insertTriggerCount, parseMessages, planInsert, upsertMessages, type StoredAnswer } from './merge.ts';
import { ROWS_PER_STATEMENT, type ContextAnswerRow, type HubQueries, type PolicyRow } from './queries.ts';
import type { Contribution, HotItemInput, Policy, StoredContext, StoredContextAnswer } from './hub-types.ts';

export function policyOf(row: PolicyRow): Policy {
  return {
    read: Number(row.read_enabled) === 1,
    contribute: Number(row.contribute_enabled) === 1,
    readPerMinute: Number(row.read_per_minute),
    contributionsPerDay: Number(row.contributions_per_day),
  };
}

export function contextOf(found: readonly ContextAnswerRow[]): StoredContext | null {
  const head = found[0];
  if (!head) return null;
  const answers: StoredContextAnswer[] = [];
  for (const row of found) {
    if (row.answer_keywords === null) continue;
    answers.push({
      keywords: row.answer_keywords,
      count: Number(row.count),
      time: Number(row.answer_time),
      messages: parseMessages(row.messages ?? '[]'),
    });
  }
  return { keywords: head.keywords, time: Number(head.time), triggerCount: Number(head.trigger_count), answers };
}

export function* upsertAnswer(q: HubQueries, input: Extract<Contribution, { op: 'upsert_answer' }>): Program<void> {
  // The context row is written (and, on PostgreSQL, locked) first, so concurrent contributions to
  // one context queue behind each other and the read-then-write of the answer below is safe.
  const context = yield* first(
    q.touchContextForAnswer({ keywords: input.keywords, hash: input.hash, time: input.time }),
  );
  if (!context) throw new Error('context upsert returned no row');
  const contextId = Number(context.id);
  const stored = yield* first(q.answerByKey({ contextId, hash: input.answerHash }));
  if (!stored) {
    const messages = upsertMessages(null, input.message, input.appendOnExisting, STORED_MESSAGES_PER_ANSWER_MAX);
    yield* exec(
      q.insertAnswer({
        context_id: contextId,
        keywords: input.answerKeywords,
        keywords_hash: input.answerHash,
        count: 1,
        time: input.time,
        messages: JSON.stringify(messages),
      }),
    );
    return;
  }
  const messages = upsertMessages(
    parseMessages(stored.messages),
    input.message,
    input.appendOnExisting,
    STORED_MESSAGES_PER_ANSWER_MAX,
  );
  yield* exec(q.bumpAnswer({ id: Number(stored.id), time: input.time, messages: JSON.stringify(messages) }));
}

export function* insertContext(q: HubQueries, input: Extract<Contribution, { op: 'insert' }>): Program<void> {
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
    for (const row of found) {
      stored.set(row.keywords_hash, { count: Number(row.count), messages: parseMessages(row.messages) });
    }
  }
  const plan = planInsert(input.answers, stored, STORED_MESSAGES_PER_ANSWER_MAX);
  for (let start = 0; start < plan.rows.length; start += ROWS_PER_STATEMENT) {
    yield* exec(
      q.writeAnswers(
        plan.rows.slice(start, start + ROWS_PER_STATEMENT).map((answer) => ({
          context_id: contextId,
          keywords: answer.keywords,
          keywords_hash: answer.hash,
          count: answer.count,
          time: answer.time,
          messages: JSON.stringify(answer.messages),
        })),
      ),
    );
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
