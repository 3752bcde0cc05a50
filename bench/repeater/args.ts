import { parseArgs } from 'node:util';

export interface RepeaterBenchOptions {
  quick: boolean;
  /** Distinct group messages per second (a message in a group both accounts are in is sent twice). */
  rate: number;
  seconds: number;
  seed: number;
  /** Run twice, as is and with a console watcher, and print the decision p99 ratio. */
  watched: boolean;
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
export function parseRepeaterArgs(argv: readonly string[]): RepeaterBenchOptions {
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
  return {
    quick,
    rate,
    seconds,
    seed: positive('seed', values.seed, 20260601, true),
    watched: values.watched ?? false,
  };
}
