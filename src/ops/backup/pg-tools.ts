/**
 * PostgreSQL backups with the client tools (docs/guide/backups.md):
 * `pg_dump` writes Chorus's tables in its custom format; a restore turns the dump back into SQL
 * with `pg_restore` and runs it through `psql` in one transaction that first drops Chorus's
 * tables, and commits only once `pg_restore` has written the whole dump: a dump that fails midway
 * rolls back and leaves the old tables in use. The database URL's password goes to the programs
 * in PGPASSWORD, never on their command line (which other users of the machine can read).
 */
import { spawn } from 'node:child_process';
import { CHORUS_TABLES } from '../../store/database-overview.ts';
import { childEnvironment, LineSplitter, runCommand } from '../command.ts';

export interface PgTools {
  pgDump: string;
  pgRestore: string;
  psql: string;
  /** `pg_dump --version`, e.g. "pg_dump (PostgreSQL) 15.20". */
  version: string;
}

export const PG_TOOL_NAMES = { pgDump: 'pg_dump', pgRestore: 'pg_restore', psql: 'psql' } as const;

/** Kysely's bookkeeping tables of the bot's migrations: restored with the tables they describe. */
export const MIGRATION_TABLES = ['kysely_migration', 'kysely_migration_lock'] as const;

const VERSION_TIMEOUT_MS = 5000;
/** A dump or restore of a very large corpus may take long; this only ends a hung program. */
const DUMP_TIMEOUT_MS = 6 * 3600_000;

export class PgToolError extends Error {
  override readonly name = 'PgToolError';
}

type Env = Readonly<Record<string, string | undefined>>;

/** The three programs when each runs (`--version`), else null: backups then use the portable file. */
export async function findPgTools(
  env: Env,
  names: { pgDump: string; pgRestore: string; psql: string } = PG_TOOL_NAMES,
): Promise<PgTools | null> {
  const versions: string[] = [];
  for (const program of [names.pgDump, names.pgRestore, names.psql]) {
    const result = await runCommand(program, ['--version'], {
      cwd: process.cwd(),
      env: childEnvironment(env),
      timeoutMs: VERSION_TIMEOUT_MS,
    });
    if (result.code !== 0) return null;
    versions.push(result.tail.trim());
  }
  return { ...names, version: versions[0] ?? '' };
}

/** The URL without its password (for the command line) and the environment holding it. */
export function libpqConnection(url: string, env: Env): { dbname: string; env: Record<string, string | undefined> } {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = '';
  // libpq reads %20 but not the "+" that URLSearchParams writes for a space (options=-c search_path=…).
  parsed.search = [...parsed.searchParams]
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
    .join('&');
  const childEnv = childEnvironment(env);
  return { dbname: parsed.toString(), env: password === '' ? childEnv : { ...childEnv, PGPASSWORD: password } };
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Dumps `tables` of `schema` (those that exist) to `destination` in the custom format; calls
 * `onTable` as the contents of each table are written.
 */
export async function pgDump(
  tools: PgTools,
  url: string,
  schema: string,
  tables: readonly string[],
  destination: string,
  options: { env: Env; signal?: AbortSignal; onTable?: (table: string) => void },
): Promise<void> {
  const { dbname, env } = libpqConnection(url, options.env);
  const args = ['--format=custom', '--no-owner', '--no-privileges', '--verbose', `--file=${destination}`];
  for (const table of tables) args.push('--table', `${quoteIdent(schema)}.${quoteIdent(table)}`);
  args.push(`--dbname=${dbname}`);
  const result = await runCommand(tools.pgDump, args, {
    cwd: process.cwd(),
    env,
    timeoutMs: DUMP_TIMEOUT_MS,
    ...(options.signal ? { signal: options.signal } : {}),
    onLine: (line) => {
      const match = /dumping contents of table "([^"]+)"/.exec(line);
      if (match?.[1] !== undefined) options.onTable?.(match[1]);
    },
  });
  if (result.code !== 0) throw new PgToolError(`pg_dump failed: ${failure(result)}`);
}

export interface PgDumpContents {
  /** The schemas of the tables in the dump. */
  schemas: string[];
  tables: string[];
}

