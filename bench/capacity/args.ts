import { parseArgs } from 'node:util';
import { DEFAULT_BENCH_DATABASE_URL } from '../lib/postgres-schema.ts';
import type { Engine } from '../repeater/fleet.ts';

export interface Setup {
  engine: Engine;
  processes: number;
}

export interface CapacityOptions {
  quick: boolean;
  setups: Setup[];
  /** The first rate tried; the search doubles it until a run misses a target, then bisects. */
  startRate: number;
  maxRate: number;
  /** Bisection steps after the first miss. */
  bisections: number;
  /** Seconds of load per run. */
  seconds: number;
  /** How long after the last message the processes get to decide and learn everything. */
  drainTimeoutMs: number;
  seed: number;
  databaseUrl: string;
  /** The bare-driver reference: contexts loaded first, learns measured. */
  bareN: number;
  bareLearns: number;
}

export class UsageError extends Error {}

const SETUPS: Record<string, Setup> = {
  'sqlite×1': { engine: 'sqlite', processes: 1 },
  'postgres×1': { engine: 'postgres', processes: 1 },
  'postgres×2': { engine: 'postgres', processes: 2 },
};

function positive(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^[1-9][0-9]*$/.test(value)) throw new UsageError(`--${name} must be a positive integer, got '${value}'`);
  return Number(value);
}

/** Command line of bench:capacity; throws UsageError with a one-line reason. */
export function parseCapacityArgs(argv: readonly string[], env: Record<string, string | undefined>): CapacityOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        quick: { type: 'boolean' },
        only: { type: 'string' },
        'start-rate': { type: 'string' },
        'max-rate': { type: 'string' },
        seconds: { type: 'string' },
        seed: { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0] ?? 'invalid arguments');
  }
  const { values } = parsed;
  const quick = values.quick ?? false;
  const names = values.only?.split(',').map((name) => name.trim().replace('x', '×')) ?? Object.keys(SETUPS);
  const setups = names.map((name) => {
    const setup = SETUPS[name];
    if (!setup) throw new UsageError(`--only takes ${Object.keys(SETUPS).join(', ')} (x for ×), got '${name}'`);
    return setup;
  });
  const startRate = positive('start-rate', values['start-rate'], quick ? 250 : 100);
  const maxRate = positive('max-rate', values['max-rate'], 8000);
  if (maxRate < startRate) throw new UsageError(`--max-rate ${maxRate} is below --start-rate ${startRate}`);
  if (maxRate > 20_000) throw new UsageError(`--max-rate above 20000 is not supported, got ${maxRate}`);
  const seconds = positive('seconds', values.seconds, quick ? 4 : 15);
  if (seconds > 600) throw new UsageError(`--seconds above 600 is not supported, got ${seconds}`);
  return {
    quick,
    setups,
    startRate,
    maxRate,
    bisections: quick ? 1 : 3,
    seconds,
    drainTimeoutMs: quick ? 5_000 : 10_000,
    seed: positive('seed', values.seed, 20261125),
    databaseUrl: env.CHORUS_BENCH_DATABASE_URL || DEFAULT_BENCH_DATABASE_URL,
    bareN: quick ? 20_000 : 100_000,
    bareLearns: quick ? 1_000 : 5_000,
  };
}
