/**
 * What `GET {base_url}/api/health` reports for `chorus serve`: the version, the store's pressure,
 * the corpus queues and workers, the OneBot endpoint, the change feed, the config watch and, where
 * claims are on, the fleet's. Read at each request from the parts themselves.
 */
import type { HealthReport } from '../console/health.ts';
import { fleetClaimsHealth, type FleetClaims } from '../repeater/fleet-claims.ts';
import type { LocalStore } from '../store/open-store.ts';
import type { ChatWiring } from './chat-wiring.ts';
import type { ConfigWatch } from './config-watch.ts';
import type { CorpusWiring } from './corpus-wiring.ts';
import { changeFeedHealth, type FleetAccounts } from './fleet-wiring.ts';
import type { ChangeFeed } from '../store/change-feed.ts';
import type { ReplyUsageBuffer } from './reply-usage-buffer.ts';

export interface HealthParts {
  version: string;
  store: LocalStore;
  corpus: CorpusWiring;
  chat: ChatWiring;
  usage: ReplyUsageBuffer;
  changes: ChangeFeed;
  configWatch: ConfigWatch;
  claims: FleetClaims | undefined;
  /** Whether claims are taken now (`auto`: only once another process has accounts). */
  claimNow: () => boolean;
  fleetAccounts: FleetAccounts;
  /** performance.now() at the start, for the uptime. */
  startedAt: number;
}

export function serviceHealth(parts: HealthParts): () => HealthReport {
  const { store, corpus, chat, claims } = parts;
  return () => ({
    status: 'ok',
    version: parts.version,
    storage: { engine: store.engine.kind, pressure: store.engine.pressure() },
    corpus: {
      composite_active: corpus.runtime.activation().compositeActive,
      learning_queue: corpus.runtime.learning.queue.size,
      mirror_queue: corpus.runtime.mirror.queue.size,
    },
    workers: { learn: corpus.learnWorker.running, mirror: corpus.mirrorWorker.running },
    onebot: { connected_bots: chat.onebot.bots().length, dropped: chat.onebot.dropped() },
    reply_usage: { ...parts.usage.counters },
    change_feed: changeFeedHealth(parts.changes),
    config: parts.configWatch.health(),
    ...(claims
      ? {
          fleet_claims: {
            ...fleetClaimsHealth(claims),
            active: parts.claimNow(),
            fleet_accounts: parts.fleetAccounts.others().size,
          },
        }
      : {}),
    uptime_sec: Math.round((performance.now() - parts.startedAt) / 1000),
  });
}
