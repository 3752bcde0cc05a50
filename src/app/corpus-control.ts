/**
 * The corpus parts a configuration save touches (CorpusControl, see src/console/corpus-control.ts):
 * the composite's find caches, the store's reply settings and snapshot cache, and the community
 * side's prefetch workers, backfill job and shared repository (community-wiring.ts). Without a
 * community side (some tests) those three steps report "not running".
 */
import type { ConfigSnapshot, ConfigStore } from '../config/index.ts';
import type { CorpusControl } from '../console/corpus-control.ts';
import type { LocalStore } from '../store/open-store.ts';
import type { ReplySettings } from '../store/corpus-store.ts';
import type { CorpusWiring } from './corpus-wiring.ts';

/** The corpus as the console uses it; `community` is absent in tests that build a bare runtime. */
export type ConsoleCorpus = Pick<CorpusWiring, 'runtime' | 'counters'> & Partial<Pick<CorpusWiring, 'community'>>;

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

const NOT_RUNNING = { detail: 'not running' };

export function createCorpusControl(
  config: ConfigStore,
  store: LocalStore,
  corpus: ConsoleCorpus,
  onebotApplied?: () => string,
): CorpusControl {
  const community = corpus.community?.control;
  return {
    invalidateFindCache() {
      corpus.runtime.composite.invalidateFindCache();
      return { detail: 'merged and reply lookup caches cleared' };
    },
    restartPrefetch: () => community?.restartPrefetch() ?? NOT_RUNNING,
    clearReplyCaches() {
      store.corpus.configure(replySettings(config.current()));
      return { detail: 'reply settings applied; snapshot cache cleared' };
    },
    reregisterBackfill: () => community?.reregisterBackfill() ?? NOT_RUNNING,
    rebuildSharedRepository: () => community?.rebuildSharedRepository() ?? NOT_RUNNING,
    // The endpoint applied the settings as the configuration changed; this reports what it did.
    applyOnebot: () => (onebotApplied ? { detail: onebotApplied() } : NOT_RUNNING),
  };
}
