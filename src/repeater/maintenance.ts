import type { CorpusRepository } from '../ports/corpus-repository.ts';
import type { Clock } from '../common/clock.ts';
import type { Log } from '../common/log.ts';
import { MAINTENANCE } from './limits.ts';

/** The corpus operations of the daily cleanup. */
export type MaintenanceCorpus = Pick<CorpusRepository, 'deleteExpired' | 'iterateForCleanup' | 'replaceAnswers'>;

/** Something scheduled that can be cancelled (tests pass a recording fake). */
export type Schedule = (run: () => void, delayMs: number) => () => void;

export interface MaintenanceOptions {
  corpus: MaintenanceCorpus;
  /** The blacklists, saved after each round. */
  blacklists: { save(): Promise<void> };
  /** Local hour of the day the round starts, read at each start (a restart takes a new one). */
  hour: () => number;
  /** Contexts below this trigger count are deleted once expired. */
  answerThreshold: number;
  clock: Clock;
  log: Log;
  schedule?: Schedule;
}

export interface MaintenanceReport {
  deletedContexts: number;
  rewrittenContexts: number;
  removedAnswers: number;
}

/**
 * The repeater's daily maintenance (docs/rules.md#maintenance): delete expired contexts that never took
 * off, drop one-off answers older than 15 days from the rest, and save the blacklists. Runs at a
 * fixed local hour on the primary process only (src/app runs it in its primary group); the next run is computed from the injected clock.
 */
export class RepeaterMaintenance {
  #cancel: (() => void) | undefined;
  #running: Promise<MaintenanceReport> | undefined;
  readonly name = 'maintenance';

  constructor(private readonly options: MaintenanceOptions) {}

  get scheduled(): boolean {
    return this.#cancel !== undefined;
  }

  start(): void {
    if (this.#cancel) return;
    this.#scheduleNext();
  }

  async stop(): Promise<void> {
    this.#cancel?.();
    this.#cancel = undefined;
    await this.#running?.catch(() => undefined);
  }

  /** Milliseconds from `nowMs` to the next start of the configured local hour (never 0). */
  static delayUntilHour(nowMs: number, hour: number): number {
    const next = new Date(nowMs);
    next.setHours(hour, 0, 0, 0);
    if (next.getTime() <= nowMs) {
      next.setDate(next.getDate() + 1);
      next.setHours(hour, 0, 0, 0);
    }
    return next.getTime() - nowMs;
  }

  /** One round now (joins a round in progress). */
  runOnce(): Promise<MaintenanceReport> {
    this.#running ??= this.#round().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #round(): Promise<MaintenanceReport> {
    const { corpus, clock } = this.options;
    const nowSec = Math.floor(clock.nowMs() / 1000);
    const expiration = nowSec - MAINTENANCE.expireAfterSec;
    const report: MaintenanceReport = { deletedContexts: 0, rewrittenContexts: 0, removedAnswers: 0 };
    report.deletedContexts = await corpus.deleteExpired(expiration, this.options.answerThreshold);
    for await (const page of corpus.iterateForCleanup(MAINTENANCE.cleanupTriggerThreshold, expiration)) {
      for (const context of page) {
        const kept = context.answers.filter((answer) => answer.count > 1 || answer.time > expiration);
        await corpus.replaceAnswers(context.keywords, kept, nowSec);
        report.rewrittenContexts++;
        report.removedAnswers += context.answers.length - kept.length;
      }
    }
    await this.options.blacklists.save();
    this.options.log.info({ ...report }, 'repeater maintenance finished');
    return report;
  }

  #scheduleNext(): void {
    const delay = RepeaterMaintenance.delayUntilHour(this.options.clock.nowMs(), this.options.hour());
    const schedule = this.options.schedule ?? timerSchedule;
    this.#cancel = schedule(() => {
      void this.runOnce()
        .catch((error: unknown) => this.options.log.warn({ error: String(error) }, 'repeater maintenance failed'))
        .finally(() => {
          if (this.#cancel) this.#scheduleNext();
        });
    }, delay);
  }
}

const timerSchedule: Schedule = (run, delayMs) => {
  const timer = setTimeout(run, delayMs);
  timer.unref();
  return () => clearTimeout(timer);
};
