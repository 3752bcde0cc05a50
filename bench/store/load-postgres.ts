import type pg from 'pg';
import type { CorpusGenerator, RowSink } from './generate.ts';

const CONTEXTS_PER_BATCH = 10_000;

/** One table's rows of a batch as column arrays, inserted with SELECT * FROM unnest(...). */
class ColumnBatch {
  readonly columns: unknown[][];

  constructor(
    readonly table: string,
    readonly spec: readonly (readonly [name: string, type: string])[],
  ) {
    this.columns = spec.map(() => []);
  }

  /** The INSERT for this table, its arrays numbered from `first`. */
  insertSql(first: number): string {
    const names = this.spec.map(([name]) => name).join(', ');
    const arrays = this.spec.map(([, type], index) => `$${first + index}::${type}[]`).join(', ');
    return `INSERT INTO ${this.table} (${names}) SELECT * FROM unnest(${arrays})`;
  }

  /** The batch's column arrays; the batch starts empty again. */
  take(): unknown[][] {
    const values = this.columns.map((column) => column.slice());
    for (const column of this.columns) column.length = 0;
    return values;
  }
}

class PostgresSink implements RowSink {
  readonly contexts = new ColumnBatch('context', [
    ['id', 'bigint'],
    ['keywords', 'text'],
    ['keywords_hash', 'text'],
    ['time', 'bigint'],
    ['trigger_count', 'int'],
    ['clear_time', 'bigint'],
    ['answer_count_sum', 'bigint'],
  ]);
  readonly answers = new ColumnBatch('context_answer', [
    ['id', 'bigint'],
    ['context_id', 'bigint'],
    ['keywords', 'text'],
    ['keywords_hash', 'text'],
    ['group_id', 'bigint'],
    ['count', 'int'],
    ['time', 'bigint'],
  ]);
  readonly messages = new ColumnBatch('context_answer_message', [
    ['id', 'bigint'],
    ['answer_id', 'bigint'],
    ['message', 'text'],
  ]);
  readonly bans = new ColumnBatch('context_ban', [
    ['id', 'bigint'],
    ['context_id', 'bigint'],
    ['keywords', 'text'],
    ['group_id', 'bigint'],
    ['reason', 'text'],
    ['time', 'bigint'],
  ]);

  context(
    id: number,
    keywords: string,
    hash: string,
    time: number,
    triggers: number,
    clearTime: number,
    answerCountSum: number,
  ): void {
    push(this.contexts, id, keywords, hash, time, triggers, clearTime, answerCountSum);
  }

  answer(
    id: number,
    contextId: number,
    keywords: string,
    hash: string,
    group: number,
    count: number,
    time: number,
  ): void {
    push(this.answers, id, contextId, keywords, hash, group, count, time);
  }

  message(id: number, answerId: number, text: string): void {
    push(this.messages, id, answerId, text);
  }

  ban(id: number, contextId: number, keywords: string, group: number, reason: string, time: number): void {
    push(this.bans, id, contextId, keywords, group, reason, time);
  }

  readonly #batches = [this.contexts, this.answers, this.messages, this.bans];
  readonly #sql = this.#statement();

  /**
   * The whole batch as one statement (data-modifying CTEs), so the connection has one query in
   * flight while the next batch is generated. Foreign keys are checked at the end of the statement.
   */
  send(client: pg.PoolClient): Promise<unknown> {
    return client.query(
      this.#sql,
      this.#batches.flatMap((batch) => batch.take()),
    );
  }

  #statement(): string {
    let next = 1;
    const inserts = this.#batches.map((batch) => {
      const sql = batch.insertSql(next);
      next += batch.spec.length;
      return sql;
    });
    const last = inserts.pop() ?? '';
    return `WITH ${inserts.map((sql, index) => `b${index} AS (${sql})`).join(', ')} ${last}`;
  }
}

function push(batch: ColumnBatch, ...values: unknown[]): void {
  for (let index = 0; index < values.length; index++) batch.columns[index]?.push(values[index]);
}

/**
 * Bulk-loads the generated corpus over one connection (commits not waiting for the disk), one
 * unnest() statement per 10,000 contexts with their answers, messages and bans. The next batch is generated while the server
 * writes the previous one. Afterwards the identity sequences continue past the loaded ids and the
 * tables are vacuumed and analysed, as autovacuum would have done on a corpus that grew to this size
 * (and so that it does not start during the measurements), and a checkpoint flushes the load.
 */
export async function loadPostgres(
  pool: pg.Pool,
  generator: CorpusGenerator,
  n: number,
  progress: (done: number) => void,
): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SET synchronous_commit = off');
    const sink = new PostgresSink();
    let inFlight: Promise<unknown> = Promise.resolve();
    for (let from = 0; from < n; from += CONTEXTS_PER_BATCH) {
      const to = Math.min(n, from + CONTEXTS_PER_BATCH);
      generator.generate(from, to, sink);
      await inFlight;
      progress(from);
      inFlight = sink.send(client);
    }
    await inFlight;
    progress(n);
    for (const table of ['context', 'context_answer', 'context_answer_message', 'context_ban']) {
      await client.query(
        `SELECT setval(pg_get_serial_sequence('${table}', 'id'), GREATEST((SELECT max(id) FROM ${table}), 1))`,
      );
    }
    await client.query('VACUUM (ANALYZE) context, context_answer, context_answer_message, context_ban');
    await client.query('CHECKPOINT');
  } finally {
    // The session settings must not leak into the bare driver's pool: drop this connection.
    client.release(true);
  }
}
