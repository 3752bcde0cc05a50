/**
 * What the community wiring is built from (community-wiring.ts), in a module of its own so that
 * the wiring and its parts (community-parts.ts) both import it without importing each other.
 */
import type { ConfigSnapshot } from '../config/index.ts';
import type { BotCounts } from '../community/heartbeat.ts';
import type { FetchLike } from '../community/http.ts';
import type { CommunityStateFile } from '../community/state-file.ts';
import type { CommunityView } from '../community/community-view.ts';
import type { CorpusState } from '../corpus/corpus-state.ts';
import type { Clock } from '../common/clock.ts';
import type { LifecycleScope } from '../common/lifecycle.ts';
import type { Log } from '../common/log.ts';
import type { LocalStore } from '../store/open-store.ts';

/** The configuration as this wiring reads it (ConfigStore satisfies it). */
export interface CommunityConfigSource {
  current(): ConfigSnapshot;
}

/** What the community side and the corpus state are both built from (no I/O). */
export interface CommunityFoundation {
  state: CommunityStateFile;
  view: CommunityView;
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
  /** The singleton jobs' group (src/app/service.ts); absent: the wiring runs a group of its own. */
  primary?: LifecycleScope;
  /** Tests pass a fetch; the default is Node's. */
  fetch?: FetchLike;
}
