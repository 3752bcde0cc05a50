/**
 * The community side of the corpus as `chorus serve` runs it: the state file, the shared
 * community repository, enrollment, usage, the mirror target, prefetch, backfill and heartbeat.
 * It is built on the state it shares with the corpus side (`CorpusState`, built first from
 * `communityFoundation`; docs/ARCHITECTURE.md "Lifecycle"), so it needs nothing of the corpus
 * runtime, and the runtime is built after it from `enrollment`, `sources` and `prefetch`.
 */
import { join } from 'node:path';
import type { ConfigKey, ConfigReaction, ConfigSnapshot } from '../config/index.ts';
import type { Backfill } from '../community/backfill.ts';
import type { CommunityClientCounters } from '../community/community-client.ts';
import { CommunityView } from '../community/community-view.ts';
import type { Enrollment } from '../community/enrollment.ts';
import type { BotCounts, HeartbeatReporter } from '../community/heartbeat.ts';
import type { FetchLike } from '../community/http.ts';
import type { CommunityMirrorTargets } from '../community/mirror-target.ts';
import type { PrefetchQueue, PrefetchRunner } from '../community/prefetch.ts';
import type { SharedCommunityRepository } from '../community/shared-repository.ts';
import { COMMUNITY_STATE_FILE, CommunityStateFile } from '../community/state-file.ts';
import type { UsageCache } from '../community/usage.ts';
import type { StoredEnrollment } from '../corpus/activation.ts';
import type { RemoteSources } from '../corpus/composite-repository.ts';
import type { CorpusState } from '../corpus/corpus-state.ts';
import type { CommunityUsage, DeploymentStatus } from '../corpus/status.ts';
import type { MirrorTarget, PrefetchScheduler } from '../ports/remote-corpus.ts';
import type { Clock } from '../shared/clock.ts';
import type { Log } from '../shared/log.ts';
import { TaskSet } from '../shared/task-set.ts';
import { deadlineFrom, waitAtMost } from '../shared/timeout.ts';
import type { LocalStore } from '../store/open-store.ts';
import type { BackfillJob } from '../workers/backfill-job.ts';
import type { EnrollmentJob } from '../workers/enrollment-job.ts';
import type { HeartbeatJob } from '../workers/heartbeat-job.ts';
import type { IntervalJob } from '../workers/interval-job.ts';
import type { PrefetchWorkers } from '../workers/prefetch-worker.ts';
import { buildCommunityParts, communityCounters } from './community-parts.ts';
import { errorMessage } from '../shared/errors.ts';

export type { BotCounts } from '../community/heartbeat.ts';

/** The configuration as this wiring reads it (ConfigStore satisfies it). */
export interface CommunityConfigSource {
  current(): ConfigSnapshot;
}

/** What the community side and the corpus state are both built from (no I/O). */
export interface CommunityFoundation {
  state: CommunityStateFile;
  view: CommunityView;
}

/** The state file and the view over it: the activation source the corpus state shares. */
export function communityFoundation(config: CommunityConfigSource, clock: Clock, log: Log): CommunityFoundation {
  const current = () => config.current();
  const state = new CommunityStateFile({
    path: join(current().dataDir, COMMUNITY_STATE_FILE),
    log,
    readOnly: current().server.shardRole === 'worker',
  });
  const view = new CommunityView({ config: current, enrollment: () => state.enrollment(), clock });
  return { state, view };
}

export interface CommunityWiringOptions {
  store: Pick<LocalStore, 'engine' | 'corpus'>;
  config: CommunityConfigSource;
  foundation: CommunityFoundation;
  /** The state shared with the corpus side. */
  shared: CorpusState;
  clock: Clock;
  log: Log;
  /** Sent in the heartbeat. */
  version: string;
  /** Bot counts for the heartbeat (the OneBot side supplies them); zeros by default. */
  botCounts?: () => BotCounts;
  /** Whether a group's pairs may go to the community (group config `share`); absent: every group. */
  shareGroup?: (groupId: number) => boolean;
  /** Tests pass a fetch; the default is Node's. */
  fetch?: FetchLike;
}

export interface CommunityStatusExtras {
  /** The status snapshot's `deployment` object. */
  deployment(): DeploymentStatus;
  /** Community usage (cached 120 s, in-flight de-duplicated, failures cached as null). */
  usage(): Promise<CommunityUsage | null>;
  /** The last usage figures without waiting (null until fetched); refreshes when stale. */
  usageSnapshot(): CommunityUsage | null;
}

