import { parseArgs } from 'node:util';

export type EngineChoice = 'sqlite' | 'postgres';

export interface BenchOptions {
  n: number;
  engines: EngineChoice[];
  quick: boolean;
  lookups: number;
  learns: number;
  seed: number;
  databaseUrl: string;
}

export class UsageError extends Error {}

const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

function positiveInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^[1-9][0-9]*$/.test(value)) throw new UsageError(`--${name} must be a positive integer, got '${value}'`);
  return Number(value);
}

/** Command line of bench:store; throws UsageError with a one-line reason. */
export function parseBenchArgs(argv: string[], env: NodeJS.ProcessEnv): BenchOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        n: { type: 'string' },
        engine: { type: 'string' },
        quick: { type: 'boolean' },
        lookups: { type: 'string' },
        learns: { type: 'string' },
        seed: { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0] ?? 'invalid arguments');
  }
  const { values } = parsed;
  const quick = values.quick ?? false;
  const engine = values.engine ?? 'both';
  if (engine !== 'sqlite' && engine !== 'postgres' && engine !== 'both') {
    throw new UsageError(`--engine must be sqlite, postgres or both, got '${engine}'`);
  }
  return {
    n: positiveInt('n', values.n, quick ? 20_000 : 200_000),
    engines: engine === 'both' ? ['sqlite', 'postgres'] : [engine],
    quick,
    lookups: positiveInt('lookups', values.lookups, quick ? 1_500 : 20_000),
    learns: positiveInt('learns', values.learns, quick ? 400 : 10_000),
    seed: positiveInt('seed', values.seed, 20261122),
    databaseUrl: env.CHORUS_BENCH_DATABASE_URL || DEFAULT_DATABASE_URL,
  };
}
