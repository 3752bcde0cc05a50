/**
 * The community side of the corpus as `chorus serve` runs it: the state file, the shared
 * community repository, enrollment, usage, the mirror target, prefetch, backfill and heartbeat.
 * It is built on the state it shares with the corpus side (`CorpusState`, built first from
 * `communityFoundation`; docs/ARCHITECTURE.md#lifecycle), so it needs nothing of the corpus
 * runtime, and the runtime is built after it from `enrollment`, `sources` and `prefetch`.
 */
import { join } from 'node:path';
import type { ConfigKey, ConfigReaction } from '../config/index.ts';
import { CommunityView } from '../community/community-view.ts';
import { COMMUNITY_STATE_FILE, CommunityStateFile } from '../community/state-file.ts';
import type { StoredEnrollment } from '../corpus/activation.ts';
import type { RemoteSources } from '../corpus/composite-repository.ts';
import type { MirrorItem } from '../corpus/mirror-queue.ts';
import type { CommunityUsage, DeploymentStatus } from '../corpus/status.ts';
import type { MirrorTarget, PrefetchScheduler } from '../ports/remote-corpus.ts';
import type { Clock } from '../common/clock.ts';
import type { Log } from '../common/log.ts';
import { LifecycleScope } from '../common/lifecycle.ts';
import { deadlineFrom, waitAtMost } from '../common/timeout.ts';
import type { CommunityConfigSource, CommunityFoundation, CommunityWiringOptions } from './community-options.ts';
import { buildCommunityParts, communityCounters, type CommunityParts } from './community-parts.ts';
import { errorMessage } from '../common/errors.ts';

export type { BotCounts } from '../community/heartbeat.ts';
export type { CommunityParts } from './community-parts.ts';
export type { CommunityConfigSource, CommunityFoundation, CommunityWiringOptions } from './community-options.ts';

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
  /** For the mirror worker: keeps an item learned before enrollment for when it is done. */
  parkMirrorItem: (item: MirrorItem) => boolean;
  /** The API base derived from CHORUS_COMMUNITY_STATS_ENDPOINT ('' without a hub). */
  derivedApiBase: () => string;
  status: CommunityStatusExtras;
  /** What the community side does when its settings change (docs/rules.md#cfg-events). */
  reactions: ConfigReaction[];
  /** Every community counter, for the status snapshot's `counters`. */
  counters(): Record<string, Record<string, number>>;
  /** The workers, then the singleton jobs when it owns their group; stops them in reverse. */
  readonly scope: LifecycleScope;
  /** The singleton jobs' group: `options.primary`, or one of its own inside `scope`. */
  readonly primary: LifecycleScope;
  /**
   * A ban was written (console, chat or ban command): reported to the hub when the answer came
   * from the community or this deployment contributed it (docs/hub.md#moderation). Never waits.
   */
  banned: (contextKeywords: string, answerKeywords: string) => void;
  /** The parts, for tests and diagnostics. */
  readonly parts: CommunityParts;
}

/** Keys the enrollment, heartbeat and usage depend on, besides the community-stats section. */
const COMMUNITY_KEYS: readonly ConfigKey[] = [
  'CHORUS_SHARD_ROLE',
  'CHORUS_CORPUS_COMMUNITY_ENABLED',
  'CHORUS_CORPUS_AUTO_ENROLL',
  'CHORUS_CORPUS_COMMUNITY_CONTRIBUTE',
  'CHORUS_CORPUS_COMMUNITY_API_BASE',
  'CHORUS_CORPUS_COMMUNITY_TOKEN',
  'CHORUS_CORPUS_WITHDRAWN_POLL_SEC',
];

export function wireCommunity(options: CommunityWiringOptions): CommunityWiring {
  const { config, clock, log } = options;
  const now = () => clock.monotonicMs();
  const onTaskError = (label: string, error: unknown) =>
    log.warn({ task: label, error: errorMessage(error) }, 'community task failed');
  const scope = new LifecycleScope('community', { onTaskError });
  const tasks = scope.tasks;
  const parts = buildCommunityParts(options, tasks);
  const { state, view, repository, usage, enrollmentJob, heartbeatJob, backfillJob, prefetchWorkers } = parts;
  const primary =
    options.primary ?? new LifecycleScope('primary', { onTaskError, active: () => !view.isShardWorker() });
  // Stopped last: the tasks (enrollment saves) end, then the state file is written.
  scope.add({
    name: 'state file',
    async stop(deadlineMs) {
      const deadline = deadlineFrom(now, deadlineMs);
      await tasks.drain(deadline.left());
      await waitAtMost(state.flush(), deadline.left());
    },
  });
  scope.add({ name: 'mirror retry', stop: () => parts.mirrorTargets.retry.stop() });
  scope.add({ name: 'ban reports', start: () => parts.banReports.start(), stop: () => parts.banReports.stop() });
  scope.add({ name: 'prefetch', start: () => prefetchWorkers.start(), stop: (ms) => prefetchWorkers.stop(ms) });
  // A shard worker reads the primary's enrollment from the shared state file.
  scope.add({
    name: 'state reload',
    start: () => view.isShardWorker() && parts.workerStateReload.start(),
    stop: () => parts.workerStateReload.stop(),
  });
  // The singleton jobs (docs/rules.md#heartbeat, #backfill, #enroll): the group runs them on a primary only.
  // The deployment id is created once and kept.
  primary.add({ name: 'community state', start: () => tasks.run('community state persist', () => state.persist()) });
  primary.add({ name: 'enrollment', start: () => enrollmentJob.start(), stop: () => enrollmentJob.stop() });
  primary.add({ name: 'heartbeat', start: () => heartbeatJob.sync(), stop: () => heartbeatJob.stop() });
  primary.add({ name: 'backfill', start: () => backfillJob.sync(), stop: () => backfillJob.stop() });
  primary.add({
    name: 'withdrawals',
    start: () => parts.withdrawalJob.start(),
    stop: () => parts.withdrawalJob.stop(),
  });
  if (!options.primary) scope.add(primary);

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
        // A saved credential sends what was learned while there was none.
        parts.mirrorTargets.retry.wake();
        void parts.banReports.wake();
        return { detail: 'community repository rebuilt from the current credentials' };
      },
    },
    {
      step: 'sync_community_jobs',
      sections: ['communityStats'],
      keys: COMMUNITY_KEYS,
      run: async (change) => {
        usage.invalidate();
        // A new role starts or stops every singleton job at once (the group follows it).
        if (change.changedKeys.includes('CHORUS_SHARD_ROLE')) await primary.follow();
        else {
          heartbeatJob.sync();
          enrollmentJob.sync();
        }
        const pollMs = change.current.remote.withdrawnPollSec * 1000;
        parts.withdrawalJob.reschedule({ firstDelayMs: pollMs, intervalMs: pollMs });
        return { detail: 'usage forgotten; enrollment and heartbeat follow the new settings' };
      },
    },
  ];

  return {
    enrollment: () => state.enrollment(),
    sources: () => repository.sources(),
    prefetch: parts.prefetchQueue,
    mirrorTarget: () => parts.mirrorTargets.current(),
    parkMirrorItem: (item) => parts.mirrorTargets.park(item),
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
    banned: (contextKeywords, answerKeywords) => {
      tasks.run('community ban report', () => parts.banReports.banned(contextKeywords, answerKeywords));
    },
    scope,
    primary,
    parts,
  };
}
