/**
 * The capacity search of bench:capacity for one setup (engine × processes): runs at rising rates
 * on one fleet (doubling from the start rate until a run misses a target), then bisects between
 * the last rate that held and the first that did not. A run that missed leaves a backlog: the
 * fleet gets time to settle, and is started afresh if it does not.
 */
import { fmt } from '../lib/table.ts';
import { openFleet, type FleetRunResult, type FleetSession } from '../repeater/fleet.ts';
import { misses } from '../repeater/fleet-report.ts';
import type { CapacityOptions, Setup } from './args.ts';

const SETTLE_MS = 30_000;
/** Rates tried in a bisection are rounded to this many messages per second. */
const RATE_STEP = 25;

export interface Trial {
  rate: number;
  result: FleetRunResult;
  misses: string[];
}

export interface SearchResult {
  setup: Setup;
  /** The highest rate that met every target, or null if even the lowest tried did not. */
  best: Trial | null;
  /** The lowest rate that missed, if any did. */
  firstMiss: Trial | null;
  trials: Trial[];
}

export async function searchCapacity(
  setup: Setup,
  options: CapacityOptions,
  log: (line: string) => void,
): Promise<SearchResult> {
  const label = `${setup.engine}×${setup.processes}`;
  const sessionOptions = {
    ...setup,
    seed: options.seed,
    databaseUrl: options.databaseUrl,
    log: (line: string) => log(`${label}: ${line}`),
    // Generous: every message time must fit between the start and now.
    messageBudget: 4 * options.maxRate * options.seconds * (options.bisections + 1),
  };
  let session: FleetSession = await openFleet(sessionOptions);
  const trials: Trial[] = [];
  let best: Trial | null = null;
  let firstMiss: Trial | null = null;
  const attempt = async (rate: number): Promise<Trial> => {
    const result = await session.run({ rate, seconds: options.seconds, drainTimeoutMs: options.drainTimeoutMs });
    const trial = { rate, result, misses: misses(result) };
    trials.push(trial);
    log(`${label}: ${rate} msg/s ${trial.misses.length === 0 ? 'held' : `missed (${trial.misses.join(', ')})`}`);
    if (trial.misses.length > 0 && !(await session.settle(SETTLE_MS))) {
      log(`${label}: still learning after ${SETTLE_MS / 1000} s, starting the processes afresh`);
      await session.close();
      session = await openFleet(sessionOptions);
    }
    return trial;
  };
  try {
    for (let rate = options.startRate; rate <= options.maxRate; rate *= 2) {
      const trial = await attempt(rate);
      if (trial.misses.length > 0) {
        firstMiss = trial;
        break;
      }
      best = trial;
    }
    for (let step = 0; step < options.bisections && firstMiss; step++) {
      const low = best?.rate ?? 0;
      const rate = Math.round((low + firstMiss.rate) / 2 / RATE_STEP) * RATE_STEP;
      if (rate <= low || rate >= firstMiss.rate) break;
      const trial = await attempt(rate);
      if (trial.misses.length > 0) firstMiss = trial;
      else best = trial;
    }
  } finally {
    await session.close();
  }
  log(`${label}: sustains ${best ? fmt(best.rate) : `less than ${options.startRate}`} msg/s`);
  return { setup, best, firstMiss, trials };
}
