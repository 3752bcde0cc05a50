/**
 * bench:hub: per engine (SQLite, PostgreSQL), (1) contribute and context-read throughput of one
 * hub process beside a bare node:http server answering the same bytes (bench/hub-server.ts), and
 * (2) the reply hot-path p99 of a real bot with a hub healthy, black-holed and down, beside the
 * bot's bare local store (bench/hub/bot-hotpath.ts; target: within 10% of healthy). Part 2 runs
 * once, against a SQLite hub: the hub's engine is behind the network, off the bot's hot path.
 * Ends with one RESULT line per engine.
 *
 *   npm run bench:hub [-- --quick] [--engine sqlite|postgres|sqlite,postgres] [--duration S]
 *     [--connections N] [--hub-contexts N] [--lookups N] [--rate N] [--contexts N]
 *
 * PostgreSQL: CHORUS_BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), a fresh
 * schema per part, dropped afterwards; the engine is skipped with a note when unreachable.
 */
import { parseArgs } from 'node:util';
import { benchHubServer, type HubEngineFigures, type HubServerOptions, type Throughput } from './hub-server.ts';
import { benchBotHotPath, formatBotHotPath, p99Ratio, type HubEngine } from './hub/bot-hotpath.ts';
import { probePostgres } from './hub/processes.ts';
import { ratio } from './lib/stats.ts';
import { fmt, formatTable } from './lib/table.ts';

const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

interface Options {
  quick: boolean;
  engines: HubEngine[];
  durationSec: number;
  connections: number;
  hubContexts: number;
  lookups: number;
  rate: number;
  contexts: number;
  databaseUrl: string;
}

function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv): Options {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: 'boolean', default: false },
      engine: { type: 'string' },
      duration: { type: 'string' },
      connections: { type: 'string' },
      'hub-contexts': { type: 'string' },
      lookups: { type: 'string' },
      rate: { type: 'string' },
      contexts: { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const quick = values.quick ?? false;
  const integer = (name: string, value: string | undefined, fallback: number, min: number) => {
    const parsed = Number(value ?? fallback);
    if (!Number.isInteger(parsed) || parsed < min) throw new Error(`--${name} must be an integer >= ${min}`);
    return parsed;
  };
  const engines = (values.engine ?? 'sqlite,postgres').split(',').map((name) => name.trim());
  for (const engine of engines) {
    if (engine !== 'sqlite' && engine !== 'postgres') throw new Error(`unknown engine ${engine} (sqlite, postgres)`);
  }
  return {
    quick,
    engines: [...new Set(engines)] as HubEngine[],
    durationSec: integer('duration', values.duration, quick ? 1 : 10, 1),
    connections: integer('connections', values.connections, 32, 1),
    hubContexts: integer('hub-contexts', values['hub-contexts'], quick ? 300 : 5000, 10),
    lookups: integer('lookups', values.lookups, quick ? 8000 : 200_000, 1000),
    rate: integer('rate', values.rate, 10_000, 100),
    contexts: integer('contexts', values.contexts, quick ? 1000 : 5000, 100),
    databaseUrl: env.CHORUS_BENCH_DATABASE_URL || DEFAULT_DATABASE_URL,
  };
}

function hubTable(engine: HubEngineFigures, bare: Throughput): string {
  const row = (name: string, run: Throughput, against: number | null) => [
    name,
    fmt(run.rps),
    fmt(run.p50Ms, 2),
    fmt(run.p99Ms, 2),
    String(run.errors),
    against === null ? '-' : fmt(ratio(run.rps, against), 2),
  ];
  return formatTable(
    ['hub throughput', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'ratio vs bare'],
    [
      row('bare node:http (same bytes as a read)', bare, null),
      row('hub: seed inserts (16 fetch loops)', engine.insert, null),
      row('hub: contribute upsert_answer', engine.contribute, bare.rps),
      row('hub: context read (hit)', engine.read, bare.rps),
    ],
  );
}

async function main(): Promise<void> {
  let options: Options;
  try {
    options = parseOptions(process.argv.slice(2), process.env);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`bench:hub: ${message.split('\n')[0]}\n`);
    process.exit(2);
  }
  const started = performance.now();
  const progress = (line: string) => process.stderr.write(`${line}\n`);

  const skipped = new Map<HubEngine, string>();
  if (options.engines.includes('postgres')) {
    const problem = await probePostgres(options.databaseUrl);
    if (problem !== null) skipped.set('postgres', `PostgreSQL unreachable: ${problem}`);
  }
  const engines = options.engines.filter((engine) => !skipped.has(engine));

  const serverOptions: HubServerOptions = {
    quick: options.quick,
    durationSec: options.durationSec,
    connections: options.connections,
    contexts: options.hubContexts,
    engines,
    databaseUrl: options.databaseUrl,
    progress,
  };
  const server = engines.length > 0 ? await benchHubServer(serverOptions) : null;
  for (const skip of server?.skipped ?? []) skipped.set(skip.engine, skip.reason);

  // The bot part runs once, against a SQLite hub: the hub sits behind the network and off the
  // bot's hot path, so its engine does not change what is measured there; both RESULT lines
  // carry the same ratios.
  const bot =
    engines.length > 0
      ? await benchBotHotPath({
          engine: 'sqlite',
          lookups: options.lookups,
          ratePerSec: options.rate,
          contexts: options.contexts,
          databaseUrl: options.databaseUrl,
          progress,
        })
      : null;

  const lines: string[] = [
    `bench:hub: hub throughput: one hub process, ${options.connections} keep-alive connections, ` +
      `${options.durationSec} s per run, ${options.hubContexts} contexts; bot hot path: ${options.lookups} lookups ` +
      `per case at ${options.rate}/s (80% known keys, skewed; 20% unknown), one run against a SQLite hub for both engines`,
  ];
  const results: string[] = [];
  for (const engine of options.engines) {
    const reason = skipped.get(engine);
    if (reason !== undefined) {
      lines.push('', `engine=${engine}: skipped (${reason})`);
      continue;
    }
    const hub = server?.engines.find((entry) => entry.engine === engine);
    if (!hub || !server || !bot) continue;
    lines.push('', `engine=${engine}`, hubTable(hub, server.bare));
    results.push(
      `RESULT bench:hub engine=${engine} contribute_per_s=${Math.round(hub.contribute.rps)} ` +
        `read_per_s=${Math.round(hub.read.rps)} blackhole_ratio=${p99Ratio(bot, 'black-holed').toFixed(2)} ` +
        `down_ratio=${p99Ratio(bot, 'down').toFixed(2)} read_ratio_vs_bare=${ratio(hub.read.rps, server.bare.rps).toFixed(2)} ` +
        `healthy_p99_us=${fmt(bot.cases.find((entry) => entry.name === 'healthy')?.summary.p99 ?? Number.NaN, 2)}`,
    );
  }
  if (bot) lines.push('', 'bot (one run against a SQLite hub, for both engines)', formatBotHotPath(bot));
  lines.push('', `bench:hub: done in ${fmt((performance.now() - started) / 1000)} s`, ...results);
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();
