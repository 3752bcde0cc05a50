import type { Answer, Ban, Context } from '../domain/corpus.ts';
import type {
  AnswerRow,
  AnswerWithMessageRow,
  BanRow,
  ContextRow,
  MessageRow,
  SnapshotContextRow,
} from './corpus-queries.ts';

/** Turn rows into domain records. Answers keep row order; messages keep id order. */

export function contextFromRows(row: ContextRow, answers: Answer[], bans: Ban[]): Context {
  return {
    keywords: row.keywords,
    time: row.time,
    triggerCount: row.trigger_count,
    clearTime: row.clear_time,
    answers,
    bans,
  };
}

export function banFromRow(row: BanRow): Ban {
  return { keywords: row.keywords, groupId: row.group_id, reason: row.reason, time: row.time };
}

export function answersWithMessages(answerRows: AnswerRow[], messageRows: MessageRow[]): Map<number, Answer> {
  const byId = new Map<number, Answer>();
  for (const row of answerRows) byId.set(row.id, answerFromRow(row));
  for (const { answer_id, message } of messageRows) byId.get(answer_id)?.messages.push(message);
  return byId;
}

/** Rows of (answer, message) joined, ordered by answer then message; null message = no messages. */
export function answersFromJoinedRows(rows: AnswerWithMessageRow[]): Answer[] {
  const answers: Answer[] = [];
  let currentId = -1;
  let current: Answer | undefined;
  for (const row of rows) {
    if (row.id !== currentId || !current) {
      currentId = row.id;
      current = answerFromRow(row);
      answers.push(current);
    }
    if (row.message !== null) current.messages.push(row.message);
  }
  return answers;
}

/** Snapshot query 1 returns one row per ban (or one row with null ban columns). */
export function bansFromSnapshotRows(rows: SnapshotContextRow[]): Ban[] {
  const bans: Ban[] = [];
  for (const row of rows) {
    if (row.ban_keywords === null) continue;
    bans.push({
      keywords: row.ban_keywords,
      groupId: row.ban_group_id ?? 0,
      reason: row.ban_reason ?? '',
      time: row.ban_time ?? 0,
    });
  }
  return bans;
}

function answerFromRow(row: AnswerRow): Answer {
  return { keywords: row.keywords, groupId: row.group_id, count: row.count, time: row.time, messages: [] };
}

/** Snapshots are shared between callers through the cache: freeze them so none can alter another's. */
export function freezeContext(context: Context): Context {
  for (const answer of context.answers) {
    Object.freeze(answer.messages);
    Object.freeze(answer);
  }
  for (const ban of context.bans) Object.freeze(ban);
  Object.freeze(context.answers);
  Object.freeze(context.bans);
  return Object.freeze(context);
}
