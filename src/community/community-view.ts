/**
 * The community as configuration and the stored enrollment make it now: the corpus activation
 * with the API base derived from the community-statistics endpoint (credential order manual →
 * derived → stored, src/corpus/activation.ts), and the hub's URLs. Recomputed only when the
 * snapshot, the enrollment object or the second changes, so it is cheap to ask on every lookup.
 */
import type { ConfigSnapshot } from '../config/index.ts';
import {
  replyBudgetMs,
  resolveActivation,
  type CorpusActivation,
  type StoredEnrollment,
} from '../corpus/activation.ts';
import type { Clock } from '../shared/clock.ts';
import { hubEndpoints, type HubEndpoints } from './endpoints.ts';

export interface CommunityViewOptions {
  config: () => ConfigSnapshot;
  enrollment: () => StoredEnrollment | null;
  clock: Clock;
}

export class CommunityView {
  #activation: {
    config: ConfigSnapshot;
    enrollment: StoredEnrollment | null;
    second: number;
    value: CorpusActivation;
  } | null = null;
  #endpoints: { endpoint: string; value: HubEndpoints | null } | null = null;

  constructor(private readonly options: CommunityViewOptions) {}

  config(): ConfigSnapshot {
    return this.options.config();
  }

  /** The hub's URLs, or null when no hub is configured. */
  endpoints(): HubEndpoints | null {
    const endpoint = this.options.config().communityStats.endpoint;
    if (this.#endpoints?.endpoint !== endpoint) this.#endpoints = { endpoint, value: hubEndpoints(endpoint) };
    return this.#endpoints.value;
  }

  /** The API base derived from the hub endpoint ('' without a hub). */
  derivedApiBase(): string {
    return this.endpoints()?.apiBase ?? '';
  }

  activation(): CorpusActivation {
    const config = this.options.config();
    const enrollment = this.options.enrollment();
    const second = Math.floor(this.options.clock.nowMs() / 1000);
    const memo = this.#activation;
    if (memo && memo.config === config && memo.enrollment === enrollment && memo.second === second) return memo.value;
    const value = resolveActivation({
      corpus: config.corpus,
      enrollment,
      derivedApiBase: this.derivedApiBase(),
      nowSec: second,
      answerThreshold: config.repeater.answerThreshold,
      replyBudgetMs: replyBudgetMs(config),
    });
    this.#activation = { config, enrollment, second, value };
    return value;
  }

  /** A shard worker runs no singleton job (enrollment, backfill, heartbeat). */
  isShardWorker(): boolean {
    return this.options.config().server.shardRole === 'worker';
  }

  /** Community contribution is on now: the community is in use and policy allows it. */
  contributing(): boolean {
    const { community } = this.activation();
    return community.on && community.contributeEnabled;
  }
}
