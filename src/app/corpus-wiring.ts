import type { ConfigStore } from '../config/index.ts';
import { CorpusRuntime } from '../corpus/corpus-runtime.ts';
import type { LocalStore } from '../store/open-store.ts';
import type { Clock } from '../shared/clock.ts';
import type { Log } from '../shared/log.ts';
import { CLEANUP_FIRST_DELAY_MS, cleanupWanted, createCleanupJob } from '../workers/cleanup-job.ts';
import type { IntervalJob } from '../workers/interval-job.ts';
import { createLearnWorker } from '../workers/learn-worker.ts';
import { createMirrorWorker } from '../workers/mirror-worker.ts';
import type { QueueWorker } from '../workers/queue-worker.ts';

export interface CorpusWiring {
  readonly runtime: CorpusRuntime;
  readonly learnWorker: QueueWorker<unknown>;
  readonly mirrorWorker: QueueWorker<unknown>;
  readonly cleanupJob: IntervalJob;
  /** Worker counters for the status snapshot. */
  counters(): Record<string, Record<string, number>>;
  /** Drains the learning queue, then the mirror queue, within the deadline. */
  stop(deadlineMs: number): Promise<void>;
}

/**
 * The corpus and its workers as `chorus serve` runs them. The community sources, enrollment and
 * prefetch arrive with the community issue; until then the composite has no remote source and the
 * mirror has no target (it stays idle: nothing is queued while no contribution is enabled).
 */
export function wireCorpus(store: LocalStore, config: ConfigStore, clock: Clock, log: Log): CorpusWiring {
  const mirrorState: { start?: () => void } = {};
  const runtime = new CorpusRuntime({
    local: store.corpus,
    pressure: store.engine,
    config: () => config.current(),
    enrollment: () => null,
    sources: () => ({}),
    prefetch: { schedule() {} },
    onFirstMirrorItem: () => mirrorState.start?.(),
    clock,
    log,
  });
  const now = () => clock.monotonicMs();
  const learnWorker = createLearnWorker({
    queue: runtime.learning,
    learner: runtime.learner,
    pressure: store.engine,
    now,
    log,
  });
  const mirror = createMirrorWorker({ queue: runtime.mirror, target: () => null, budget: runtime.budget, log });
  mirrorState.start = () => mirror.worker.start();
  learnWorker.start();
  const cleanupJob = createCleanupJob({
    store: store.corpus,
    config: () => config.current(),
    onDeleted: () => runtime.composite.invalidateFindCache(),
    log,
  });
  const syncCleanupSchedule = () => {
    const current = config.current();
    if (!cleanupWanted(current)) {
      void cleanupJob.stop();
      return;
    }
    cleanupJob.start();
  };
  syncCleanupSchedule();
  const onConfigChanged = (change: Parameters<CorpusRuntime['applyConfigChange']>[0]) => {
    runtime.applyConfigChange(change);
    if (change.changedKeys.some((key) => key.startsWith('LLM_CORPUS_CLEANUP_') || key === 'CHORUS_SHARD_ROLE')) {
      cleanupJob.reschedule({
        firstDelayMs: CLEANUP_FIRST_DELAY_MS,
        intervalMs: change.current.cleanup.intervalSec * 1000,
      });
      syncCleanupSchedule();
    }
  };
  config.on('config/changed', onConfigChanged);

  return {
    runtime,
    learnWorker: learnWorker as QueueWorker<unknown>,
    mirrorWorker: mirror.worker as QueueWorker<unknown>,
    cleanupJob,
    counters: () => ({
      learn_worker: { ...learnWorker.counters },
      cleanup_job: { ...cleanupJob.counters },
      mirror_worker: { ...mirror.worker.counters, ...mirror.counters },
    }),
    async stop(deadlineMs) {
      config.off('config/changed', onConfigChanged);
      // A cleanup round in progress is not waited for past a second: it is idempotent and the
      // next round finishes the job, while shutdown has a deadline to keep.
      await Promise.race([cleanupJob.stop(), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
      const started = clock.monotonicMs();
      await learnWorker.stop(deadlineMs);
      // Learning may have queued mirror items: the mirror gets what is left of the deadline.
      await mirror.worker.stop(Math.max(0, deadlineMs - (clock.monotonicMs() - started)));
    },
  };
}