/** Reads a dump's table of contents (`pg_restore --list`); PgToolError when it is not a readable dump. */
export async function inspectPgDump(tools: PgTools, file: string, env: Env): Promise<PgDumpContents> {
  const schemas = new Set<string>();
  const tables: string[] = [];
  const result = await runCommand(tools.pgRestore, ['--list', file], {
    cwd: process.cwd(),
    env: childEnvironment(env),
    timeoutMs: 60_000,
    onLine: (line) => {
      const match = /^\d+; \d+ \d+ TABLE (?!DATA )(\S+) (\S+) /.exec(line);
      if (match?.[1] !== undefined && match[2] !== undefined) {
        schemas.add(match[1]);
        tables.push(match[2]);
      }
    },
  });
  if (result.code !== 0) throw new PgToolError(`not a readable pg_dump file: ${failure(result)}`);
  return { schemas: [...schemas], tables };
}

/**
 * Replaces `tables` of `schema` with the dump in one transaction: committed only when the whole
 * dump was read and every statement succeeded.
 */
export async function pgRestore(
  tools: PgTools,
  url: string,
  schema: string,
  tables: readonly string[],
  file: string,
  options: { env: Env },
): Promise<void> {
  const { dbname, env } = libpqConnection(url, options.env);
  const restore = spawn(tools.pgRestore, ['--no-owner', '--no-privileges', '--exit-on-error', '--file=-', file], {
    env: env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const psql = spawn(tools.psql, ['-X', '-q', '-v', 'ON_ERROR_STOP=1', `--dbname=${dbname}`], {
    env: env as NodeJS.ProcessEnv,
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  const errors: string[] = [];
  const collect = (who: string) => new LineSplitter((line) => errors.push(`${who}: ${line}`));
  const restoreErrors = collect('pg_restore');
  const psqlErrors = collect('psql');
  restore.stderr.on('data', (chunk: Buffer) => restoreErrors.push(chunk));
  psql.stderr.on('data', (chunk: Buffer) => psqlErrors.push(chunk));
  const exited = (child: ReturnType<typeof spawn>) =>
    new Promise<number | null>((resolve) => {
      child.on('error', (error) => {
        errors.push(error.message);
        resolve(null);
      });
      child.on('close', (code) => resolve(code));
    });
  const restoreExit = exited(restore);
  const psqlExit = exited(psql);
  psql.stdin.on('error', () => undefined);
  // psql stopped at an error: pg_restore would wait forever on a pipe nobody reads.
  void psqlExit.then(() => {
    if (restore.exitCode === null) restore.kill();
    restore.stdout.resume();
  });
  const drops = tables.map((table) => `${quoteIdent(schema)}.${quoteIdent(table)}`).join(', ');
  psql.stdin.write(`BEGIN;\nDROP TABLE IF EXISTS ${drops} CASCADE;\n`);
  restore.stdout.pipe(psql.stdin, { end: false });
  const restoreCode = await restoreExit;
  await new Promise<void>((resolve) => {
    if (restore.stdout.readableEnded) resolve();
    else restore.stdout.once('end', () => resolve());
  });
  restore.stdout.unpipe(psql.stdin);
  // Without COMMIT the session ends with the transaction open, and the server rolls it back.
  psql.stdin.end(restoreCode === 0 ? '\nCOMMIT;\n' : '\n');
  const psqlCode = await psqlExit;
  restoreErrors.end();
  psqlErrors.end();
  if (restoreCode !== 0 || psqlCode !== 0) {
    throw new PgToolError(`restore rolled back: ${errors.slice(-6).join('; ') || 'the client tools failed'}`);
  }
}

function failure(result: { startError: string | null; timedOut: boolean; tail: string }): string {
  if (result.startError !== null) return result.startError;
  if (result.timedOut) return 'timed out';
  const lines = result.tail.split('\n').filter((line) => /error|fatal|failed/i.test(line));
  return (lines.length > 0 ? lines : result.tail.split('\n')).slice(-3).join('; ');
}

/**
 * PostgreSQL's ReplaceDatabase (restore.ts): the dump must hold Chorus's corpus in one schema;
 * Chorus's tables of that schema are replaced by it in one transaction.
 */
export function replacePostgresTables(url: string, env: Env): (source: string) => Promise<void> {
  return async (source) => {
    const tools = await findPgTools(env);
    if (tools === null) throw new PgToolError('the PostgreSQL client tools (pg_restore, psql) are not installed');
    const contents = await inspectPgDump(tools, source, env);
    const [schema] = contents.schemas;
    if (contents.schemas.length !== 1 || schema === undefined || !contents.tables.includes('context')) {
      throw new PgToolError('not a Chorus backup (no context table in one schema)');
    }
    await pgRestore(tools, url, schema, [...CHORUS_TABLES, ...MIGRATION_TABLES], source, { env });
  };
}
