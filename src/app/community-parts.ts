/**
 * The community side's objects, built in order on the state shared with the corpus side (see
 * community-wiring.ts). Policy lives with each part (backfill eligibility in backfill.ts, the
 * prefetch worker count in prefetch-worker.ts, refused tokens in enrollment.ts); this only
 * connects them.
 */
import { join } from 'node:path';
import type { ConfigSnapshot } from '../config/index.ts';
import { Backfill, BackfillCursorFile, BACKFILL_STATE_FILE, backfillIneligible } from '../community/backfill.ts';
import { CommunityClient, newClientCounters } from '../community/community-client.ts';
import { Enrollment } from '../community/enrollment.ts';
import { HeartbeatReporter, NO_BOTS } from '../community/heartbeat.ts';
import { USAGE_TIMEOUT_MS, WORKER_STATE_REFRESH_MS } from '../community/limits.ts';
import { CommunityMirrorTargets } from '../community/mirror-target.ts';
import { PrefetchQueue, PrefetchRunner } from '../community/prefetch.ts';
import { SharedCommunityRepository } from '../community/shared-repository.ts';
import { UsageCache } from '../community/usage.ts';
import type { CommunityClientCounters } from '../community/community-client.ts';
import type { CommunityStateFile } from '../community/state-file.ts';
import type { CommunityView } from '../community/community-view.ts';
import type { TaskSet } from '../common/task-set.ts';
import { BackfillJob } from '../workers/backfill-job.ts';
import { EnrollmentJob } from '../workers/enrollment-job.ts';
import { HeartbeatJob } from '../workers/heartbeat-job.ts';
import { IntervalJob } from '../workers/interval-job.ts';
import { prefetchConcurrency, PrefetchWorkers } from '../workers/prefetch-worker.ts';
import type { CommunityWiringOptions } from './community-options.ts';
import { BAN_REPORTS_FILE, BanReports } from '../community/ban-reports.ts';
import { WITHDRAWN_STATE_FILE, Withdrawals } from '../community/withdrawals.ts';
import { ModerationStore } from '../store/moderation-store.ts';

/** The community side's objects (`CommunityWiring.parts`, for tests and diagnostics). */
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
  banReports: BanReports;
  withdrawals: Withdrawals;
  withdrawalJob: IntervalJob;
}

