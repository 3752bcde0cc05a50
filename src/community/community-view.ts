/**
 * The community as configuration and the stored enrollment make it now: the corpus activation
 * with the API base derived from the community-statistics endpoint (credential order manual →
 * derived → stored, src/corpus/activation.ts), and the hub's URLs. Recomputed only when the
 * snapshot, the enrollment object or the second changes, so it is cheap to ask on every lookup.
 */
import type { ConfigSnapshot } from '../config/index.ts';
import { ActivationSource, type CorpusActivation, type StoredEnrollment } from '../corpus/activation.ts';
import type { Clock } from '../common/clock.ts';
import { hubEndpoints, type HubEndpoints } from './endpoints.ts';
import type { CommunityCredentials } from './shared-repository.ts';

export interface CommunityViewOptions {
  config: () => ConfigSnapshot;
  enrollment: () => StoredEnrollment | null;
  clock: Clock;
}

export class CommunityView {
  /** The process's one activation source; the corpus side shares it (src/corpus/corpus-state.ts). */
  readonly activationSource: ActivationSource;
  #endpoints: { endpoint: string; value: HubEndpoints | null } | null = null;
  #credentials: { activation: CorpusActivation; value: CommunityCredentials } | null = null;

  constructor(private readonly options: CommunityViewOptions) {
    this.activationSource = new ActivationSource({
      config: options.config,
      enrollment: options.enrollment,
      derivedApiBase: () => this.derivedApiBase(),
      nowMs: () => options.clock.nowMs(),
    });
  }

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
    return this.activationSource.current();
  }

  /** The community source's credentials as the activation gives them (one object per activation). */
  credentials(): CommunityCredentials {
    const activation = this.activation();
    if (this.#credentials?.activation === activation) return this.#credentials.value;
    const { community } = activation;
    const value = {
      buildable: community.wanted && community.apiBases.length > 0 && community.token !== '',
      bases: community.apiBases,
      token: community.token,
    };
    this.#credentials = { activation, value };
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
