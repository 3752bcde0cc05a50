import type pg from 'pg';
import type { LearnInput } from '../../src/domain/corpus.ts';
import { replyCaps, type ReplySettings } from '../../src/store/corpus-store.ts';
import { keywordsHash } from '../../src/domain/keywords-hash.ts';
import { CLEANUP_SCANS, type BareDriver, type CleanupRows, type CompiledStatement } from './bare.ts';
import type { BareStatements } from './statements.ts';

type IdRow = { id: string };

/**
 * node-postgres on its own pool: the same SQL as named prepared statements (as the engine runs
 * them), `pool.query` for single statements and one checked-out client for a transaction.
 */
export class PostgresBare implements BareDriver {
  readonly #pool: pg.Pool;
  readonly #s: BareStatements;
  readonly #settings: ReplySettings;
  readonly #names = new Map<string, string>();

  constructor(pool: pg.Pool, statements: BareStatements, settings: ReplySettings) {
    this.#pool = pool;
    this.#s = statements;
    this.#settings = settings;
  }

  async replyLookup(keywords: string): Promise<number> {
    const s = this.#s;
    const context = await this.#pool.query<IdRow>(
      this.#config(s.snapshotContext, s.snapshotContext.bind({ hash: keywordsHash(keywords) })),
    );
    const row = context.rows[0];
    if (!row) return 0;
    const caps = replyCaps(keywords.trim(), this.#settings);
    const answers = await this.#pool.query(
      this.#config(
        s.snapshotAnswers,
        s.snapshotAnswers.bind({
          contextId: Number(row.id),
          answersCap: caps.answers,
          messagesOffset: caps.messages - 1,
        }),
      ),
    );
    return context.rows.length + answers.rows.length;
  }

  async exists(keywords: string): Promise<number> {
    const s = this.#s;
    const result = await this.#pool.query(
      this.#config(s.contextIdByHash, s.contextIdByHash.bind({ hash: keywordsHash(keywords) })),
    );
    return result.rows.length;
  }

  async learn(input: LearnInput): Promise<boolean> {
    const s = this.#s;
    const client = await this.#pool.connect();
    let failed = false;
    try {
      await client.query('BEGIN');
      const hash = keywordsHash(input.keywords);
      const time = input.answerTime;
      const inserted = (
        await client.query<IdRow>(
          this.#config(
            s.insertContextIfMissing,
            s.insertContextIfMissing.bind({
              keywords: input.keywords,
              hash,
              time,
              triggerCount: 1,
              clearTime: 0,
              answerCountSum: 1,
            }),
          ),
        )
      ).rows[0];
      const contextId =
        inserted?.id ??
        (await client.query<IdRow>(this.#config(s.touchContext, s.touchContext.bind({ hash, time })))).rows[0]?.id;
      if (contextId !== undefined) {
        const answerHash = keywordsHash(input.answerKeywords);
        const answer = { contextId: Number(contextId), hash: answerHash, groupId: input.groupId, time };
        const created = (
          await client.query<IdRow>(
            this.#config(
              s.insertAnswerIfMissing,
              s.insertAnswerIfMissing.bind({ ...answer, keywords: input.answerKeywords }),
            ),
          )
        ).rows[0];
        const answerId =
          created?.id ??
          (await client.query<IdRow>(this.#config(s.touchAnswer, s.touchAnswer.bind(answer)))).rows[0]?.id;
        if (answerId !== undefined && (created || input.appendOnExisting)) {
          await client.query(
            this.#config(s.insertMessage, s.insertMessage.bind({ answerId: Number(answerId), message: input.message })),
          );
        }
      }
      await client.query('COMMIT');
      return inserted !== undefined;
    } catch (error) {
      failed = true;
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release(failed ? true : undefined);
    }
  }

  async singleDelete(expiration: number, threshold: number): Promise<{ rows: number; ms: number }> {
    const client = await this.#pool.connect();
    try {
      const started = performance.now();
      await client.query('BEGIN');
      const result = await client.query('DELETE FROM context WHERE time < $1 AND trigger_count < $2', [
        expiration,
        threshold,
      ]);
      const ms = performance.now() - started;
      await client.query('ROLLBACK');
      return { rows: result.rowCount ?? 0, ms };
    } finally {
      client.release();
    }
  }

  async cleanupScan(triggerThreshold: number, expiration: number): Promise<CleanupRows & { ms: number }> {
    const count = async (sql: string) => (await this.#pool.query(sql, [triggerThreshold, expiration])).rowCount ?? 0;
    const started = performance.now();
    const contexts = await count(CLEANUP_SCANS.contexts);
    const answers = await count(CLEANUP_SCANS.answers);
    const messages = await count(CLEANUP_SCANS.messages);
    return { contexts, answers, messages, ms: performance.now() - started };
  }

  async rowCounts(): Promise<{ contexts: number; answers: number; messages: number }> {
    const count = async (table: string) =>
      Number((await this.#pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]?.n ?? 0);
    return {
      contexts: await count('context'),
      answers: await count('context_answer'),
      messages: await count('context_answer_message'),
    };
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }

  #config<P>(statement: CompiledStatement<P>, values: unknown[]): pg.QueryConfig {
    let name = this.#names.get(statement.sql);
    if (!name) {
      name = `bare_${this.#names.size + 1}`;
      this.#names.set(statement.sql, name);
    }
    return { name, text: statement.sql, values };
  }
}
