/**
 * bench:hub (server part): throughput of one community hub process, on SQLite and on PostgreSQL.
 * The hub is a real `chorus hub` child process (policy limits off); the load comes from
 * autocannon in this process over loopback keep-alive connections, spread over several enrolled
 * deployments. Measured per engine: seeding with `insert` contributions (concurrent fetch loops),
 * `upsert_answer` contributions, and context reads that hit. The bare figure is a plain node:http
 * child process answering the same context bytes: the loopback HTTP limit of this machine and
 * client, so `ratio` says what the hub's work (auth, rate and usage counters, SQL) costs.
 *
 *   node --import tsx bench/hub-server.ts [--quick] [--duration S] [--connections N]
 *     [--contexts N] [--engines sqlite,postgres]
 *
 * PostgreSQL: CHORUS_BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), in a
 * fresh schema dropped afterwards; skipped with a note when unreachable.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { startChild, startHubChild, type Child } from './lib/child.ts';
import { mulberry32 } from './lib/rng.ts';
import { fmt, formatTable } from './lib/table.ts';

const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
const DEPLOYMENTS = 16;
const SEED_LOOPS = 16;
const ANSWERS_PER_CONTEXT = 3;
/**
 * Each context is inserted by this many deployments, so that the hub's agreement rule (default:
 * 3 deployments, docs/hub.md#agreement) serves it and reads hit. The bench enrolls from one
 * address, so it runs the hub with the cohort window off (each deployment its own cohort).
 */
const AGREEING = 3;

export type HubEngine = 'sqlite' | 'postgres';

export interface HubServerOptions {
  quick: boolean;
  /** Seconds per autocannon run. */
  durationSec: number;
  connections: number;
  /** Contexts seeded before the runs (reads pick among them). */
  contexts: number;
  engines: readonly HubEngine[];
  /** PostgreSQL server for the postgres engine. */
  databaseUrl: string;
  /** Progress lines (default: standard error). */
  progress?: (line: string) => void;
}

export interface Throughput {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Transport errors, timeouts and non-2xx answers. */
  errors: number;
}

export interface HubEngineFigures {
  engine: HubEngine;
  /** Seeding with `insert` contributions (3 answers each) from concurrent fetch loops. */
  insert: Throughput;
  contribute: Throughput;
  read: Throughput;
}

export interface HubServerFigures {
  bare: Throughput;
  engines: HubEngineFigures[];
  /** Engines that could not run, with the reason (PostgreSQL unreachable). */
  skipped: { engine: HubEngine; reason: string }[];
}

const keyOf = (index: number) => `热词${index}号`;

/** A node:http server answering `body` to every request: the loopback HTTP limit. */
function startBare(body: string): Promise<Child> {
  const script = `
    const http = require('node:http');
    const body = Buffer.from(${JSON.stringify(body)});
    const server = http.createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
        response.end(body);
      });
    });
    server.keepAliveTimeout = 60000;
    server.listen(0, '127.0.0.1', () => console.log('bare listening at http://127.0.0.1:' + server.address().port));
  `;
  return startChild(['-e', script], {}, /bare listening at (http:\/\/\S+)/);
}

async function enroll(url: string): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < DEPLOYMENTS; i++) {
    const response = await fetch(`${url}/v1/corpus/enroll`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ deployment_id: randomUUID() }),
    });
    if (response.status !== 200) throw new Error(`enroll answered ${response.status}`);
    tokens.push(((await response.json()) as { corpus_token: string }).corpus_token);
  }
  return tokens;
}

/** `contexts` × AGREEING insert contributions (each context by AGREEING deployments) from concurrent keep-alive fetch loops. */
async function seed(url: string, tokens: readonly string[], contexts: number): Promise<Throughput> {
  let next = 0;
  let errors = 0;
  const latencies: number[] = [];
  const started = performance.now();
  const inserts = contexts * AGREEING;
  const loop = async () => {
    while (next < inserts) {
      const job = next++;
      const index = Math.floor(job / AGREEING);
      const token = tokens[(index + (job % AGREEING)) % tokens.length] ?? '';
      const body = JSON.stringify({
        op: 'insert',
        context: {
          keywords: keyOf(index),
          answers: Array.from({ length: ANSWERS_PER_CONTEXT }, (_, answer) => ({
            keywords: `答${answer}`,
            count: 1 + ((index + answer) % 5),
            messages: [`回复${answer}`, `回复${answer}[CQ:face,id=1]啊`],
          })),
        },
      });
      const begun = performance.now();
      const response = await fetch(`${url}/v1/corpus/contribute`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
      });
      await response.arrayBuffer();
      latencies.push(performance.now() - begun);
      if (response.status !== 200) errors++;
    }
  };
  await Promise.all(Array.from({ length: SEED_LOOPS }, () => loop()));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { rps: inserts / seconds, p50Ms: at(0.5), p99Ms: at(0.99), errors };
}

