import { parseArgs } from 'node:util';
import { DEFAULT_BENCH_DATABASE_URL } from '../lib/postgres-schema.ts';

export interface RepeaterBenchOptions {
  quick: boolean;
  /** Distinct group messages per second (a message in a group both accounts are in is sent twice). */
  rate: number;
  seconds: number;
  seed: number;
  /** Run twice, as is and with a console watcher, and print the decision p99 ratio. */
  watched: boolean;
  engine: 'sqlite' | 'postgres';
  /** Real `chorus serve` child processes, measured through their metrics; null: in this process. */
  processes: number | null;
  /** The model path on: a stand-in model answering at once, every group answering in place of silence at 10%. */
  model: boolean;
  /** PostgreSQL: the database the scratch schema goes into (CHORUS_BENCH_DATABASE_URL). */
  databaseUrl: string;
}

export class UsageError extends Error {}

function positive(name: string, value: string | undefined, fallback: number, integer: boolean): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !(number > 0) || (integer && !Number.isInteger(number))) {
    throw new UsageError(`--${name} must be a positive ${integer ? 'integer' : 'number'}, got '${value}'`);
  }
  return number;
}

/** Command line of bench:repeater; throws UsageError with a one-line reason. */
export function parseRepeaterArgs(
  argv: readonly string[],
  env: Record<string, string | undefined> = {},
): RepeaterBenchOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        quick: { type: 'boolean' },
        rate: { type: 'string' },
        seconds: { type: 'string' },
        seed: { type: 'string' },
        watched: { type: 'boolean' },
        engine: { type: 'string' },
        processes: { type: 'string' },
        model: { type: 'boolean' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0] ?? 'invalid arguments');
  }
  const { values } = parsed;
  const quick = values.quick ?? false;
  const rate = positive('rate', values.rate, 500, false);
  const seconds = positive('seconds', values.seconds, quick ? 10 : 60, false);
  if (rate > 20_000) throw new UsageError(`--rate above 20000 messages per second is not supported, got ${rate}`);
  if (seconds > 3600) throw new UsageError(`--seconds above 3600 is not supported, got ${seconds}`);
  const engine = values.engine ?? 'sqlite';
  if (engine !== 'sqlite' && engine !== 'postgres') {
    throw new UsageError(`--engine must be sqlite or postgres, got '${engine}'`);
  }
  const processes = values.processes === undefined ? null : positive('processes', values.processes, 1, true);
  if (processes !== null && processes > 8)
    throw new UsageError(`--processes above 8 is not supported, got ${processes}`);
  if (engine === 'sqlite' && processes !== null && processes > 1) {
    throw new UsageError(`--processes ${processes} needs --engine postgres (SQLite serves one process)`);
  }
  if (values.watched && processes !== null) throw new UsageError('--watched runs in this process: drop --processes');
  if (values.model && processes !== null) throw new UsageError('--model runs in this process: drop --processes');
  return {
    engine,
    processes,
    databaseUrl: env.CHORUS_BENCH_DATABASE_URL || DEFAULT_BENCH_DATABASE_URL,
    quick,
    rate,
    seconds,
    seed: positive('seed', values.seed, 20260601, true),
    watched: values.watched ?? false,
    model: values.model ?? false,
  };
}
