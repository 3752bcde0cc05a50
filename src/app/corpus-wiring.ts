import type { ConfigReaction, ConfigSnapshot, ConfigStore } from '../config/index.ts';
import { CorpusRuntime } from '../corpus/corpus-runtime.ts';
import { CorpusState } from '../corpus/corpus-state.ts';
import { communityFoundation, wireCommunity, type BotCounts, type CommunityWiring } from './community-wiring.ts';
import type { LocalStore } from '../store/open-store.ts';
import type { ReplySettings } from '../store/corpus-store.ts';
import type { Clock } from '../common/clock.ts';
import type { Log } from '../common/log.ts';
import { errorMessage } from '../common/errors.ts';
import { LEARN_BATCH } from '../common/limits.ts';
import { LifecycleScope } from '../common/lifecycle.ts';
import { waitAtMost } from '../common/timeout.ts';
import { CLEANUP_FIRST_DELAY_MS, cleanupWanted, createCleanupJob } from '../workers/cleanup-job.ts';
import type { IntervalJob } from '../workers/interval-job.ts';
import { createLearnWorker } from '../workers/learn-worker.ts';
import { createMirrorWorker } from '../workers/mirror-worker.ts';
import type { QueueWorker } from '../workers/queue-worker.ts';

export interface CorpusWiringExtras {
  /** Sent in the community heartbeat. */
  version?: string;
  /** Bot counts for the heartbeat (the OneBot side). */
  botCounts?: () => BotCounts;
  /** Told each learning lag (enqueue to written), in ms. */
  onLearned?: (lagMs: number) => void;
  /** Told the context keywords of each learn batch once committed. */
  onBatchLearned?: (contextKeywords: readonly string[]) => void;
  /** Whether a group's pairs may go to the community (group config `share`); absent: every group. */
  shareGroup?: (groupId: number) => boolean;
  /** The singleton jobs' group (src/app/service.ts): the contamination cleanup joins it. */
  primary?: LifecycleScope;
}

export interface CorpusWiring {
  readonly runtime: CorpusRuntime;
  readonly community: CommunityWiring;
  readonly learnWorker: QueueWorker<unknown>;
  readonly mirrorWorker: QueueWorker<unknown>;
  readonly cleanupJob: IntervalJob;
  /**
   * What the corpus and its community side do when their settings change (docs/rules.md#cfg-events):
   * the shared state's caches and budget, the store's reply settings, the cleanup schedule and the
   * community's prefetch, backfill, repository and jobs.
   */
  readonly reactions: readonly ConfigReaction[];
  /** Worker counters for the status snapshot. */
  counters(): Record<string, Record<string, number>>;
  /** The learn and mirror workers and the community side; stopped in reverse: community first. */
  readonly scope: LifecycleScope;
}

/**
 * The corpus and its workers as `chorus serve` runs them: the state both sides share, the community
 * side, the runtime over the local store, the learn and mirror workers, and the scheduled
 * contamination cleanup.
 */
