import BetterSqlite3 from 'better-sqlite3';
import type { CorpusGenerator, RowSink } from './generate.ts';

const ROWS_PER_STATEMENT = 100;
const CONTEXTS_PER_TRANSACTION = 20_000;

/** A multi-row INSERT of one table: rows are buffered and written ROWS_PER_STATEMENT at a time. */
class BatchInsert {
  readonly values: unknown[] = [];
  #rows = 0;
  readonly #statements = new Map<number, BetterSqlite3.Statement>();

  constructor(
    private readonly db: BetterSqlite3.Database,
    private readonly table: string,
    private readonly columns: readonly string[],
  ) {}

  /** Call after pushing one row's values. */
  rowAdded(): void {
    if (++this.#rows === ROWS_PER_STATEMENT) this.flush();
  }

  flush(): void {
    if (this.#rows === 0) return;
    this.#statement(this.#rows).run(this.values);
    this.values.length = 0;
    this.#rows = 0;
  }

  #statement(rows: number): BetterSqlite3.Statement {
    let statement = this.#statements.get(rows);
    if (!statement) {
      const row = `(${this.columns.map(() => '?').join(',')})`;
      const sql = `INSERT INTO ${this.table} (${this.columns.join(',')}) VALUES ${Array(rows).fill(row).join(',')}`;
      statement = this.db.prepare(sql);
      this.#statements.set(rows, statement);
    }
    return statement;
  }
}

class SqliteSink implements RowSink {
  readonly #tables: BatchInsert[];
  readonly #contexts: BatchInsert;
  readonly #answers: BatchInsert;
  readonly #messages: BatchInsert;
  readonly #bans: BatchInsert;

  constructor(db: BetterSqlite3.Database) {
    this.#contexts = new BatchInsert(db, 'context', [
      'id',
      'keywords',
      'keywords_hash',
      'time',
      'trigger_count',
      'clear_time',
      'answer_count_sum',
    ]);
    this.#answers = new BatchInsert(db, 'context_answer', [
      'id',
      'context_id',
      'keywords',
      'keywords_hash',
      'group_id',
      'count',
      'time',
    ]);
    this.#messages = new BatchInsert(db, 'context_answer_message', ['id', 'answer_id', 'message']);
    this.#bans = new BatchInsert(db, 'context_ban', ['id', 'context_id', 'keywords', 'group_id', 'reason', 'time']);
    this.#tables = [this.#contexts, this.#answers, this.#messages, this.#bans];
  }

  context(
    id: number,
    keywords: string,
    hash: string,
    time: number,
    triggers: number,
    clearTime: number,
    answerCountSum: number,
  ): void {
    this.#contexts.values.push(id, keywords, hash, time, triggers, clearTime, answerCountSum);
    this.#contexts.rowAdded();
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
    this.#answers.values.push(id, contextId, keywords, hash, group, count, time);
    this.#answers.rowAdded();
  }

  message(id: number, answerId: number, text: string): void {
    this.#messages.values.push(id, answerId, text);
    this.#messages.rowAdded();
  }

  ban(id: number, contextId: number, keywords: string, group: number, reason: string, time: number): void {
    this.#bans.values.push(id, contextId, keywords, group, reason, time);
    this.#bans.rowAdded();
  }

  flush(): void {
    for (const table of this.#tables) table.flush();
  }
}

/** Move the whole WAL into the database file; another connection's checkpoint may hold it briefly. */
export function checkpoint(db: BetterSqlite3.Database): void {
  for (let attempt = 0; attempt < 50; attempt++) {
    const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    if (result?.busy === 0) return;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  }
  throw new Error('the WAL could not be checkpointed after loading');
}

/**
 * Bulk-loads the generated corpus through a second better-sqlite3 connection on the store's file
 * (WAL lets both be open): multi-row prepared INSERTs in large transactions, then a checkpoint so
 * the store reads a settled database file rather than a long WAL. Foreign keys are off while
 * loading: rows are consistent by construction, and tables flush in any order.
 */
export function loadSqlite(
  path: string,
  generator: CorpusGenerator,
  n: number,
  progress: (done: number) => void,
): void {
  const db = new BetterSqlite3(path);
  try {
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -262144');
    db.pragma('foreign_keys = OFF');
    const sink = new SqliteSink(db);
    const chunk = db.transaction((from: number, to: number) => {
      generator.generate(from, to, sink);
      sink.flush();
    });
    for (let from = 0; from < n; from += CONTEXTS_PER_TRANSACTION) {
      const to = Math.min(n, from + CONTEXTS_PER_TRANSACTION);
      chunk(from, to);
      progress(to);
    }
    checkpoint(db);
  } finally {
    db.close();
  }
}
