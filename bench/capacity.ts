/**
 * bench:capacity — the highest message rate each setup sustains: SQLite × 1 process, PostgreSQL ×
 * 1 and × 2 real `chorus serve` processes (bench/repeater/fleet.ts: two accounts each, twenty
 * groups shared, the bench:repeater conversation). Sustained means no learning skipped or dropped,
 * no reply lookup skipped, decision p99 under 5 ms and learn lag p99 under 1 s
 * (bench/repeater/fleet-report.ts). The search doubles the rate until a run misses, then bisects
 * (bench/capacity/search.ts). Beside each: pairs learned per second at that rate, CPU time per
 * learned pair (the Chorus processes from /proc, and their PostgreSQL backends), and the bare
 * driver's learn rate by bench:store's method with the ratio of the two.
 *
 *   npm run bench:capacity [-- --quick] [--only sqlitex1,postgresx1,postgresx2]
 *                          [--start-rate N] [--max-rate N] [--seconds N] [--seed N]
 *
 * PostgreSQL: CHORUS_BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), in
 * scratch schemas the run creates and drops.
 */
import { loadavg } from 'node:os';
import { parseCapacityArgs, UsageError, type CapacityOptions } from './capacity/args.ts';
import { bareLearnRate, type BareLearn } from './capacity/bare-learn.ts';
import { searchCapacity, type SearchResult } from './capacity/search.ts';
import { ratio } from './lib/stats.ts';
import { fmt, formatTable } from './lib/table.ts';
import { fleetFigures } from './repeater/fleet-report.ts';
import type { Engine } from './repeater/fleet.ts';

const log = (line: string) => process.stderr.write(`bench:capacity: ${line}\n`);

async function main(options: CapacityOptions): Promise<void> {
  const started = performance.now();
  const load = loadavg().map((value) => value.toFixed(2));
  const engines = [...new Set(options.setups.map((setup) => setup.engine))];
  const bare = new Map<Engine, BareLearn>();
  for (const engine of engines) {
    log(`${engine}: bare driver learn rate (${options.bareN} contexts, ${options.bareLearns} learns)`);
    bare.set(engine, await bareLearnRate(engine, { n: options.bareN, learns: options.bareLearns, ...options }));
  }
  const results: SearchResult[] = [];
  for (const setup of options.setups) results.push(await searchCapacity(setup, options, log));

  const rows = results.map((search) => {
    const reference = bare.get(search.setup.engine);
    const figures = search.best ? fleetFigures(search.best.result) : null;
    return {
      label: `${search.setup.engine} × ${search.setup.processes}`,
      key: `${search.setup.engine}_x${search.setup.processes}`,
      rate: search.best?.rate ?? 0,
      missedAt: search.firstMiss ? `${search.firstMiss.rate} (${search.firstMiss.misses[0] ?? ''})` : '-',
      figures,
      bare: reference?.bare ?? Number.NaN,
      store: reference?.store ?? Number.NaN,
    };
  });
  console.log(
    formatTable(
      [
        'setup',
        'sustained msg/s',
        'first missed at',
        'pairs learned/s',
        'decision p99 ms',
        'lag p99 ms',
        'CPU ms/pair Chorus',
        'CPU ms/pair PG',
        'bare learn/s',
        'learned/s ÷ bare',
      ],
      rows.map((row) => [
        row.label,
        row.figures ? `${row.rate}` : `< ${options.startRate}`,
        row.missedAt,
        fmt(row.figures?.learnedPerSecond ?? Number.NaN),
        fmt(row.figures?.decisionP99Ms ?? Number.NaN, 2),
        fmt(row.figures?.learnLagP99Ms ?? Number.NaN, 0),
        fmt(row.figures?.cpuMsPerPair ?? Number.NaN, 3),
        fmt(row.figures?.postgresCpuMsPerPair ?? Number.NaN, 3),
        fmt(row.bare),
        fmt(ratio(row.figures?.learnedPerSecond ?? Number.NaN, row.bare), 3),
      ]),
    ),
  );
  console.log(
    `\nbare learn/s: one writer, one transaction per learn, bench:store's method ` +
      `(${options.bareN} contexts); through the store alone: ` +
      engines.map((engine) => `${engine} ${fmt(bare.get(engine)?.store ?? Number.NaN)}/s`).join(', ') +
      `\nload average at the start: ${load.join(' ')}; total ${((performance.now() - started) / 1000).toFixed(0)} s` +
      (options.quick ? ' (--quick: coarse search, short runs)' : ''),
  );
  console.log(
    `RESULT bench:capacity ` +
      rows
        .map(
          (row) =>
            `${row.key}_msg_s=${row.rate} ${row.key}_learned_s=${fmt(row.figures?.learnedPerSecond ?? Number.NaN)} ` +
            `${row.key}_cpu_ms_per_pair=${fmt(row.figures?.cpuMsPerPair ?? Number.NaN, 3)} ` +
            `${row.key}_vs_bare=${fmt(ratio(row.figures?.learnedPerSecond ?? Number.NaN, row.bare), 3)}`,
        )
        .join(' '),
  );
}

let options: CapacityOptions;
try {
  options = parseCapacityArgs(process.argv.slice(2), process.env);
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  console.error(`bench:capacity: ${error.message}`);
  process.exit(2);
}
await main(options);