export interface CommunityWiring {
  /** The stored enrollment (in memory, no I/O). */
  enrollment: () => StoredEnrollment | null;
  /** For CorpusRuntime: the community source when one can be built. */
  sources: () => RemoteSources;
  /** For CorpusRuntime: the prefetch scheduler (non-blocking). */
  prefetch: PrefetchScheduler;
  /** For the mirror worker: the contribute target, null while no repository can be built. */
  mirrorTarget: () => MirrorTarget | null;
  /** The API base derived from CHORUS_COMMUNITY_STATS_ENDPOINT ('' without a hub). */
  derivedApiBase: () => string;
  status: CommunityStatusExtras;
  /** What the community side does when its settings change (docs/rules.md#cfg-events). */
  reactions: ConfigReaction[];
  /** Every community counter, for the status snapshot's `counters`. */
  counters(): Record<string, Record<string, number>>;
  /** Starts the jobs and workers this process runs (nothing singleton on a shard worker). */
  start(): void;
  /** Stops everything within the deadline. */
  stop(deadlineMs: number): Promise<void>;
  /** The parts, for tests and diagnostics. */
  readonly parts: CommunityParts;
}

export interface CommunityParts {
  state: CommunityStateFile;
  view: CommunityView;
  repository: SharedCommunityRepository;
  clientCounters: CommunityClientCounters;
  workerStateReload: IntervalJob;
  enrollment: Enrollment;
  enrollmentJob: EnrollmentJob;
  usage: UsageCache;
  prefetchQueue: PrefetchQueue;
  prefetchRunner: PrefetchRunner;
  prefetchWorkers: PrefetchWorkers;
  backfill: Backfill;
  backfillJob: BackfillJob;
  heartbeat: HeartbeatReporter;
  heartbeatJob: HeartbeatJob;
  mirrorTargets: CommunityMirrorTargets;
}

/** Keys the enrollment, heartbeat and usage depend on, besides the community-stats section. */
const COMMUNITY_KEYS: readonly ConfigKey[] = [
  'CHORUS_SHARD_ROLE',
  'CHORUS_CORPUS_COMMUNITY_ENABLED',
  'CHORUS_CORPUS_AUTO_ENROLL',
  'CHORUS_CORPUS_COMMUNITY_CONTRIBUTE',
  'CHORUS_CORPUS_COMMUNITY_API_BASE',
  'CHORUS_CORPUS_COMMUNITY_TOKEN',
];

export function wireCommunity(options: CommunityWiringOptions): CommunityWiring {
  const { config, clock, log } = options;
  const now = () => clock.monotonicMs();
  const tasks = new TaskSet((label, error) =>
    log.warn({ task: label, error: errorMessage(error) }, 'community task failed'),
  );
  const parts = buildCommunityParts(options, tasks);
  const { state, view, repository, usage, enrollmentJob, heartbeatJob, backfillJob, prefetchWorkers } = parts;

  // In the order of REACTION_STEPS (src/config/reactions.ts); each calls the part it drives.
  const reactions: ConfigReaction[] = [
    {
      step: 'restart_prefetch',
      keys: ['CHORUS_CORPUS_REMOTE_FIND_ENABLED'],
      run: () => prefetchWorkers.restart(),
    },
    { step: 'reregister_backfill', sections: ['backfill'], run: () => backfillJob.reregister() },
    {
      step: 'rebuild_shared_repository',
      sections: ['corpus', 'performance', 'backfill'],
      run: () => {
        repository.rebuild();
        return { detail: 'community repository rebuilt from the current credentials' };
      },
    },
    {
      step: 'sync_community_jobs',
      sections: ['communityStats'],
      keys: COMMUNITY_KEYS,
      run: (change) => {
        usage.invalidate();
        heartbeatJob.sync();
        enrollmentJob.sync();
        if (change.changedKeys.includes('CHORUS_SHARD_ROLE')) backfillJob.sync();
        return { detail: 'usage forgotten; enrollment and heartbeat follow the new settings' };
      },
    },
  ];

  let started = false;

  return {
    enrollment: () => state.enrollment(),
    sources: () => repository.sources(),
    prefetch: parts.prefetchQueue,
    mirrorTarget: () => parts.mirrorTargets.current(),
    derivedApiBase: () => view.derivedApiBase(),
    status: {
      deployment: () => ({
        deployment_id: state.deploymentId,
        community_stats_enabled: config.current().communityStats.enabled,
        heartbeat_endpoint: state.heartbeatEndpoint,
      }),
      usage: () => usage.get(),
      usageSnapshot: () => usage.peek(),
    },
    reactions,
    counters: () => communityCounters(parts),
    start() {
      if (started) return;
      started = true;
      if (view.isShardWorker()) parts.workerStateReload.start();
      // The deployment id is created once and kept.
      else tasks.run('community state persist', () => state.persist());
      enrollmentJob.start();
      heartbeatJob.sync();
      backfillJob.sync();
      prefetchWorkers.start();
    },
    async stop(deadlineMs) {
      const deadline = deadlineFrom(now, deadlineMs);
      // A heartbeat or enrollment stuck on a black-holed hub is not waited for past the deadline.
      await waitAtMost(
        Promise.all([
          parts.workerStateReload.stop(),
          enrollmentJob.stop(),
          heartbeatJob.stop(),
          backfillJob.stop(),
          prefetchWorkers.stop(deadline.left()),
          parts.mirrorTargets.retry.stop(),
        ]),
        deadline.left(),
      );
      await tasks.drain(deadline.left());
      await waitAtMost(state.flush(), deadline.left());
      started = false;
    },
    parts,
  };
}
