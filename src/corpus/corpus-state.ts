import { concerns, type ConfigKey, type ConfigReaction, type ConfigSnapshot } from '../config/index.ts';
import { rejectsMessage, type GuardRule } from '../domain/guard.ts';
import type { PoolPressure } from '../ports/pool-pressure.ts';
import type { Clock } from '../common/clock.ts';
import { RateLimitedLog, type Log } from '../common/log.ts';
import type { ActivationSource, CorpusActivation } from './activation.ts';
import { FindCaches } from './find-caches.ts';
import { LearningQueue } from './learning-queue.ts';
import { MirrorQueue } from './mirror-queue.ts';
import { RemoteBudget } from './remote-budget.ts';

export interface CorpusStateDeps {
  pressure: PoolPressure;
  config: () => ConfigSnapshot;
  activation: ActivationSource;
  /** Called once, when the mirror queue receives its first item (the worker starts lazily). */
  onFirstMirrorItem?: () => void;
  /** Whether a group's pairs may go to the community (group config `share`); absent: every group. */
  shareGroup?: (groupId: number) => boolean;
  clock: Clock;
  log: Log;
}

/**
 * What the corpus side and the community side share, built before either of them
 * (docs/ARCHITECTURE.md#lifecycle): the activation, the remote budget, the find caches and who
 * listens for a changed key, the learning and mirror queues, and the contamination guard. Both
 * sides receive this object, so neither needs the other to exist first.
 */
export class CorpusState {
  readonly budget: RemoteBudget;
  readonly caches: FindCaches;
  readonly learning: LearningQueue;
  readonly mirror: MirrorQueue;
  readonly guardCounters = { rejected: 0 };
  readonly #keyListeners = new Set<(keywords: string | undefined) => void>();
  readonly #listenerLog: RateLimitedLog;

  constructor(private readonly deps: CorpusStateDeps) {
    const config = deps.config();
    const now = () => deps.clock.monotonicMs();
    this.caches = new FindCaches(findCacheSettings(config), now);
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
    this.learning = new LearningQueue(now);
    this.#listenerLog = new RateLimitedLog(deps.log, now);
  }

  /** Derived from config and the stored enrollment; cheap to ask on every lookup. */
  activation(): CorpusActivation {
    return this.deps.activation.current();
  }

  /**
   * A key's stored context changed (undefined: possibly every key): its find cache entries go
   * (docs/rules.md#cache-find) and the listeners are told, so the repeater drops its cached misses for it
   * (docs/rules.md#learn-visible). A failing listener is logged and the others still run.
   */
  forgetKey(keywords?: string): void {
    const key = keywords?.trim();
    this.caches.invalidate(key);
    this.#tell(key);
  }

  #tell(key: string | undefined): void {
    for (const listener of this.#keyListeners) {
      try {
        listener(key);
      } catch (error) {
        this.#listenerLog.warn('key-listener', { error: String(error) }, 'a corpus change listener failed');
      }
    }
  }

  /** Called with each key whose stored context changed (undefined: possibly every key). */
  onKeyChanged(listener: (keywords: string | undefined) => void): () => void {
    this.#keyListeners.add(listener);
    return () => this.#keyListeners.delete(listener);
  }

  /** Whether the contamination guard refuses `message` (docs/rules.md#guard); every refusal is counted. */
  guardRejects(message: string): boolean {
    if (!rejectsMessage(guardRule(this.deps.config()), message)) return false;
    this.guardCounters.rejected++;
    return true;
  }

  /**
   * What this state does when its settings change (docs/rules.md#cfg-events): the find caches are
   * emptied once (a new TTL or size starts them over, which empties them too) and the key
   * listeners told; the remote budget takes its new limit.
   */
  configReactions(): ConfigReaction[] {
    return [
      {
        step: 'invalidate_find_cache',
        // Remote find, the merge, the sources and every performance item change what a lookup answers.
        sections: ['performance'],
        keys: FIND_CACHE_SOURCE_KEYS,
        run: (change) => {
          const resized = concerns({ keys: FIND_CACHE_KEYS }, change.changedKeys);
          if (resized) this.caches.resize(findCacheSettings(change.current));
          else this.caches.invalidate();
          this.#tell(undefined);
          return { detail: 'merged and reply lookup caches cleared' };
        },
      },
      {
        step: 'apply_remote_budget',
        keys: ['CHORUS_CORPUS_REMOTE_MAX_CONCURRENT'],
        run: (change) => {
          this.budget.setLimit(change.current.remote.remoteMaxConcurrent);
          return { detail: `at most ${change.current.remote.remoteMaxConcurrent} remote calls at once` };
        },
      },
    ];
  }
}

const FIND_CACHE_KEYS: readonly ConfigKey[] = ['CHORUS_CORPUS_FIND_CACHE_SEC', 'CHORUS_CORPUS_FIND_CACHE_MAX'];

/**
 * Keys that change which sources a lookup reads or the credential it reads them with: a miss
 * cached under the old ones would hide the new source for the cache TTL.
 */
const FIND_CACHE_SOURCE_KEYS: readonly ConfigKey[] = [
  'CHORUS_CORPUS_REMOTE_FIND_ENABLED',
  'CHORUS_CORPUS_MERGE_ORDER',
  'CHORUS_CORPUS_MERGE_STRATEGY',
  'CHORUS_CORPUS_FED_ENABLED',
  'CHORUS_CORPUS_COMMUNITY_ENABLED',
  'CHORUS_CORPUS_AUTO_ENROLL',
  'CHORUS_CORPUS_COMMUNITY_API_BASE',
  'CHORUS_CORPUS_COMMUNITY_TOKEN',
  'CHORUS_COMMUNITY_STATS_ENABLED',
  'CHORUS_COMMUNITY_STATS_ENDPOINT',
];

function findCacheSettings(config: ConfigSnapshot) {
  return { ttlMs: config.performance.findCacheSec * 1000, max: config.performance.findCacheMax };
}

function guardRule(config: ConfigSnapshot): GuardRule {
  return { enabled: config.guard.enabled, phrases: config.guard.phrases, exempt: config.guard.exempt };
}
