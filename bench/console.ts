/**
 * bench:console: requests per second of the cached, authenticated `GET /chorus/api/corpus-status`
 * beside a bare route on the same server, registered only here: a trivial Fastify route (no auth,
 * no cache, no envelope, no schema) returning a constant object with the same content as the status
 * answer. Target: status at >= 80% of bare. Also shown: the floor, a route sending those bytes as
 * a constant string (no serialisation), and the ratio to it.
 *
 * The load comes from autocannon in a worker thread over loopback keep-alive connections. The
 * routes alternate in short rounds and each ratio is the median of the per-round ratios, so other
 * load on the machine moves the figures together. The server thread's busy time per request
 * (event-loop utilisation) is printed beside the throughput.
 *
 *   npm run bench:console [-- --quick] [--duration S] [--connections N]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import autocannon from 'autocannon';
import { wireConsole } from '../src/app/console-wiring.ts';
import { replySettings, wireCorpus } from '../src/app/corpus-wiring.ts';
import { readVersion } from '../src/app/version.ts';
import { ConfigReactions, ConfigStore } from '../src/config/index.ts';
import { systemClock } from '../src/common/clock.ts';
import { silentLog } from '../src/common/log.ts';
import { openStore } from '../src/store/open-store.ts';
import { fmt, formatTable } from './lib/table.ts';

const TOKEN = 'bench-console-token-0123456789';
const TARGET_RATIO = 0.8;

function parseOptions() {
  try {
    const { values } = parseArgs({
      options: {
        quick: { type: 'boolean', default: false },
        duration: { type: 'string' },
        connections: { type: 'string' },
      },
      strict: true,
    });
    const quick = values.quick ?? false;
    const duration = Number(values.duration ?? (quick ? 1 : 3));
    const connections = Number(values.connections ?? 32);
    if (!Number.isInteger(duration) || duration < 1) throw new Error('--duration must be an integer >= 1 (seconds)');
    if (!Number.isInteger(connections) || connections < 1) throw new Error('--connections must be an integer >= 1');
    return { quick, duration, connections, rounds: quick ? 4 : 10 };
  } catch (error) {
    process.stderr.write(`bench:console: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  }
}

interface Run {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Busy time of the server's event loop per request, microseconds. */
  busyUs: number;
}

async function load(url: string, seconds: number, connections: number): Promise<Run> {
  const before = performance.eventLoopUtilization();
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    workers: 1,
    headers: { 'x-chorus-token': TOKEN },
  });
  const busy = performance.eventLoopUtilization(before);
  const errors = result.errors + result.timeouts + result.non2xx;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors,
    busyUs: (busy.active * 1000) / Math.max(1, result.requests.total),
  };
}

async function main(): Promise<void> {
  const options = parseOptions();
  const dir = await mkdtemp(join(tmpdir(), 'chorus-bench-console-'));
  const config = await ConfigStore.open({ env: { CHORUS_CONSOLE_TOKEN: TOKEN }, projectDir: dir });
  const snapshot = config.current();
  const store = await openStore({
    databaseUrl: '',
    dataDir: snapshot.dataDir,
    poolMax: 1,
    reply: replySettings(snapshot),
  });
  const corpus = wireCorpus(store, config, systemClock, silentLog);
  await corpus.scope.start();
  const reactions = new ConfigReactions(corpus.reactions, silentLog);
  const unfollow = reactions.follow(config);
  const wiring = wireConsole({
    config,
    reactions,
    store,
    corpus,
    logger: pino({ level: 'silent' }),
    clock: systemClock,
    version: readVersion(),
    auth: { generatedToken: 'unused-generated-token', sessionSecret: Buffer.alloc(32, 3), path: 'unused' },
    health: () => {
      throw new Error('not used');
    },
  });
  const server = wiring.server;
  // The bare route: a trivial Fastify route, no auth, no cache, no envelope hook, no schema; it
  // returns a constant object with the same content as the status answer (so both put the same
  // bytes on the wire), serialised by Fastify's default JSON.stringify. For information, the floor:
  // a route that sends those bytes as a constant string (no serialisation at all).
  let floorText = '';
  let bareObject: unknown = {};
  server.get('/bench/bare', async () => bareObject);
  server.get('/bench/floor', (_request, reply) => {
    reply.header('content-type', 'application/json; charset=utf-8').send(floorText);
  });
  await server.listen({ host: '127.0.0.1', port: 0 });
  const address = server.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  const origin = `http://127.0.0.1:${address.port}`;
  const routes = {
    bare: `${origin}/bench/bare`,
    floor: `${origin}/bench/floor`,
    status: `${origin}${snapshot.server.baseUrl}/api/corpus-status`,
  };
  const check = await fetch(routes.status, { headers: { 'x-chorus-token': TOKEN } });
  if (check.status !== 200) throw new Error(`corpus-status answered ${check.status}`);
  floorText = await check.text();
  bareObject = JSON.parse(floorText);

  try {
    process.stdout.write(
      `bench:console: ${options.rounds} rounds of ${options.duration} s per route, ${options.connections} connections\n`,
    );
    const names = ['bare', 'floor', 'status'] as const;
    for (const name of names) await load(routes[name], 1, options.connections);
    const runs: Record<keyof typeof routes, Run[]> = { bare: [], floor: [], status: [] };
    for (let round = 0; round < options.rounds; round++) {
      for (const name of names) runs[name].push(await load(routes[name], options.duration, options.connections));
    }
    const median = (values: number[]) => {
      const sorted = [...values].sort((x, y) => x - y);
      const middle = Math.floor(sorted.length / 2);
      return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
    };
    const summary = (name: keyof typeof routes) => ({
      rps: median(runs[name].map((run) => run.rps)),
      p50: median(runs[name].map((run) => run.p50)),
      p99: median(runs[name].map((run) => run.p99)),
      busyUs: median(runs[name].map((run) => run.busyUs)),
      errors: runs[name].reduce((sum, run) => sum + run.errors, 0),
    });
    const bare = summary('bare');
    const floor = summary('floor');
    const status = summary('status');
    const ratioTo = (name: 'bare' | 'floor') =>
      median(runs.status.map((run, round) => run.rps / (runs[name][round]?.rps ?? Infinity)));
    const ratio = ratioTo('bare');
    const floorRatio = ratioTo('floor');
    const row = (name: string, figures: ReturnType<typeof summary>) => [
      name,
      fmt(figures.rps),
      fmt(figures.p50, 2),
      fmt(figures.p99, 2),
      fmt(figures.busyUs, 1),
      String(figures.errors),
    ];
    process.stdout.write(
      `${formatTable(
        ['route (medians over rounds)', 'req/s', 'p50 ms', 'p99 ms', 'server us/req', 'errors'],
        [
          row('GET /bench/bare (bare: constant object)', bare),
          row('GET /bench/floor (constant string)', floor),
          row('GET /chorus/api/corpus-status', status),
        ],
      )}\n`,
    );
    process.stdout.write(
      `target: status >= ${TARGET_RATIO * 100}% of bare: ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'}\n`,
    );
    process.stdout.write(
      `RESULT bench:console status_rps=${Math.round(status.rps)} bare_rps=${Math.round(bare.rps)} ratio=${ratio.toFixed(2)}` +
        ` floor_rps=${Math.round(floor.rps)} floor_ratio=${floorRatio.toFixed(2)}\n`,
    );
    if (bare.errors + floor.errors + status.errors > 0) process.exitCode = 1;
  } finally {
    await server.close();
    unfollow();
    await corpus.scope.stop(1000);
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