async function load(
  url: string,
  options: HubServerOptions,
  request: autocannon.Request,
  seconds = options.durationSec,
): Promise<Throughput> {
  const result = await autocannon({ url, connections: options.connections, duration: seconds, requests: [request] });
  return {
    rps: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

function contributeRequest(tokens: readonly string[], contexts: number): autocannon.Request {
  const random = mulberry32(11);
  return {
    method: 'POST',
    path: '/v1/corpus/contribute',
    setupRequest(request) {
      const index = Math.floor(random() * contexts);
      const answer = Math.floor(random() * 5);
      const token = tokens[Math.floor(random() * tokens.length)] ?? '';
      request.headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      request.body = JSON.stringify({
        op: 'upsert_answer',
        keywords: keyOf(index),
        answer_keywords: `答${answer}`,
        message: `回复${answer}${Math.floor(random() * 3)}`,
        group_id: 0,
        append_on_existing: true,
      });
      return request;
    },
  };
}

function readRequest(tokens: readonly string[], contexts: number): autocannon.Request {
  const random = mulberry32(13);
  return {
    method: 'GET',
    setupRequest(request) {
      const index = Math.floor(random() * contexts);
      const token = tokens[Math.floor(random() * tokens.length)] ?? '';
      request.path = `/v1/corpus/context?keywords=${encodeURIComponent(keyOf(index))}`;
      request.headers = { authorization: `Bearer ${token}` };
      return request;
    },
  };
}

async function probePostgres(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function withPostgresSchema<T>(url: string, run: (schemaUrl: string) => Promise<T>): Promise<T> {
  const schema = `chorus_bench_hub_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA "${schema}"`);
    const separator = url.includes('?') ? '&' : '?';
    return await run(`${url}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`);
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await admin.end();
  }
}

async function measureEngine(engine: HubEngine, options: HubServerOptions): Promise<HubEngineFigures> {
  const progress = options.progress ?? ((line: string) => process.stderr.write(`${line}\n`));
  const run = async (env: Record<string, string>): Promise<HubEngineFigures> => {
    const hub = await startHubChild({ CHORUS_HUB_COHORT_WINDOW_SEC: '0', ...env });
    try {
      const tokens = await enroll(hub.url);
      progress(`bench:hub-server: ${engine}: seeding ${options.contexts} contexts`);
      const insert = await seed(hub.url, tokens, options.contexts);
      // Warm-up: statement caches, connection pools, JIT.
      await load(hub.url, options, readRequest(tokens, options.contexts), 1);
      progress(`bench:hub-server: ${engine}: contribute for ${options.durationSec} s`);
      const contribute = await load(hub.url, options, contributeRequest(tokens, options.contexts));
      progress(`bench:hub-server: ${engine}: read for ${options.durationSec} s`);
      const read = await load(hub.url, options, readRequest(tokens, options.contexts));
      return { engine, insert, contribute, read };
    } finally {
      await hub.stop();
    }
  };
  if (engine === 'postgres') {
    return withPostgresSchema(options.databaseUrl, (url) =>
      run({ CHORUS_HUB_DATABASE_URL: url, CHORUS_HUB_DATABASE_POOL_MAX: '16', CHORUS_HUB_DATA_DIR: tmpdir() }),
    );
  }
  const dir = await mkdtemp(join(tmpdir(), 'chorus-bench-hub-'));
  try {
    return await run({ CHORUS_HUB_DATABASE_URL: '', CHORUS_HUB_DATA_DIR: dir });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs the server-side hub benchmark; prints nothing but progress (see formatHubServer). */
export async function benchHubServer(options: HubServerOptions): Promise<HubServerFigures> {
  const figures: HubServerFigures = { bare: { rps: 0, p50Ms: 0, p99Ms: 0, errors: 0 }, engines: [], skipped: [] };
  for (const engine of options.engines) {
    if (engine === 'postgres') {
      const problem = await probePostgres(options.databaseUrl);
      if (problem !== null) {
        figures.skipped.push({ engine, reason: `PostgreSQL unreachable: ${problem}` });
        continue;
      }
    }
    figures.engines.push(await measureEngine(engine, options));
  }
  // The bare server answers what a context read answers (3 answers, 2 messages each).
  const sample = JSON.stringify({
    keywords: keyOf(1),
    time: 1_700_000_000,
    trigger_count: 1,
    clear_time: 0,
    answers: Array.from({ length: ANSWERS_PER_CONTEXT }, (_, answer) => ({
      keywords: `答${answer}`,
      group_id: 0,
      count: 1 + answer,
      time: 1_700_000_000,
      messages: [`回复${answer}`, `回复${answer}啊`],
    })),
    ban: [],
  });
  const bare = await startBare(sample);
  try {
    await load(bare.url, options, { method: 'GET', path: '/' }, 1);
    figures.bare = await load(bare.url, options, { method: 'GET', path: '/' });
  } finally {
    await bare.stop();
  }
  return figures;
}

/** The table and the RESULT line. */
export function formatHubServer(figures: HubServerFigures, options: HubServerOptions): string {
  const row = (name: string, run: Throughput, against: number | null) => [
    name,
    fmt(run.rps),
    fmt(run.p50Ms, 2),
    fmt(run.p99Ms, 2),
    String(run.errors),
    against === null ? '-' : fmt(run.rps / against, 2),
  ];
  const rows: string[][] = [row('bare node:http (same bytes as a read)', figures.bare, null)];
  for (const engine of figures.engines) {
    rows.push(
      row(`${engine.engine}: insert (seed, ${SEED_LOOPS} loops, ${AGREEING} per context)`, engine.insert, null),
    );
    rows.push(row(`${engine.engine}: contribute upsert_answer`, engine.contribute, figures.bare.rps));
    rows.push(row(`${engine.engine}: context read (hit)`, engine.read, figures.bare.rps));
  }
  const lines = [
    `bench:hub-server: one hub process, ${options.connections} keep-alive connections, ${options.durationSec} s per run, ` +
      `${options.contexts} contexts, ${DEPLOYMENTS} deployments`,
    formatTable(['workload', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'ratio vs bare'], rows),
    ...figures.skipped.map((skip) => `skipped ${skip.engine}: ${skip.reason}`),
  ];
  const result = [`RESULT bench:hub-server bare_rps=${Math.round(figures.bare.rps)}`];
  for (const engine of figures.engines) {
    result.push(
      `${engine.engine}_insert_rps=${Math.round(engine.insert.rps)}`,
      `${engine.engine}_contribute_rps=${Math.round(engine.contribute.rps)}`,
      `${engine.engine}_read_rps=${Math.round(engine.read.rps)}`,
      `${engine.engine}_read_ratio_vs_bare=${(engine.read.rps / figures.bare.rps).toFixed(2)}`,
    );
  }
  lines.push(result.join(' '));
  return `${lines.join('\n')}\n`;
}

export function parseHubServerArgs(argv: readonly string[], env: NodeJS.ProcessEnv): HubServerOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: 'boolean', default: false },
      duration: { type: 'string' },
      connections: { type: 'string' },
      contexts: { type: 'string' },
      engines: { type: 'string' },
    },
    strict: true,
  });
  const quick = values.quick ?? false;
  const durationSec = Number(values.duration ?? (quick ? 3 : 15));
  const connections = Number(values.connections ?? 32);
  const contexts = Number(values.contexts ?? (quick ? 1000 : 20_000));
  const engines = (values.engines ?? 'sqlite,postgres').split(',').map((name) => name.trim());
  if (!Number.isInteger(durationSec) || durationSec < 1) throw new Error('--duration must be an integer >= 1');
  if (!Number.isInteger(connections) || connections < 1) throw new Error('--connections must be an integer >= 1');
  if (!Number.isInteger(contexts) || contexts < 10) throw new Error('--contexts must be an integer >= 10');
  for (const engine of engines) {
    if (engine !== 'sqlite' && engine !== 'postgres') throw new Error(`unknown engine ${engine}`);
  }
  return {
    quick,
    durationSec,
    connections,
    contexts,
    engines: engines as HubEngine[],
    databaseUrl: env.CHORUS_BENCH_DATABASE_URL || DEFAULT_DATABASE_URL,
  };
}

async function main(): Promise<void> {
  let options: HubServerOptions;
  try {
    options = parseHubServerArgs(process.argv.slice(2), process.env);
  } catch (error) {
    process.stderr.write(`bench:hub-server: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  }
  const figures = await benchHubServer(options);
  process.stdout.write(formatHubServer(figures, options));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
