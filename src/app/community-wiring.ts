/**
 * The community side of the corpus as `chorus serve` runs it: the state file, the shared
 * community repository, enrollment, usage, the mirror target, prefetch, backfill and heartbeat.
 *
 * Late binding. CorpusRuntime needs `enrollment`, `sources` and `prefetch` when it is constructed,
 * while prefetch, backfill and enrollment need the runtime (its budget, composite find cache,
 * learning queue and mirror queue). So this is built first and receives the runtime as a function
 * that is only called after construction:
 *
 *   const community = wireCommunity({ ..., runtime: () => runtime });
 *   const runtime = new CorpusRuntime({ ..., enrollment: community.enrollment,
 *                                       sources: community.sources, prefetch: community.prefetch });
 *   createMirrorWorker({ ..., target: community.mirrorTarget });
 *   community.start();
 *
 * Nothing here calls `runtime()` before `start()` or before the runtime calls into it (the
 * runtime's constructor calls none of the three), so the closure never meets the `const` in its
 * temporal dead zone. `enrollment()` and `sources()` are cheap: no I/O.
 */
import { join } from 'node:path';
import type { ConfigChange, ConfigSnapshot } from '../config/index.ts';
import { Backfill, BackfillCursorFile, BACKFILL_STATE_FILE, type BackfillIneligible } from '../community/backfill.ts';
import { CommunityClient, newClientCounters, type AuthFailureSource } from '../community/community-client.ts';
import { CommunityView } from '../community/community-view.ts';
import { Enrollment } from '../community/enrollment.ts';
import { HeartbeatReporter, NO_BOTS, type BotCounts } from '../community/heartbeat.ts';
import type { FetchLike } from '../community/http.ts';
import { CommunityMirrorTargets } from '../community/mirror-target.ts';
import { PrefetchQueue, PrefetchRunner } from '../community/prefetch.ts';
import { SharedCommunityRepository, type CommunityCredentials } from '../community/shared-repository.ts';
import { COMMUNITY_STATE_FILE, CommunityStateFile } from '../community/state-file.ts';
import { UsageCache } from '../community/usage.ts';
import type { StoredEnrollment } from '../corpus/activation.ts';
import type { RemoteSources } from '../corpus/composite-repository.ts';
import type { CorpusRuntime } from '../corpus/corpus-runtime.ts';
import type { CommunityUsage, DeploymentStatus } from '../corpus/status.ts';
import type { MirrorTarget, PrefetchScheduler } from '../ports/remote-corpus.ts';
import type { Clock } from '../shared/clock.ts';
import type { Log } from '../shared/log.ts';
import { TaskSet } from '../shared/task-set.ts';
import type { LocalStore } from '../store/open-store.ts';
import { BackfillJob } from '../workers/backfill-job.ts';
import { EnrollmentJob } from '../workers/enrollment-job.ts';
import { HeartbeatJob } from '../workers/heartbeat-job.ts';
import { PrefetchWorkers } from '../workers/prefetch-worker.ts';

export type { BotCounts } from '../community/heartbeat.ts';

/** The configuration as this wiring reads and follows it (ConfigStore satisfies it). */
export interface CommunityConfigSource {
  current(): ConfigSnapshot;
  on(event: 'config/changed', listener: (change: ConfigChange) => void): unknown;
  off(event: 'config/changed', listener: (change: ConfigChange) => void): unknown;
}

