/**
 * The hub's merge and dedup rules (docs/rules.md#hub-protocol), as pure functions so that
 * the write programs only move rows. Messages here are already cleaned.
 *
 * - upsert_answer: a new answer starts at count 1 with the message (when one was given); an
 *   existing one gets count + 1, its time overwritten and the message appended when
 *   `append_on_existing` is set and the exact text is not already there.
 * - insert: the context's trigger count becomes max(old, max(1, answers)); a new answer is stored
 *   with the given count; for an existing one the given count replaces the contributing
 *   deployment's own share only (it can lower that, never what others contributed), the time is
 *   overwritten and the messages merged as an order-preserving union.
 *
 * An answer's stored count is the sum of every contributor's own share (hub_answer_vote); what is
 * served is computed from those shares (docs/hub.md#agreement).
 */

export interface AnswerInput {
  keywords: string;
  hash: string;
  count: number;
  time: number;
  /** Cleaned, distinct, non-empty. */
  messages: string[];
}

export interface StoredAnswer {
  /** The sum of every contributor's share. */
  count: number;
  /** The contributing deployment's own share of `count`. */
  own: number;
  messages: string[];
}

export interface PlannedAnswer extends AnswerInput {
  /** Whether a row with this key already exists. */
  exists: boolean;
  /** The contributor's own share after the insert (the given count). */
  own: number;
}

/** `existing` followed by the unseen entries of `incoming`, at most `cap` in all. */
export function unionMessages(existing: readonly string[], incoming: readonly string[], cap: number): string[] {
  const result = [...existing];
  const seen = new Set(result);
  for (const message of incoming) {
    if (result.length >= cap) break;
    if (seen.has(message)) continue;
    seen.add(message);
    result.push(message);
  }
  return result;
}

/** The messages of an answer after an upsert_answer (`message` is null when none, or empty after cleaning). */
export function upsertMessages(
  existing: readonly string[] | null,
  message: string | null,
  appendOnExisting: boolean,
  cap: number,
): string[] {
  if (existing === null) return message === null ? [] : [message];
  if (message === null || !appendOnExisting) return [...existing];
  return unionMessages(existing, [message], cap);
}

/** Trigger count of a context after an insert carrying `answers` answers. */
export function insertTriggerCount(old: number | null, answers: number): number {
  return Math.max(old ?? 0, Math.max(1, answers));
}

/** A contributed time: missing, zero or negative means now; the future is clamped to now. */
export function contributionTime(time: number | undefined, now: number): number {
  if (time === undefined || !Number.isFinite(time) || time <= 0) return now;
  return Math.min(Math.floor(time), now);
}

/**
 * Answers of one insert with the same keywords collapse into one (the later count and time win,
 * messages are united), so that one statement never writes a key twice.
 */
export function collapseAnswers(answers: readonly AnswerInput[], cap: number): AnswerInput[] {
  const byHash = new Map<string, AnswerInput>();
  for (const answer of answers) {
    const seen = byHash.get(answer.hash);
    if (!seen) {
      byHash.set(answer.hash, { ...answer, messages: answer.messages.slice(0, cap) });
      continue;
    }
    seen.count = answer.count;
    seen.time = answer.time;
    seen.messages = unionMessages(seen.messages, answer.messages, cap);
  }
  return [...byHash.values()];
}

/**
 * What an insert writes for each answer (`count`: the answer's new total, `own`: the contributor's
 * new share), and by how much the context's answer count sum moves (new shares minus the ones they replace).
 */
export function planInsert(
  answers: readonly AnswerInput[],
  stored: ReadonlyMap<string, StoredAnswer>,
  cap: number,
): { rows: PlannedAnswer[]; countDelta: number } {
  let countDelta = 0;
  const rows = collapseAnswers(answers, cap).map((answer): PlannedAnswer => {
    const old = stored.get(answer.hash);
    const own = answer.count;
    countDelta += own - (old?.own ?? 0);
    if (!old) return { ...answer, exists: false, own };
    const count = old.count - old.own + own;
    return { ...answer, count, own, messages: unionMessages(old.messages, answer.messages, cap), exists: true };
  });
  return { rows, countDelta };
}

/** A stored JSON message list; anything unreadable counts as empty rather than failing a read. */
export function parseMessages(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}
