/**
 * bench:store — the local corpus store on SQLite and PostgreSQL against the bare drivers, over a
 * generated corpus (see bench/store/shape.ts for its distributions). Learning is measured as
 * learn_answer from 1 and 8 writers and as the service does it, through the learn worker's batches
 * (bench/store/measure-batch.ts), reported with its ratio to the 8 writers.
 *
 *   npm run bench:store -- [--quick] [--n 1000000] [--engine sqlite|postgres|both]
 *                          [--lookups 20000] [--learns 10000] [--seed N]
 *
 * PostgreSQL: CHORUS_BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), in a
 * schema chorus_bench_<pid> that is dropped at the end.
 */
import { parseBenchArgs, UsageError, type BenchOptions } from './store/args.ts';
import { formatEngine, resultLine, type EngineResult } from './store/report.ts';
import { runEngine } from './store/run-engine.ts';

async function main(options: BenchOptions): Promise<void> {
  let dispose: (() => Promise<void>) | undefined;
  const onInterrupt = () => {
    void (dispose?.() ?? Promise.resolve()).finally(() => process.exit(130));
  };
  process.once('SIGINT', onInterrupt);
  const started = performance.now();
  const results: EngineResult[] = [];
  try {
    for (const engine of options.engines) {
      const result = await runEngine(engine, options, {
        log: (line) => process.stderr.write(`${line}\n`),
        own: (disposer) => (dispose = disposer),
      });
      results.push(result);
      console.log(formatEngine(result));
      console.log();
    }
  } finally {
    process.removeListener('SIGINT', onInterrupt);
  }
  console.log(`total ${((performance.now() - started) / 1000).toFixed(1)} s${options.quick ? ' (--quick)' : ''}`);
  for (const result of results) console.log(resultLine(result));
}

let options: BenchOptions;
try {
  options = parseBenchArgs(process.argv.slice(2), process.env);
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  console.error(`bench:store: ${error.message}`);
  process.exit(2);
}
await main(options);
