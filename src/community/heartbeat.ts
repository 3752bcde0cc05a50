/**
 * The community heartbeat (docs/rules.md#heartbeat, #hub-protocol):
 * `POST {hub}/v1/heartbeat` with the deployment id, time, version and bot counts. While the
 * deployment contributes to the community, at most every max(300, snapshot interval) seconds it
 * also carries `corpus_hot_snapshot`: up to 40 local hot keywords with their scores (labels only,
 * no messages, no group numbers). 200 is success (the endpoint is remembered); 429 is logged as
 * rate limited; nothing is retried before the next beat.
 */
import { aggregateLocalHotKeywords, type HotKeywordSource } from '../corpus/local-hot.ts';
import { communityLabel, withheldCounters } from '../domain/deidentify.ts';
import type { Clock } from '../common/clock.ts';
import { RateLimitedLog, type Log } from '../common/log.ts';
import type { CommunityView } from './community-view.ts';
import { requestJson, type FetchLike } from './http.ts';
import type { CommunityStateFile } from './state-file.ts';
import { errorMessage } from '../common/errors.ts';

export const HEARTBEAT_FIRST_DELAY_MS = 60_000;
export const HEARTBEAT_TIMEOUT_MS = 15_000;
export const HOT_SNAPSHOT_MIN_INTERVAL_SEC = 300;
export const HOT_SNAPSHOT_ITEMS = 40;

/** What the lead's bot layer reports (docs/rules.md#heartbeat `build_heartbeat_payload`). */
export interface BotCounts {
  online_bots: number;
  catalog_bots: number;
  sharded: boolean;
  /** Shard workers when sharded, else null. */
  shard_workers: number | null;
}

export const NO_BOTS: BotCounts = { online_bots: 0, catalog_bots: 0, sharded: false, shard_workers: null };

export interface HeartbeatOptions {
  view: CommunityView;
  state: CommunityStateFile;
  hot: HotKeywordSource;
  version: string;
  botCounts: () => BotCounts;
  fetch?: FetchLike;
  clock: Clock;
  log: Log;
}

export interface HeartbeatCounters {
  sent: number;
  rateLimited: number;
  failed: number;
  snapshotsSent: number;
  idle: number;
}

export type HeartbeatOutcome = 'sent' | 'rate_limited' | 'failed' | 'idle';

export class HeartbeatReporter {
  readonly counters: HeartbeatCounters = { sent: 0, rateLimited: 0, failed: 0, snapshotsSent: 0, idle: 0 };
  /** Hot-word labels left out of snapshots because they may not leave the deployment, per reason. */
  readonly withheld = withheldCounters();
  readonly #options: HeartbeatOptions;
  readonly #log: RateLimitedLog;
  #idleLogged = false;

  constructor(options: HeartbeatOptions) {
    this.#options = options;
    this.#log = new RateLimitedLog(options.log, () => options.clock.monotonicMs());
  }

  /** Whether heartbeats are sent at all: enabled, a hub configured, not a shard worker. */
  active(): boolean {
    const { view } = this.#options;
    return view.config().communityStats.enabled && !view.isShardWorker() && view.endpoints() !== null;
  }

  /** Logs once that no hub is configured (the default: Chorus has no official hub). */
  noteIdle(): void {
    const { view } = this.#options;
    if (this.#idleLogged || !view.config().communityStats.enabled || view.isShardWorker()) return;
    if (view.endpoints() !== null) return;
    this.#idleLogged = true;
    this.#options.log.info(
      { key: 'CHORUS_COMMUNITY_STATS_ENDPOINT' },
      'no community hub configured: heartbeat and corpus enrollment stay idle',
    );
  }

  async beat(): Promise<HeartbeatOutcome> {
    const { view, state, clock } = this.#options;
    const endpoints = view.endpoints();
    if (!this.active() || !endpoints) {
      this.counters.idle++;
      return 'idle';
    }
    const nowSec = Math.floor(clock.nowMs() / 1000);
    const payload: Record<string, unknown> = {
      deployment_id: state.deploymentId,
      ts: nowSec,
      version: this.#options.version || 'unknown',
      ...this.#options.botCounts(),
      roster_public: false,
    };
    const snapshot = await this.#hotSnapshot(nowSec);
    if (snapshot) payload.corpus_hot_snapshot = snapshot;
    let status: number;
    try {
      const result = await requestJson(this.#options.fetch ?? fetch, {
        method: 'POST',
        url: endpoints.heartbeat,
        token: view.config().communityStats.token,
        body: payload,
        timeoutMs: HEARTBEAT_TIMEOUT_MS,
      });
      status = result.status;
    } catch (error) {
      this.counters.failed++;
      const message = errorMessage(error);
      this.#log.warn('heartbeat', { error: message }, 'community heartbeat failed');
      return 'failed';
    }
    if (status === 200) {
      this.counters.sent++;
      const writes = [state.recordHeartbeat(endpoints.heartbeat, nowSec)];
      if (snapshot) {
        this.counters.snapshotsSent++;
        writes.push(state.setCorpusHotSnapshotUnix(nowSec));
      }
      await Promise.all(writes).catch(() => undefined);
      return 'sent';
    }
    if (status === 429) {
      this.counters.rateLimited++;
      this.#log.warn('heartbeat', { status }, 'community heartbeat rate limited');
      return 'rate_limited';
    }
    this.counters.failed++;
    this.#log.warn('heartbeat', { status }, 'community heartbeat refused');
    return 'failed';
  }

  /** The snapshot when due: contributing, interval elapsed, and at least one item. */
  async #hotSnapshot(nowSec: number): Promise<{ as_of: number; items: { keywords: string; score: number }[] } | null> {
    const { view, state } = this.#options;
    if (!view.contributing()) return null;
    const interval = Math.max(HOT_SNAPSHOT_MIN_INTERVAL_SEC, view.config().communityStats.corpusHotSnapshotIntervalSec);
    const last = state.corpusHotSnapshotUnix;
    if (last !== null && nowSec - last < interval) return null;
    let items;
    try {
      items = await aggregateLocalHotKeywords(this.#options.hot, {
        scope: 'global',
        limit: HOT_SNAPSHOT_ITEMS,
        answersPerKeyword: 1,
      });
    } catch (error) {
      // The heartbeat goes out without it; the snapshot is due again on the next beat.
      const message = errorMessage(error);
      this.#log.warn('hot-snapshot', { error: message }, 'local hot keywords unavailable for the heartbeat');
      return null;
    }
    // Labels de-identified; two that become the same after cleaning are one item (a hub refuses
    // duplicates), with their scores added.
    const byLabel = new Map<string, number>();
    for (const item of items) {
      const label = communityLabel(item.keywords, this.withheld.sink);
      if (label !== null) byLabel.set(label, (byLabel.get(label) ?? 0) + item.score);
    }
    if (byLabel.size === 0) return null;
    return {
      as_of: nowSec,
      items: [...byLabel].slice(0, HOT_SNAPSHOT_ITEMS).map(([keywords, score]) => ({ keywords, score })),
    };
  }
}
