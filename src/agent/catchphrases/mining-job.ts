/**
 * When groups are mined (docs/agent-catchphrases.md): every day, after the repeater's daily
 * maintenance, the groups that chatted in the last week, one at a time, each bounded by the
 * miner's rules; and one group at once when the console asks. A group is never mined twice at the
 * same time in this process (a console request joins a run under way); two processes mining the
 * same group write one row per phrase (the store's unique key).
 */
import { errorMessage } from '../../common/errors.ts';
import type { Log } from '../../common/log.ts';
import { SingleFlight } from '../../common/single-flight.ts';
import type { CatchphraseMiner, MiningReport } from './miner.ts';

export const MINING_JOB = {
  /** Groups mined per daily round, most active first. */
  maxGroups: 200,
  /** Days of chat that make a group active. */
  activeDays: 7,
} as const;

export interface MiningJobOptions {
  miner: Pick<CatchphraseMiner, 'mine'>;
  /** The groups of a daily round (the store's active groups). */
  groups: () => Promise<readonly number[]>;
  /** Milliseconds until the next daily round (the wiring: after the maintenance hour). */
  nextDelayMs: () => number;
  log: Log;
}

export interface RoundReport {
  groups: number;
  added: number;
  failed: number;
}

export class CatchphraseMiningJob {
  readonly name = 'catchphrase mining';
  readonly #options: MiningJobOptions;
  readonly #flights = new SingleFlight<number, MiningReport>();
  #timer: NodeJS.Timeout | undefined;
  #round: Promise<RoundReport> | undefined;
  #stopped = false;

  constructor(options: MiningJobOptions) {
    this.#options = options;
  }

  start(): void {
    this.#stopped = false;
    this.#scheduleNext();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#round?.catch(() => undefined);
  }

  /** Mines one group now, or joins its mining under way. */
  mineNow(groupId: number): Promise<MiningReport> {
    return this.#flights.run(groupId, () => this.#options.miner.mine(groupId)).promise;
  }

  /** One daily round now (joins a round under way); a group that fails is logged and skipped. */
  runRound(): Promise<RoundReport> {
    this.#round ??= this.#roundOnce().finally(() => {
      this.#round = undefined;
    });
    return this.#round;
  }

  async #roundOnce(): Promise<RoundReport> {
    const report: RoundReport = { groups: 0, added: 0, failed: 0 };
    const groups = (await this.#options.groups()).slice(0, MINING_JOB.maxGroups);
    for (const groupId of groups) {
      if (this.#stopped) break;
      try {
        report.added += (await this.mineNow(groupId)).added;
        report.groups++;
      } catch (error) {
        report.failed++;
        this.#options.log.warn({ groupId, error: errorMessage(error) }, 'catchphrase mining failed');
      }
    }
    this.#options.log.info({ ...report }, 'catchphrase mining finished');
    return report;
  }

  #scheduleNext(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      void this.runRound()
        .catch((error: unknown) => this.#options.log.warn({ error: errorMessage(error) }, 'catchphrase mining failed'))
        .finally(() => this.#scheduleNext());
    }, this.#options.nextDelayMs());
    this.#timer.unref();
  }
}
