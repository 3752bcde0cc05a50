/**
 * The two storage engines as a test fixture, so that one contract suite runs unchanged against
 * SQLite and PostgreSQL (docs/rules.md#store-engines: both engines pass the same contract suite).
 *
 * SQLite: a fresh temporary directory per store. PostgreSQL: `CHORUS_TEST_DATABASE_URL`
 * (default postgres://postgres@127.0.0.1:5432/test), each store in its own fresh schema, dropped
 * with CASCADE after the test so that runs never collide. PostgreSQL is probed once: when it is
 * unreachable its tests are skipped, except under CI=true where they fail.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import pg from 'pg';
import { CorpusStore, type ReplySettings } from '../../src/store/corpus-store.ts';
import type { EngineKind, RunOptions } from '../../src/sql/engine.ts';
import type { StoreEngine } from '../../src/store/schema.ts';
import { openStore, type LocalStore } from '../../src/store/open-store.ts';
import type { Program, Step, StepKind } from '../../src/sql/program.ts';

export const DEFAULT_REPLY: ReplySettings = {
  replyMessagesCap: 16,
  replyAnswersCap: 128,
  replySnapshotSec: 5,
  replySnapshotMax: 20000,
  replyQueryTimeoutSec: 2,
};

export const PG_URL = process.env.CHORUS_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const IN_CI = process.env.CI === 'true';
const PROBE_TIMEOUT_MS = 3000;

/** The URL as it may appear in test output: the password removed. */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '<unparseable URL>';
  }
}

async function probePostgres(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    return error instanceof Error ? error.message || error.name : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const pgProblem = await probePostgres(PG_URL);
const pgUnreachable = `PostgreSQL unreachable at ${withoutPassword(PG_URL)}`;

export interface OpenOptions {
  reply?: Partial<ReplySettings>;
  poolMax?: number;
}

export interface StoreLocation {
  databaseUrl: string;
  dataDir: string;
  schema?: string;
}

export interface TestStore extends LocalStore {
  readonly location: StoreLocation;
  readonly reply: ReplySettings;
  /** Another store on the same database (same SQLite dir / PostgreSQL schema), closed after the test. */
  reopen(options?: OpenOptions): Promise<LocalStore>;
}

export interface EngineFixture {
  readonly kind: EngineKind;
  /** Open a store on a fresh, empty database; everything it made is removed after the test. */
  open(t: TestContext, options?: OpenOptions): Promise<TestStore>;
}

/** Stores opened on one location: all closed, then the location removed, after the test. */
async function openAt(t: TestContext, location: StoreLocation, options: OpenOptions, drop: () => Promise<void>) {
  const opened: LocalStore[] = [];
  t.after(async () => {
    for (const store of opened) await store.close();
    await drop();
  });
  const openOne = async (more: OpenOptions): Promise<LocalStore> => {
    const store = await openStore({
      ...location,
      poolMax: more.poolMax ?? 10,
      reply: { ...DEFAULT_REPLY, ...more.reply },
    });
    let closed: Promise<void> | undefined;
    const once: LocalStore = { ...store, close: () => (closed ??= store.close()) };
    opened.push(once);
    return once;
  };
  const first = await openOne(options);
  const store: TestStore = {
    ...first,
    location,
    reply: { ...DEFAULT_REPLY, ...options.reply },
    reopen: (more = options) => openOne(more),
  };
  return store;
}

const sqlite: EngineFixture = {
  kind: 'sqlite',
  async open(t, options = {}) {
    const dataDir = await mkdtemp(join(tmpdir(), 'chorus-store-'));
    return openAt(t, { databaseUrl: '', dataDir }, options, () =>
      // A closing SQLite may still remove its -wal and -shm files while the folder goes: retry.
      rm(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }),
    );
  },
};

async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

export function freshSchemaName(): string {
  return `chorus_t_${process.pid}_${randomBytes(6).toString('hex')}`;
}

const postgres: EngineFixture = {
  kind: 'postgres',
  async open(t, options = {}) {
    if (pgProblem !== null) throw new Error(`${pgUnreachable}: ${pgProblem}`);
    const schema = freshSchemaName();
    return openAt(t, { databaseUrl: PG_URL, dataDir: '', schema }, options, () => dropSchema(schema));
  },
};

/** The PostgreSQL fixture alone, for a test about PostgreSQL only (check requirePostgres first). */
export function postgresEngine(): EngineFixture {
  return postgres;
}

/**
 * For a single test that needs PostgreSQL itself: true when it is reachable; otherwise the test
 * fails under CI=true and is skipped (and says why) elsewhere.
 */
export function requirePostgres(t: TestContext): boolean {
  if (pgProblem === null) return true;
  if (IN_CI) throw new Error(`${pgUnreachable} (${pgProblem}); set CHORUS_TEST_DATABASE_URL`);
  t.skip(pgUnreachable);
  return false;
}

/** Run `suite` once per engine, each inside its own `describe` named after the engine. */
export function forEachEngine(suite: (engine: EngineFixture) => void): void {
  describe('sqlite', () => suite(sqlite));
  if (pgProblem === null) {
    describe('postgres', () => suite(postgres));
  } else if (IN_CI) {
    // CI must exercise PostgreSQL: an unreachable server fails every test instead of skipping it.
    describe('postgres', () => {
      it('PostgreSQL is reachable (required when CI=true)', () => {
        throw new Error(`${pgUnreachable} (${pgProblem}); set CHORUS_TEST_DATABASE_URL`);
      });
      suite(postgres);
    });
  } else {
    describe('postgres', { skip: pgUnreachable }, () => suite(postgres));
  }
}

export interface RecordedStep {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  readonly kind: StepKind;
  /** Whether the step ran inside a write unit of work. */
  readonly write: boolean;
  /** Rows returned ('rows') or rows changed ('exec'); set once the statement has run. */
  result?: number;
}

/** A StoreEngine that records every statement the programs it runs yield. */
export interface CountingEngine extends StoreEngine {
  readonly steps: RecordedStep[];
  /** Units of work run (each engine.run call). */
  readonly runs: number;
  reset(): void;
}

export function countingEngine(inner: StoreEngine): CountingEngine {
  const steps: RecordedStep[] = [];
  let runs = 0;
  function* recording<T>(program: Program<T>, write: boolean): Program<T> {
    let next = program.next();
    while (!next.done) {
      const step: Step = next.value;
      const recorded: RecordedStep = {
        sql: step.query.sql,
        parameters: [...step.query.parameters],
        kind: step.kind,
        write,
      };
      steps.push(recorded);
      const result: unknown = yield step;
      recorded.result = Array.isArray(result) ? result.length : Number(result);
      next = program.next(result);
    }
    return next.value;
  }
  return {
    kind: inner.kind,
    db: inner.db,
    longTransactions: inner.longTransactions,
    steps,
    get runs() {
      return runs;
    },
    reset() {
      steps.length = 0;
      runs = 0;
    },
    pressure: () => inner.pressure(),
    run<T>(program: () => Program<T>, options?: RunOptions): Promise<T> {
      runs++;
      return inner.run(() => recording(program(), options?.write === true), options);
    },
    migrate: () => inner.migrate(),
    // The wrapped engine belongs to its store, which closes it.
    close: async () => undefined,
  };
}

/** A CorpusStore over a counting wrapper of `store`'s engine (same database, its own snapshot cache). */
export function countingStore(
  store: TestStore,
  reply: Partial<ReplySettings> = {},
): { corpus: CorpusStore; engine: CountingEngine } {
  const engine = countingEngine(store.engine);
  return { corpus: new CorpusStore(engine, { ...store.reply, ...reply }), engine };
}
