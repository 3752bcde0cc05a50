import type { ConfigChange, ConfigSnapshot } from '../config/index.ts';
import type { GuardRule } from '../domain/guard.ts';
import type { CorpusRepository } from '../ports/corpus-repository.ts';
import type { PoolPressure } from '../ports/pool-pressure.ts';
import type { PrefetchScheduler } from '../ports/remote-corpus.ts';
import type { Clock } from '../shared/clock.ts';
import type { Log } from '../shared/log.ts';
import { replyBudgetMs, resolveActivation, type CorpusActivation, type StoredEnrollment } from './activation.ts';
import { CompositeRepository, type RemoteSources } from './composite-repository.ts';
import { FindCaches } from './find-caches.ts';
import { Learner, type LearnStrategy } from './learner.ts';
import { LearningQueue } from './learning-queue.ts';
import { MirrorQueue } from './mirror-queue.ts';
import { RemoteBudget } from './remote-budget.ts';
import { buildCorpusStatus, type CommunityUsage, type CorpusStatus, type DeploymentStatus } from './status.ts';

export interface CorpusRuntimeDeps {
  local: CorpusRepository;
  pressure: PoolPressure;
  config: () => ConfigSnapshot;
  /** The persisted community enrollment, if any (community issue). */
  enrollment: () => StoredEnrollment | null;
  /** The remote sources as built now. */
  sources: () => RemoteSources;
  /** The community API base derived from the community-statistics endpoint ('' without a hub). */
  derivedApiBase?: () => string;
  prefetch: PrefetchScheduler;
  learnStrategy?: LearnStrategy;
  /** Called once, when the mirror queue receives its first item (the worker starts lazily). */
  onFirstMirrorItem?: () => void;
  /** Whether a group's pairs may go to the community (group config `share`); absent: every group. */
  shareGroup?: (groupId: number) => boolean;
  clock: Clock;
  log: Log;
}

const NO_PREFETCH: PrefetchScheduler = { schedule() {} };

/**
 * The corpus as one object: the composite over the local store, its caches, the remote budget,
 * the learning and mirror queues, and the derived activation. The composition root builds it and
 * the workers that drain its queues; config changes reach it through `applyConfigChange`.
 */
export class CorpusRuntime {
  readonly composite: CompositeRepository;
  readonly budget: RemoteBudget;
  readonly mirror: MirrorQueue;
  readonly learning: LearningQueue;
  readonly learner: Learner;
  #caches: FindCaches;
  #memo: {
    config: ConfigSnapshot;
    enrollment: StoredEnrollment | null;
    derivedApiBase: string;
    second: number;
    value: CorpusActivation;
  } | null = null;

  constructor(private readonly deps: CorpusRuntimeDeps) {
    const config = deps.config();
    const now = () => deps.clock.monotonicMs();
    this.#caches = new FindCaches(findCacheSettings(config), now);
    // A database that just failed to hand out connections sheds the non-critical work first.
    const skipNonCritical = () => deps.pressure.unhealthy?.() === true;
    this.budget = new RemoteBudget({
      pressure: deps.pressure,
      maxConcurrent: config.remote.remoteMaxConcurrent,
      skipNonCritical,
    });
    this.mirror = new MirrorQueue({
      pressure: deps.pressure,
      skipNonCritical,
      // Contribution intent alone is not enough: nothing leaves while the community is off.
      contributionEnabled: () => {
        const { community, fedContribute } = this.activation();
        return fedContribute || (community.on && community.contributeEnabled);
      },
      ...(deps.onFirstMirrorItem ? { onFirstItem: deps.onFirstMirrorItem } : {}),
      ...(deps.shareGroup ? { shareGroup: deps.shareGroup } : {}),
    });
    this.learning = new LearningQueue(deps.pressure, now);
    this.composite = new CompositeRepository({
      local: deps.local,
      sources: deps.sources,
      activation: () => this.activation(),
      guard: () => guardRule(deps.config()),
      budget: this.budget,
      caches: this.#caches,
      mirror: this.mirror,
      prefetch: deps.prefetch ?? NO_PREFETCH,
      clock: deps.clock,
      log: deps.log,
    });
    this.learner = new Learner(this.composite, deps.learnStrategy ?? 'atomic', now);
  }

  /** Derived from config and the stored enrollment; recomputed when either changes (or each second). */
  activation(): CorpusActivation {
    const config = this.deps.config();
    const enrollment = this.deps.enrollment();
    const derivedApiBase = this.deps.derivedApiBase?.() ?? '';
    const nowSec = Math.floor(this.deps.clock.nowMs() / 1000);
    const memo = this.#memo;
    if (
      memo &&
      memo.config === config &&
      memo.enrollment === enrollment &&
      memo.derivedApiBase === derivedApiBase &&
      memo.second === nowSec
    ) {
      return memo.value;
    }
    const value = resolveActivation({
      corpus: config.corpus,
      enrollment,
      derivedApiBase,
      nowSec,
      answerThreshold: config.repeater.answerThreshold,
      replyBudgetMs: replyBudgetMs(config),
    });
    this.#memo = { config, enrollment, derivedApiBase, second: nowSec, value };
    return value;
  }

  /** Each part reacts to its own keys (house style 4; spec "Console configuration section"). */
  applyConfigChange(change: ConfigChange): void {
    const keys = change.changedKeys;
    const performanceChanged = keys.some((key) => key.startsWith('CHORUS_CORPUS_FIND_CACHE_'));
    const remoteFindChanged = keys.includes('CHORUS_CORPUS_REMOTE_FIND_ENABLED');
    if (performanceChanged) this.#caches.resize(findCacheSettings(change.current));
    if (performanceChanged || remoteFindChanged || keys.some((key) => key.startsWith('CHORUS_CORPUS_MERGE_'))) {
      this.composite.invalidateFindCache();
    }
    if (keys.includes('CHORUS_CORPUS_REMOTE_MAX_CONCURRENT')) {
      this.budget.setLimit(change.current.remote.remoteMaxConcurrent);
    }
  }

  status(
    deployment: DeploymentStatus,
    usage: CommunityUsage | null,
    extra: Record<string, Record<string, number>> = {},
  ): CorpusStatus {
    return buildCorpusStatus({
      activation: this.activation(),
      deployment,
      usage,
      counters: {
        learning: { ...this.learning.counters, queue_size: this.learning.queue.size },
        mirror: { ...this.mirror.counters, queue_size: this.mirror.queue.size },
        remote_budget: { ...this.budget.counters },
        composite: { ...this.composite.counters },
        ...extra,
      },
      nowSec: Math.floor(this.deps.clock.nowMs() / 1000),
    });
  }
}

function findCacheSettings(config: ConfigSnapshot) {
  return { ttlMs: config.performance.findCacheSec * 1000, max: config.performance.findCacheMax };
}

function guardRule(config: ConfigSnapshot): GuardRule {
  return { enabled: config.guard.enabled, phrases: config.guard.phrases, exempt: config.guard.exempt };
}
