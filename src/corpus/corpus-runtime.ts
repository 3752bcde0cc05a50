import type { ConfigSnapshot } from '../config/index.ts';
import type { CorpusRepository } from '../ports/corpus-repository.ts';
import type { PoolPressure } from '../ports/pool-pressure.ts';
import type { PrefetchScheduler } from '../ports/remote-corpus.ts';
import type { Clock } from '../common/clock.ts';
import type { Log } from '../common/log.ts';
import { ActivationSource, type CorpusActivation, type StoredEnrollment } from './activation.ts';
import { CompositeRepository, type RemoteSources } from './composite-repository.ts';
import { CorpusState } from './corpus-state.ts';
import { Learner, type LearnStrategy } from './learner.ts';
import type { LearningQueue } from './learning-queue.ts';
import type { MirrorQueue } from './mirror-queue.ts';
import type { RemoteBudget } from './remote-budget.ts';
import { buildCorpusStatus, type CommunityUsage, type CorpusStatus, type DeploymentStatus } from './status.ts';

export interface CorpusRuntimeDeps {
  local: CorpusRepository;
  pressure: PoolPressure;
  config: () => ConfigSnapshot;
  /**
   * The state shared with the community side, when the caller built it first (`chorus serve`
   * does: docs/ARCHITECTURE.md#lifecycle). Without it the runtime builds its own from
   * `enrollment` and `derivedApiBase`.
   */
  shared?: CorpusState;
  /** The persisted community enrollment, if any. */
  enrollment?: () => StoredEnrollment | null;
  /** The remote sources as built now. */
  sources: () => RemoteSources;
  /** The community API base derived from the community-statistics endpoint ('' without a hub). */
  derivedApiBase?: () => string;
  prefetch: PrefetchScheduler;
  /** Told of every chat ban (the community's ban reports, docs/hub.md#moderation). */
  banned?: (contextKeywords: string, answerKeywords: string) => void;
  learnStrategy?: LearnStrategy;
  /** Called once, when the mirror queue receives its first item (the worker starts lazily). */
  onFirstMirrorItem?: () => void;
  clock: Clock;
  log: Log;
}

const NO_PREFETCH: PrefetchScheduler = { schedule() {} };

/**
 * The corpus as one object: the composite over the local store and the state it shares with the
 * community side (caches, remote budget, learning and mirror queues, activation). The composition
 * root builds it and the workers that drain its queues; config changes reach it through the
 * shared state's reactions (`CorpusState.configReactions`, docs/rules.md#cfg-events).
 */
export class CorpusRuntime {
  readonly shared: CorpusState;
  readonly composite: CompositeRepository;
  readonly budget: RemoteBudget;
  readonly mirror: MirrorQueue;
  readonly learning: LearningQueue;
  readonly learner: Learner;

  constructor(private readonly deps: CorpusRuntimeDeps) {
    const now = () => deps.clock.monotonicMs();
    this.shared =
      deps.shared ??
      new CorpusState({
        pressure: deps.pressure,
        config: deps.config,
        activation: new ActivationSource({
          config: deps.config,
          enrollment: deps.enrollment ?? (() => null),
          derivedApiBase: deps.derivedApiBase ?? (() => ''),
          nowMs: () => deps.clock.nowMs(),
        }),
        ...(deps.onFirstMirrorItem ? { onFirstMirrorItem: deps.onFirstMirrorItem } : {}),
        clock: deps.clock,
        log: deps.log,
      });
    this.budget = this.shared.budget;
    this.mirror = this.shared.mirror;
    this.learning = this.shared.learning;
    this.composite = new CompositeRepository({
      local: deps.local,
      sources: deps.sources,
      shared: this.shared,
      prefetch: deps.prefetch ?? NO_PREFETCH,
      ...(deps.banned ? { banned: deps.banned } : {}),
      clock: deps.clock,
      log: deps.log,
    });
    this.learner = new Learner(this.composite, deps.learnStrategy ?? 'atomic', now);
  }

  /** Derived from config and the stored enrollment; recomputed when either changes (or each second). */
  activation(): CorpusActivation {
    return this.shared.activation();
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
