/** Builders for corpus records in tests, plus raw bulk loading for large fixtures. */
import { sql } from 'kysely';
import type { Answer, Ban, Context, GroupMessage, LearnInput } from '../../src/domain/corpus.ts';
import type { StoreEngine } from '../../src/store/schema.ts';
import { keywordsHash } from '../../src/domain/keywords-hash.ts';

export function answer(keywords: string, fields: Partial<Answer> = {}): Answer {
  return { keywords, groupId: 1, count: 1, time: 100, messages: [`${keywords} said`], ...fields };
}

export function ban(keywords: string, fields: Partial<Ban> = {}): Ban {
  return { keywords, groupId: 1, reason: '10001', time: 100, ...fields };
}

export function context(keywords: string, fields: Partial<Context> = {}): Context {
  return { keywords, time: 100, triggerCount: 1, clearTime: 0, answers: [], bans: [], ...fields };
}

export function learn(keywords: string, answerKeywords: string, fields: Partial<LearnInput> = {}): LearnInput {
  return {
    keywords,
    groupId: 1,
    answerKeywords,
    answerTime: 100,
    message: 'msg',
    appendOnExisting: true,
    ...fields,
  };
}

export function groupMessage(fields: Partial<GroupMessage> = {}): GroupMessage {
  return {
    groupId: 1,
    userId: 2,
    botId: 3,
    rawMessage: 'hello',
    isPlainText: true,
    plainText: 'hello',
    keywords: 'hello',
    time: 100,
    senderName: 'alice',
    messageId: null,
    replyToMessageId: null,
    ...fields,
  };
}

/** `n` messages named `<prefix>-0` … `<prefix>-(n-1)`, oldest first. */
export function messages(prefix: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
}

/** Answer keywords, oldest message first, for comparisons that ignore answer order. */
export function byKeywords(answers: readonly Answer[]): Answer[] {
  return [...answers].sort((a, b) => (a.keywords < b.keywords ? -1 : a.keywords > b.keywords ? 1 : 0));
}

export interface BareContext {
  keywords: string;
  time: number;
  triggerCount: number;
  clearTime: number;
}

/** Insert many answer-less contexts straight into the table (fixtures of tens of thousands). */
export async function bulkInsertContexts(engine: StoreEngine, contexts: readonly BareContext[]): Promise<void> {
  for (let start = 0; start < contexts.length; start += 1000) {
    const rows = contexts.slice(start, start + 1000).map((c) => ({
      keywords: c.keywords,
      keywords_hash: keywordsHash(c.keywords),
      time: c.time,
      trigger_count: c.triggerCount,
      clear_time: c.clearTime,
    }));
    await engine.db.insertInto('context').values(rows).execute();
  }
}

/** Row count of a corpus table, read directly. */
export async function countRows(
  engine: StoreEngine,
  table: 'context' | 'context_answer' | 'context_answer_message' | 'context_ban' | 'message' | 'blacklist',
): Promise<number> {
  const result = await sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM ${sql.table(table)}`.execute(engine.db);
  return Number(result.rows[0]?.n ?? 0);
}