export interface CommunityWiringOptions {
  store: Pick<LocalStore, 'engine' | 'corpus'>;
  config: CommunityConfigSource;
  /** The corpus runtime, read late (see the file comment). */
  runtime: () => CorpusRuntime;
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

/** What a step reports to the console's save reactions (CorpusControl). */
export interface ControlDetail {
  detail: string;
}

export interface CommunityControl {
  /** Remote find mode saved: clear the prefetch state, restart the workers if mode is prefetch. */
  restartPrefetch(): Promise<ControlDetail>;
  /** A backfill setting saved: remove and re-add the backfill job. */
  reregisterBackfill(): ControlDetail;
  /** Credentials may have changed: rebuild the shared community repository, forget usage. */
  rebuildSharedRepository(): ControlDetail;
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
  /** For CorpusRuntime: the stored enrollment (in memory, no I/O). */
  enrollment: () => StoredEnrollment | null;
  /** For CorpusRuntime: the community source when one can be built. */
  sources: () => RemoteSources;
  /** For CorpusRuntime: the prefetch scheduler (non-blocking). */
  prefetch: PrefetchScheduler;
  /** For the mirror worker: the contribute target, null while no repository can be built. */
  mirrorTarget: () => MirrorTarget | null;
  /** The API base derived from CHORUS_COMMUNITY_STATS_ENDPOINT ('' without a hub), for resolveActivation. */
  derivedApiBase: () => string;
  status: CommunityStatusExtras;
  control: CommunityControl;
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

/** Usage requests are short (reference F6.21: 3 s). */
const USAGE_TIMEOUT_MS = 3000;
/** A shard worker re-reads the state file this often, to pick up its primary's enrollment. */
const WORKER_STATE_REFRESH_MS = 30_000;
/** ...and after a refused token, at most this often. */
const WORKER_AUTH_RELOAD_MS = 5000;
/** Pool capacity share for prefetch workers (reference F5.5: cap_by_pg_pool(limit, 0.05)). */
const PREFETCH_POOL_SHARE = 0.05;

/** Keys whose change this wiring follows itself (the console's save reactions cover the rest). */
const FOLLOWED_KEYS = new Set<string>([
  'CHORUS_SHARD_ROLE',
  'CHORUS_CORPUS_COMMUNITY_ENABLED',
  'CHORUS_CORPUS_AUTO_ENROLL',
  'CHORUS_CORPUS_COMMUNITY_CONTRIBUTE',
  'CHORUS_CORPUS_COMMUNITY_API_BASE',
  'CHORUS_CORPUS_COMMUNITY_TOKEN',
]);

export function wireCommunity(options: CommunityWiringOptions): CommunityWiring {
  const { store, config, clock, log } = options;
  const current = (): ConfigSnapshot => config.current();
  const now = () => clock.monotonicMs();
  const runtime = options.runtime;
  const tasks = new TaskSet((label, error) =>
    log.warn({ task: label, error: error instanceof Error ? error.message : String(error) }, 'community task failed'),
  );

  const state = new CommunityStateFile({
    path: join(current().dataDir, COMMUNITY_STATE_FILE),
    log,
    readOnly: current().server.shardRole === 'worker',
  });
  const view = new CommunityView({ config: current, enrollment: () => state.enrollment(), clock });

  // Filled below; the client calls it only after a request, long after construction.
  let onAuthFailure: (source: AuthFailureSource) => void | Promise<void> = () => undefined;
  const clientCounters = newClientCounters();
  // Asked on every corpus lookup (through `sources()`): one object per activation.
  let credentialsMemo: { activation: unknown; value: CommunityCredentials } | null = null;
  const credentials = (): CommunityCredentials => {
    const activation = view.activation();
    if (credentialsMemo?.activation === activation) return credentialsMemo.value;
    const { community } = activation;
    const value = {
      buildable: community.wanted && community.apiBases.length > 0 && community.token !== '',
      bases: community.apiBases,
      token: community.token,
    };
    credentialsMemo = { activation, value };
    return value;
  };
  const repository = new SharedCommunityRepository(
    credentials,
    (built) =>
      new CommunityClient({
        bases: built.bases,
        token: built.token,
        timeouts: () => {
          const remote = current().remote;
          return {
            readMs: remote.remoteTimeoutSec * 1000,
            contributeMs: remote.contributeTimeoutSec * 1000,
            usageMs: USAGE_TIMEOUT_MS,
          };
        },
        onAuthFailure: (source) => onAuthFailure(source),
        ...(options.fetch ? { fetch: options.fetch } : {}),
        log,
        now,
        counters: clientCounters,
      }),
  );

  const usage = new UsageCache({
    load: async () => {
      const { community } = view.activation();
      if (!community.configured) return null;
      return (await repository.get()?.usage()) ?? null;
    },
    ttlMs: () => current().remote.usageCacheSec * 1000,
    now,
  });

  /** A new credential is in place: rebuild what depends on it (spec "Boundary rules" 3). */
  const credentialsChanged = () => {
    repository.rebuild();
    usage.invalidate();
    runtime().composite.invalidateFindCache();
  };

  const enrollment = new Enrollment({
    view,
    state,
    onEnrolled: credentialsChanged,
    tasks,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    clock,
    log,
  });
  let lastWorkerReload = Number.NEGATIVE_INFINITY;
  onAuthFailure = (source) => {
    if (view.isShardWorker()) {
      // A worker cannot enroll: its primary does; pick up what the primary stored (at most
      // every few seconds, however many requests are refused meanwhile).
      if (now() - lastWorkerReload < WORKER_AUTH_RELOAD_MS) return;
      lastWorkerReload = now();
      tasks.run('community state reload', async () => {
        if (await state.reloadIfChanged()) credentialsChanged();
      });
      return;
    }
    if (source === 'usage') return enrollment.refreshNow().then(() => undefined);
    enrollment.onAuthFailure();
  };
  const enrollmentJob = new EnrollmentJob({ enrollment, isShardWorker: () => view.isShardWorker(), log });

  // Prefetch writes to the local store directly, never through the composite: nothing is mirrored.
  const prefetchQueue = new PrefetchQueue({
    mode: () => view.activation().remoteFindMode,
    pressure: store.engine,
    learnQueuePressure: () => runtime().learning.queuePressure,
    now,
  });
  const lateBudget = {
    shouldSkip: (hotPath: boolean) => runtime().budget.shouldSkip(hotPath),
    acquire: (hotPath: boolean, wait: boolean) => runtime().budget.acquire(hotPath, wait),
  };
  const prefetchRunner = new PrefetchRunner({
    local: store.corpus,
    remote: () => repository.get(),
    budget: lateBudget,
    invalidate: (keywords) => {
      store.corpus.invalidateSnapshots(keywords);
      runtime().composite.invalidateFindCache(keywords);
    },
    rejects: (message) => runtime().composite.guardRejects(message),
    answerThreshold: () => config.current().repeater.answerThreshold,
  });
  const prefetchWorkers = new PrefetchWorkers({
    queue: prefetchQueue,
    runner: prefetchRunner,
    mode: () => view.activation().remoteFindMode,
    concurrency: () => prefetchConcurrency(current(), store.engine.kind),
    log,
  });

  const backfillIneligible = (): BackfillIneligible | null => {
    const snapshot = current();
    if (snapshot.server.shardRole === 'worker') return 'shard_worker';
    if (!snapshot.backfill.enabled) return 'disabled';
    const { community } = view.activation();
    if (!community.contributeEnabled) return 'contribution_disabled';
    if (!community.enrolledValid) return 'not_enrolled';
    if (!repository.get()) return 'no_repository';
    return null;
  };
  const backfill = new Backfill({
    ineligible: backfillIneligible,
    settings: () => current().backfill,
    store: store.corpus,
    pressure: store.engine,
    mirrorFull: () => runtime().mirror.full,
    target: () => repository.get(),
    budget: lateBudget,
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
  const mirrorTargets = new CommunityMirrorTargets(log, now, () => repository.get());

  let sourcesMemo: { client: CommunityClient | null; sources: RemoteSources } = { client: null, sources: {} };
  const sources = (): RemoteSources => {
    const client = repository.get();
    if (sourcesMemo.client !== client) sourcesMemo = { client, sources: client ? { community: client } : {} };
    return sourcesMemo.sources;
  };

  const onConfigChanged = (change: ConfigChange) => {
    const keys = change.changedKeys;
    const statsChanged = keys.some((key) => key.startsWith('CHORUS_COMMUNITY_STATS_'));
    if (!statsChanged && !keys.some((key) => FOLLOWED_KEYS.has(key))) return;
    usage.invalidate();
    heartbeatJob.sync();
    enrollmentJob.sync();
    if (keys.includes('CHORUS_SHARD_ROLE')) backfillJob.sync();
  };

  let workerRefresh: NodeJS.Timeout | undefined;
  let started = false;

  const parts: CommunityParts = {
    state,
    view,
    repository,
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
  };

  return {
    enrollment: () => state.enrollment(),
    sources,
    prefetch: prefetchQueue,
    mirrorTarget: () => {
      const client = repository.get();
      return client ? mirrorTargets.for(client) : null;
    },
    derivedApiBase: () => view.derivedApiBase(),
    status: {
      deployment: () => ({
        deployment_id: state.deploymentId,
        community_stats_enabled: current().communityStats.enabled,
        heartbeat_endpoint: state.heartbeatEndpoint,
      }),
      usage: () => usage.get(),
      usageSnapshot: () => usage.peek(),
    },
    control: {
      restartPrefetch: () => prefetchWorkers.restart(),
      reregisterBackfill: () => backfillJob.reregister(),
      rebuildSharedRepository: () => {
        repository.rebuild();
        usage.invalidate();
        return { detail: 'community repository rebuilt from the current credentials' };
      },
    },
    counters: () => ({
      community_client: { ...clientCounters },
      community_repository: { ...repository.counters },
      community_mirror: { ...mirrorTargets.counters },
      community_mirror_retry: {
        ...mirrorTargets.retry.counters,
        waiting: mirrorTargets.retry.size,
        oldest_age_sec: mirrorTargets.retry.oldestAgeSec(),
      },
      community_usage: { ...usage.counters },
      enrollment: { ...enrollment.counters },
      prefetch: { ...prefetchQueue.counters, queue_size: prefetchQueue.queue.size },
      prefetch_runner: { ...prefetchRunner.counters },
      prefetch_workers: prefetchWorkers.counters(),
      backfill: { ...backfill.counters },
      deidentify_backfill: { ...backfill.withheld.counts },
      backfill_job: backfillJob.counters(),
      heartbeat: { ...heartbeat.counters },
      deidentify_heartbeat: { ...heartbeat.withheld.counts },
      heartbeat_job: { ...heartbeatJob.job.counters },
    }),
    start() {
      if (started) return;
      started = true;
      config.on('config/changed', onConfigChanged);
      if (view.isShardWorker()) {
        workerRefresh = setInterval(() => {
          tasks.run('community state reload', async () => {
            if (await state.reloadIfChanged()) credentialsChanged();
          });
        }, WORKER_STATE_REFRESH_MS);
        workerRefresh.unref();
      } else {
        // The deployment id is created once and kept.
        state.persist().catch(() => undefined);
      }
      enrollmentJob.start();
      heartbeatJob.sync();
      backfillJob.sync();
      prefetchWorkers.start();
    },
    async stop(deadlineMs) {
      config.off('config/changed', onConfigChanged);
      clearInterval(workerRefresh);
      const began = clock.monotonicMs();
      const left = () => Math.max(0, deadlineMs - (clock.monotonicMs() - began));
      // A heartbeat or enrollment stuck on a black-holed hub is not waited for past the deadline.
      await withinDeadline(
        Promise.all([
          enrollmentJob.stop(),
          heartbeatJob.stop(),
          backfillJob.stop(),
          prefetchWorkers.stop(left()),
          mirrorTargets.retry.stop(),
        ]),
        left(),
      );
      await tasks.drain(left());
      await withinDeadline(state.flush(), left());
      started = false;
    },
    parts,
  };
}

/** cap_by_pg_pool(remote limit, 0.05) (reference F5.5): 1 on SQLite and with the default pool. */
export function prefetchConcurrency(config: ConfigSnapshot, engine: 'sqlite' | 'postgres'): number {
  if (engine === 'sqlite') return 1;
  const share = Math.max(1, Math.floor(config.server.databasePoolMax * PREFETCH_POOL_SHARE));
  return Math.max(1, Math.min(config.remote.remoteMaxConcurrent, share));
}

async function withinDeadline(work: Promise<unknown>, deadlineMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, deadlineMs);
    timer.unref();
  });
  try {
    await Promise.race([work.then(() => undefined), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