export function buildCommunityParts(options: CommunityWiringOptions, tasks: TaskSet): CommunityParts {
  const { store, config, clock, log, shared } = options;
  const { state, view } = options.foundation;
  const current = (): ConfigSnapshot => config.current();
  const now = () => clock.monotonicMs();
  // Built first: the community client reports refused tokens to it.
  const enrollment = new Enrollment({
    view,
    state,
    onEnrolled: () => credentialsChanged(),
    tasks,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    clock,
    log,
  });
  const clientCounters = newClientCounters();
  const repository = new SharedCommunityRepository(
    () => view.credentials(),
    (built) =>
      new CommunityClient({
        bases: built.bases,
        token: built.token,
        timeouts: () => ({
          readMs: current().remote.remoteTimeoutSec * 1000,
          contributeMs: current().remote.contributeTimeoutSec * 1000,
          usageMs: USAGE_TIMEOUT_MS,
        }),
        onAuthFailure: (source) => enrollment.handleAuthFailure(source),
        ...(options.fetch ? { fetch: options.fetch } : {}),
        log,
        now,
        counters: clientCounters,
      }),
  );
  const usage = new UsageCache({
    load: async () => (view.activation().community.configured ? ((await repository.get()?.usage()) ?? null) : null),
    ttlMs: () => current().remote.usageCacheSec * 1000,
    now,
  });
  /** A new credential is in place: rebuild what depends on it (docs/rules.md#cfg-events). */
  const credentialsChanged = () => {
    repository.rebuild();
    usage.invalidate();
    shared.forgetKey();
    // Contributions learned before the credential existed are sent now.
    mirrorTargets.retry.wake();
    // And ban reports that waited for one.
    void banReports.wake();
  };
  const enrollmentJob = new EnrollmentJob({ enrollment, isShardWorker: () => view.isShardWorker(), log });
  const workerStateReload = new IntervalJob({
    label: 'community state reload',
    firstDelayMs: WORKER_STATE_REFRESH_MS,
    intervalMs: WORKER_STATE_REFRESH_MS,
    run: () => enrollment.reloadStored(),
    log,
  });

  // Prefetch writes to the local store directly, never through the composite: nothing is mirrored.
  const prefetchQueue = new PrefetchQueue({
    mode: () => view.activation().remoteFindMode,
    pressure: store.engine,
    learnQueuePressure: () => shared.learning.queuePressure,
    now,
  });
  const prefetchRunner = new PrefetchRunner({
    local: store.corpus,
    remote: () => repository.get(),
    budget: shared.budget,
    invalidate: (keywords) => {
      store.corpus.invalidateSnapshots(keywords);
      shared.forgetKey(keywords);
    },
    rejects: (message) => shared.guardRejects(message),
    answerThreshold: () => current().repeater.answerThreshold,
  });
  const prefetchWorkers = new PrefetchWorkers({
    queue: prefetchQueue,
    runner: prefetchRunner,
    mode: () => view.activation().remoteFindMode,
    concurrency: () => prefetchConcurrency(current(), store.engine.kind),
    log,
  });

  const backfill = new Backfill({
    ineligible: () => backfillIneligible(current(), view.activation().community, repository.get() !== null),
    settings: () => current().backfill,
    store: store.corpus,
    pressure: store.engine,
    mirrorFull: () => shared.mirror.full,
    target: () => repository.get(),
    budget: shared.budget,
    cursor: new BackfillCursorFile(join(current().dataDir, BACKFILL_STATE_FILE)),
    ...(options.shareGroup ? { shareGroup: options.shareGroup } : {}),
    clock,
    log,
  });
  const backfillJob = new BackfillJob({ backfill, config: current, log });
  const heartbeat = new HeartbeatReporter({
    view,
    state,
    hot: store.corpus,
    version: options.version,
    botCounts: options.botCounts ?? (() => NO_BOTS),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    clock,
    log,
  });
  const heartbeatJob = new HeartbeatJob({ reporter: heartbeat, config: current, log });
  const mirrorTargets = new CommunityMirrorTargets(
    log,
    now,
    () => repository.get(),
    () => view.contributing(),
  );

  // Bans that travel and withdrawals that come back (docs/hub.md#moderation).
  const banReports = new BanReports({
    path: join(current().dataDir, BAN_REPORTS_FILE),
    wanted: () => view.activation().community.wanted,
    contributing: () => view.contributing(),
    client: () => repository.get(),
    local: (keywords) => store.corpus.findByKeywords(keywords),
    log,
  });
  const withdrawals = new Withdrawals({
    path: join(current().dataDir, WITHDRAWN_STATE_FILE),
    client: () => (view.activation().community.on ? repository.get() : null),
    moderation: new ModerationStore(store.engine),
    changed: (keywords) => {
      store.corpus.invalidateSnapshots(keywords);
      shared.forgetKey(keywords);
    },
    nowSec: () => Math.floor(clock.nowMs() / 1000),
    log,
  });
  const withdrawalJob = new IntervalJob({
    label: 'community withdrawals',
    firstDelayMs: current().remote.withdrawnPollSec * 1000,
    intervalMs: current().remote.withdrawnPollSec * 1000,
    run: () => withdrawals.poll(),
    log,
  });

  return {
    state,
    view,
    repository,
    clientCounters,
    workerStateReload,
    enrollment,
    enrollmentJob,
    usage,
    prefetchQueue,
    prefetchRunner,
    prefetchWorkers,
    backfill,
    backfillJob,
    heartbeat,
    heartbeatJob,
    mirrorTargets,
    banReports,
    withdrawals,
    withdrawalJob,
  };
}

/** Every community counter, for the status snapshot's `counters`. */
export function communityCounters(parts: CommunityParts): Record<string, Record<string, number>> {
  const { mirrorTargets, prefetchQueue, backfill, heartbeat } = parts;
  return {
    community_client: { ...parts.clientCounters },
    community_repository: { ...parts.repository.counters },
    community_mirror: { ...mirrorTargets.counters },
    community_mirror_retry: {
      ...mirrorTargets.retry.counters,
      waiting: mirrorTargets.retry.size,
      oldest_age_sec: mirrorTargets.retry.oldestAgeSec(),
    },
    community_usage: { ...parts.usage.counters },
    enrollment: { ...parts.enrollment.counters },
    prefetch: { ...prefetchQueue.counters, queue_size: prefetchQueue.queue.size },
    prefetch_runner: { ...parts.prefetchRunner.counters },
    prefetch_workers: parts.prefetchWorkers.counters(),
    backfill: { ...backfill.counters },
    deidentify_backfill: { ...backfill.withheld.counts },
    backfill_job: parts.backfillJob.counters(),
    heartbeat: { ...heartbeat.counters },
    deidentify_heartbeat: { ...heartbeat.withheld.counts },
    heartbeat_job: { ...parts.heartbeatJob.job.counters },
    community_ban_reports: { ...parts.banReports.counters, waiting: parts.banReports.size },
    community_withdrawals: { ...parts.withdrawals.counters, ...prefixed('job_', parts.withdrawalJob.counters) },
  };
}

function prefixed(prefix: string, counters: object): Record<string, number> {
  return Object.fromEntries(Object.entries(counters).map(([key, value]) => [`${prefix}${key}`, Number(value)]));
}
