import { UNHEALTHY_AFTER_FAILURE_MS } from '../ports/pool-pressure.ts';
import { Kysely, Migrator, PostgresDialect } from 'kysely';
import pg from 'pg';
import { PoolTimeoutError } from '../common/errors.ts';
import { errorCode, migratorTables, type MigrationSet, type RunOptions, type SqlEngine } from './engine.ts';
import type { Program, Step } from './program.ts';

const INT8_OID = 20;
const MIGRATE_ATTEMPTS = 8;

/**
 * Errors of Kysely's catalog-wide table scan (pg_get_serial_sequence and friends) when another
 * deployment's schema changes during it: the schema dropped (3F000), a table dropped (42P01) or a
 * column renamed or dropped by that schema's own migration (42703).
 */
const CATALOG_RACE_CODES = new Set(['3F000', '42P01', '42703']);
const NUMERIC_OID = 1700;

export interface PostgresEngineOptions {
  url: string;
  poolMax: number;
  /** Schema to use (created when missing); lets several deployments or test runs share a database. */
  schema?: string;
  /** How long a caller waits for a free connection before a PoolTimeoutError. */
  connectTimeoutMs?: number;
  /** Errors of idle pooled connections (server restart); they must not crash the process. */
  onIdleError?: (error: Error) => void;
  /** The owner's migrations (the bot's or the hub's). */
  migrations: MigrationSet;
  /**
   * Settings applied to every new connection (`SET name TO value`), e.g. `synchronous_commit: 'off'`
   * for a service that may lose its last acknowledged writes on a server crash. Default: none.
   */
  sessionSettings?: Readonly<Record<string, string>>;
}

const SETTING_NAME = /^[a-z_][a-z0-9_.]*$/;
const SETTING_VALUE = /^[A-Za-z0-9_.-]+$/;

/**
 * Our ids, times and group numbers fit in a double; pg returns int8 as strings unless told.
 * Set per pool rather than through pg.types so no global state changes.
 */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID || oid === NUMERIC_OID) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
  // pg's overloaded getTypeParser signature (per format) cannot be written as one implementation.
} as pg.CustomTypesConfig;

export class PostgresEngine<DB> implements SqlEngine<DB> {
  readonly kind = 'postgres' as const;
  readonly longTransactions = true;
  readonly db: Kysely<DB>;
  readonly #migrations: MigrationSet;
  readonly #pool: pg.Pool;
  readonly #max: number;
  #lastPoolFailureMs = Number.NEGATIVE_INFINITY;
  readonly #schema: string | undefined;
  readonly #statementNames = new Map<string, string>();
  /** Connections held by background units of work (RunOptions.background), left out of pressure. */
  #backgroundHeld = 0;

  constructor(options: PostgresEngineOptions) {
    if (options.schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(options.schema)) {
      throw new Error(`invalid PostgreSQL schema name: ${options.schema}`);
    }
    this.#max = options.poolMax;
    this.#migrations = options.migrations;
    this.#schema = options.schema;
    this.#pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolMax,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      types,
      ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    });
    this.#pool.on('error', (error) => options.onIdleError?.(error));
    const settings = Object.entries(options.sessionSettings ?? {});
    for (const [name, value] of settings) {
      if (!SETTING_NAME.test(name) || !SETTING_VALUE.test(value)) throw new Error(`invalid session setting: ${name}`);
    }
    if (settings.length > 0) {
      const statement = settings.map(([name, value]) => `SET ${name} TO '${value}'`).join('; ');
      // Queued on the new client before any caller's query.
      this.#pool.on('connect', (client) => {
        client.query(statement).catch((error: unknown) => {
          options.onIdleError?.(error instanceof Error ? error : new Error(String(error)));
        });
      });
    }
    this.db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: this.#pool }) });
  }

  unhealthy(): boolean {
    return performance.now() - this.#lastPoolFailureMs < UNHEALTHY_AFTER_FAILURE_MS;
  }

  /**
   * (checked-out + waiting) / capacity, capped at 1, where the connections background units of
   * work hold are not counted (docs/rules.md#store-pressure): the learn worker waits on this
   * number, and must not read its own connection as load. Waiting callers always count.
   */
  pressure(): number {
    const pool = this.#pool;
    const busy = pool.totalCount - pool.idleCount - this.#backgroundHeld + pool.waitingCount;
    return Math.min(1, Math.max(0, busy) / this.#max);
  }

  async run<T>(program: () => Program<T>, options: RunOptions = {}): Promise<T> {
    const client = await this.#connect();
    const background = options.background === true;
    if (background) this.#backgroundHeld++;
    let failed = false;
    try {
      if (options.write) await client.query('BEGIN');
      const iterator = program();
      let next = iterator.next();
      while (!next.done) next = iterator.next(await this.#step(client, next.value));
      if (options.write) await client.query('COMMIT');
      return next.value;
    } catch (error) {
      failed = true;
      if (options.write) await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      if (background) this.#backgroundHeld--;
      // A connection whose rollback failed may be broken: destroy it rather than pool it.
      client.release(failed && options.write ? true : undefined);
    }
  }

  async migrate(): Promise<void> {
    if (this.#schema) await this.#pool.query(`CREATE SCHEMA IF NOT EXISTS "${this.#schema}"`);
    // Kysely looks for its migration tables in every schema unless told which one: another schema
    // of the same database holding them would make it skip creating ours, then fail to lock.
    const current = await this.#pool.query<{ schema: string | null }>('SELECT current_schema() AS schema');
    const migrationTableSchema = this.#schema ?? current.rows[0]?.schema ?? undefined;
    const migrator = new Migrator({
      db: this.db,
      provider: this.#migrations.provider,
      ...migratorTables(this.#migrations),
      ...(migrationTableSchema ? { migrationTableSchema } : {}),
    });
    // Kysely's migrator introspects every table of every schema in the database before it takes
    // its lock. When another deployment migrates or drops its schema during that scan, PostgreSQL
    // reports an object that is not ours as missing: that race is retried. It is told apart from
    // a failing migration of ours by the missing results: Kysely had not started running any.
    for (let attempt = 1; ; attempt++) {
      const { error, results } = await migrator.migrateToLatest();
      if (!error) return;
      const catalogRace = results === undefined && CATALOG_RACE_CODES.has(String(errorCode(error)));
      if (!catalogRace || attempt >= MIGRATE_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }

  async #connect(): Promise<pg.PoolClient> {
    try {
      return await this.#pool.connect();
    } catch (error) {
      if (error instanceof Error && /timeout/i.test(error.message)) {
        this.#lastPoolFailureMs = performance.now();
        throw new PoolTimeoutError(`no database connection available: ${error.message}`, { cause: error });
      }
      throw error;
    }
  }

  async #step(client: pg.PoolClient, { query, kind }: Step): Promise<unknown> {
    // pg types `values` as a mutable array but only reads it; copying the hot path's parameters
    // for the type's sake would cost an allocation per statement.
    const config: pg.QueryConfig = { text: query.sql, values: query.parameters as unknown[] };
    if (query.prepared) config.name = this.#nameFor(query.sql);
    const result = await client.query(config);
    return kind === 'rows' ? result.rows : (result.rowCount ?? 0);
  }

  #nameFor(sql: string): string {
    let name = this.#statementNames.get(sql);
    if (!name) {
      name = `chorus_${this.#statementNames.size + 1}`;
      this.#statementNames.set(sql, name);
    }
    return name;
  }
}
