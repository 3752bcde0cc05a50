import BetterSqlite3 from 'better-sqlite3';
import type { LearnInput } from '../../src/domain/corpus.ts';
import { replyCaps, type ReplySettings } from '../../src/store/corpus-store.ts';
import { keywordsHash } from '../../src/domain/keywords-hash.ts';
import { CLEANUP_SCANS, type BareDriver, type CleanupRows } from './bare.ts';
import { checkpoint } from './load-sqlite.ts';
import type { BareStatements } from './statements.ts';

type IdRow = { id: number } | undefined;

/** better-sqlite3 on its own connection to the store's file, with the engine's pragmas. */
export class SqliteBare implements BareDriver {
  readonly #db: BetterSqlite3.Database;
  readonly #s: BareStatements;
  readonly #settings: ReplySettings;
  readonly #snapshotContext: BetterSqlite3.Statement;
  readonly #snapshotAnswers: BetterSqlite3.Statement;
  readonly #contextIdByHash: BetterSqlite3.Statement;
  readonly #learn: (input: LearnInput) => boolean;

  constructor(path: string, statements: BareStatements, settings: ReplySettings) {
    const db = new BetterSqlite3(path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    db.pragma('cache_size = -65536');
    db.pragma('temp_store = MEMORY');
    this.#db = db;
    this.#s = statements;
    this.#settings = settings;
    this.#snapshotContext = db.prepare(statements.snapshotContext.sql);
    this.#snapshotAnswers = db.prepare(statements.snapshotAnswers.sql);
    this.#contextIdByHash = db.prepare(statements.contextIdByHash.sql);
    this.#learn = this.#learnTransaction();
  }

  replyLookup(keywords: string): number {
    const s = this.#s;
    const contextRows = this.#snapshotContext.all(s.snapshotContext.bind({ hash: keywordsHash(keywords) })) as {
      id: number;
    }[];
    const row = contextRows[0];
    if (!row) return 0;
    const caps = replyCaps(keywords.trim(), this.#settings);
    const answerRows = this.#snapshotAnswers.all(
      s.snapshotAnswers.bind({ contextId: row.id, answersCap: caps.answers, messagesOffset: caps.messages - 1 }),
    );
    return contextRows.length + answerRows.length;
  }

  exists(keywords: string): number {
    return this.#contextIdByHash.all(this.#s.contextIdByHash.bind({ hash: keywordsHash(keywords) })).length;
  }

  learn(input: LearnInput): boolean {
    return this.#learn(input);
  }

  async singleDelete(expiration: number, threshold: number): Promise<{ rows: number; ms: number }> {
    const statement = this.#db.prepare('DELETE FROM context WHERE time < ? AND trigger_count < ?');
    const started = performance.now();
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const rows = statement.run(expiration, threshold).changes;
      return { rows, ms: performance.now() - started };
    } finally {
      this.#db.exec('ROLLBACK');
      // The rolled-back pages spilled into the WAL: empty it, or the store's next write pays for
      // the bare driver's mess (measured: a 117 ms first step instead of 8 ms at 200k contexts).
      checkpoint(this.#db);
    }
  }

  async cleanupScan(triggerThreshold: number, expiration: number): Promise<CleanupRows & { ms: number }> {
    const count = (sql: string) => {
      let rows = 0;
      for (const _row of this.#db.prepare(sql.replace(/\$\d/g, '?')).iterate(triggerThreshold, expiration)) rows++;
      return rows;
    };
    const started = performance.now();
    const contexts = count(CLEANUP_SCANS.contexts);
    const answers = count(CLEANUP_SCANS.answers);
    const messages = count(CLEANUP_SCANS.messages);
    return { contexts, answers, messages, ms: performance.now() - started };
  }

  async rowCounts(): Promise<{ contexts: number; answers: number; messages: number }> {
    const count = (table: string) => (this.#db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { contexts: count('context'), answers: count('context_answer'), messages: count('context_answer_message') };
  }

  async close(): Promise<void> {
    this.#db.close();
  }

  #learnTransaction(): (input: LearnInput) => boolean {
    const s = this.#s;
    const db = this.#db;
    const insertContext = db.prepare(s.insertContextIfMissing.sql);
    const touchContext = db.prepare(s.touchContext.sql);
    const insertAnswer = db.prepare(s.insertAnswerIfMissing.sql);
    const touchAnswer = db.prepare(s.touchAnswer.sql);
    const insertMessage = db.prepare(s.insertMessage.sql);
    const transaction = db.transaction((input: LearnInput): boolean => {
      const hash = keywordsHash(input.keywords);
      const time = input.answerTime;
      const inserted = insertContext.get(
        s.insertContextIfMissing.bind({
          keywords: input.keywords,
          hash,
          time,
          triggerCount: 1,
          clearTime: 0,
          answerCountSum: 1,
        }),
      ) as IdRow;
      const contextId = inserted?.id ?? (touchContext.get(s.touchContext.bind({ hash, time })) as IdRow)?.id;
      if (contextId === undefined) return false;
      const answerHash = keywordsHash(input.answerKeywords);
      const groupId = input.groupId;
      const created = insertAnswer.get(
        s.insertAnswerIfMissing.bind({ contextId, keywords: input.answerKeywords, hash: answerHash, groupId, time }),
      ) as IdRow;
      const answerId =
        created?.id ??
        (touchAnswer.get(s.touchAnswer.bind({ contextId, hash: answerHash, groupId, time })) as IdRow)?.id;
      if (answerId !== undefined && (created || input.appendOnExisting)) {
        insertMessage.run(s.insertMessage.bind({ answerId, message: input.message }));
      }
      return inserted !== undefined;
    });
    return (input) => transaction.immediate(input);
  }
}