export function wireCorpus(
  store: LocalStore,
  config: ConfigStore,
  clock: Clock,
  log: Log,
  extras: CorpusWiringExtras = {},
): CorpusWiring {
  // The mirror worker starts with the first mirrored item; it is built below, on the queue.
  let startMirror = () => {};
  // Build order (docs/ARCHITECTURE.md#lifecycle): what both sides share, then the community
  // side on it, then the corpus runtime with the community's sources and prefetch.
  const foundation = communityFoundation(config, clock, log);
  const shared = new CorpusState({
    pressure: store.engine,
    config: () => config.current(),
    activation: foundation.view.activationSource,
    onFirstMirrorItem: () => startMirror(),
    ...(extras.shareGroup ? { shareGroup: extras.shareGroup } : {}),
    clock,
    log,
  });
  const community = wireCommunity({
    store,
    config,
    foundation,
    shared,
    clock,
    log,
    version: extras.version ?? '0.0.0',
    ...(extras.botCounts ? { botCounts: extras.botCounts } : {}),
    ...(extras.shareGroup ? { shareGroup: extras.shareGroup } : {}),
    ...(extras.primary ? { primary: extras.primary } : {}),
  });
  const runtime = new CorpusRuntime({
    local: store.corpus,
    pressure: store.engine,
    config: () => config.current(),
    shared,
    sources: community.sources,
    prefetch: community.prefetch,
    banned: community.banned,
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
    // SQLite writes a batch synchronously: a smaller bound keeps the event loop stall short.
    batchMax: store.engine.longTransactions ? LEARN_BATCH.max : LEARN_BATCH.sqliteMax,
    ...(extras.onLearned ? { onLearned: extras.onLearned } : {}),
    ...(extras.onBatchLearned ? { onBatchLearned: extras.onBatchLearned } : {}),
  });
  const mirror = createMirrorWorker({
    queue: runtime.mirror,
    target: community.mirrorTarget,
    park: community.parkMirrorItem,
    budget: runtime.budget,
    log,
  });
  startMirror = () => mirror.worker.start();
  const cleanupJob = createCleanupJob({
    store: store.corpus,
    config: () => config.current(),
    onDeleted: () => runtime.composite.invalidateFindCache(),
    log,
  });
  const syncCleanupSchedule = () => {
    if (cleanupWanted(config.current())) cleanupJob.start();
    else scope.tasks.run('cleanup stop', () => cleanupJob.stop());
  };
  // Stopped in reverse: the community side first (nothing new is queued), then learning, whose
  // items may queue mirror items, then the mirror with what is left of the deadline.
  const scope = new LifecycleScope('corpus', {
    onTaskError: (label, error) => log.warn({ task: label, error: errorMessage(error) }, 'corpus task failed'),
  });
  scope.adopt({ name: 'mirror worker', stop: (ms) => mirror.worker.stop(ms) });
  scope.add(
    { name: 'learn worker', start: () => learnWorker.start(), stop: (ms) => learnWorker.stop(ms) },
    { budget: (left) => left / 2 },
  );
  scope.add(community.scope, { budget: (left) => Math.min(1000, left / 4) });
  // A cleanup round in progress is not waited for past a second: it is idempotent and the next
  // round finishes the job, while shutdown has a deadline to keep.
  community.primary.add({
    name: 'cleanup',
    start: syncCleanupSchedule,
    stop: (ms) => waitAtMost(cleanupJob.stop(), Math.min(ms, 1000)),
  });
  const reactions: ConfigReaction[] = [
    ...shared.configReactions(),
    replySettingsReaction(store),
    {
      step: 'reschedule_cleanup',
      sections: ['cleanup'],
      keys: ['CHORUS_SHARD_ROLE'],
      run: (change) => {
        cleanupJob.reschedule({
          firstDelayMs: CLEANUP_FIRST_DELAY_MS,
          intervalMs: change.current.cleanup.intervalSec * 1000,
        });
        syncCleanupSchedule();
        return {
          detail: cleanupJob.started
            ? `cleanup scheduled (every ${change.current.cleanup.intervalSec} s)`
            : 'cleanup not scheduled (off, or a shard worker)',
        };
      },
    },
    ...community.reactions,
  ];

  return {
    runtime,
    community,
    learnWorker: learnWorker as QueueWorker<unknown>,
    mirrorWorker: mirror.worker as QueueWorker<unknown>,
    cleanupJob,
    reactions,
    counters: () => ({
      ...community.counters(),
      learn_worker: { ...learnWorker.counters, ...learnWorker.batchCounters },
      cleanup_job: { ...cleanupJob.counters },
      mirror_worker: (() => {
        const { withheld: _withheld, ...counts } = mirror.counters;
        return { ...mirror.worker.counters, ...counts };
      })(),
      deidentify_mirror: { ...mirror.counters.withheld },
    }),
    scope,
  };
}

/** The store takes new reply settings, which empties its snapshot cache (docs/rules.md#cfg-events). */
export function replySettingsReaction(store: Pick<LocalStore, 'corpus'>): ConfigReaction {
  return {
    step: 'clear_reply_caches',
    sections: ['performance'],
    run: (change) => {
      store.corpus.configure(replySettings(change.current));
      return { detail: 'reply settings applied; snapshot cache cleared' };
    },
  };
}

/** The store's reply settings from the performance section. */
export function replySettings(snapshot: ConfigSnapshot): ReplySettings {
  const p = snapshot.performance;
  return {
    replyMessagesCap: p.replyMessagesCap,
    replyAnswersCap: p.replyAnswersCap,
    replySnapshotSec: p.replySnapshotSec,
    replySnapshotMax: p.replySnapshotMax,
    replyQueryTimeoutSec: p.replyQueryTimeoutSec,
  };
}
