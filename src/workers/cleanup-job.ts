import type { ConfigSnapshot } from '../config/index.ts';
import { runContaminationCleanup, type PollutedMessageCleaner } from '../corpus/contamination-cleanup.ts';
import type { Log } from '../common/log.ts';
import { IntervalJob } from './interval-job.ts';

/** The first round waits this long after start, so start-up is never slowed (docs/rules.md#cleanup). */
export const CLEANUP_FIRST_DELAY_MS = 300_000;

export interface CleanupJobOptions {
  store: PollutedMessageCleaner;
  config: () => ConfigSnapshot;
  /** Called after a round that deleted something (the composite's caches may hold what went). */
  onDeleted: () => void;
  log: Log;
}

/** The daily contamination cleanup as a scheduled job; it reports each round in the log. */
export function createCleanupJob(options: CleanupJobOptions): IntervalJob {
  return new IntervalJob({
    label: 'contamination-cleanup',
    firstDelayMs: CLEANUP_FIRST_DELAY_MS,
    intervalMs: options.config().cleanup.intervalSec * 1000,
    log: options.log,
    run: async () => {
      const config = options.config();
      const removed = await runContaminationCleanup(
        options.store,
        { enabled: config.guard.enabled, phrases: config.guard.phrases, exempt: config.guard.exempt },
        { maxDeletePerRound: config.cleanup.maxDeletePerRound },
      );
      if (removed.answerMessages + removed.emptyAnswers + removed.logMessages > 0) options.onDeleted();
      options.log.info({ removed }, 'contamination cleanup round finished');
    },
  });
}

/** Whether this process should run the cleanup at all (a shard worker never runs singleton jobs). */
export function cleanupWanted(config: ConfigSnapshot): boolean {
  return config.server.shardRole === 'primary' && config.cleanup.scheduled;
}
