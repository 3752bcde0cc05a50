/**
 * The shared community repository (docs/rules.md#corpus-shared): built on first
 * use from the credentials as resolved now, holding only URLs and a token. `rebuild()` drops it
 * (after enrollment and after a corpus configuration save); a change of credentials is also
 * noticed on the next access, so a stale token is never used for long.
 */
import type { RemoteSources } from '../corpus/composite-repository.ts';
import type { CommunityClient } from './community-client.ts';

export interface CommunityCredentials {
  /** Whether a community source can be built now (wanted, at least one base, a token). */
  buildable: boolean;
  bases: readonly string[];
  token: string;
}

export interface SharedRepositoryCounters {
  builds: number;
  rebuilds: number;
}

export class SharedCommunityRepository {
  readonly counters: SharedRepositoryCounters = { builds: 0, rebuilds: 0 };
  #built: { credentials: CommunityCredentials; key: string; client: CommunityClient | null } | null = null;
  #sources: { client: CommunityClient | null; sources: RemoteSources } | null = null;

  constructor(
    private readonly credentials: () => CommunityCredentials,
    private readonly build: (credentials: CommunityCredentials) => CommunityClient,
  ) {}

  /** The repository for the current credentials, or null when none can be built. */
  get(): CommunityClient | null {
    const credentials = this.credentials();
    const built = this.#built;
    // The same credentials object: nothing to compare (the hot path asks on every lookup).
    if (built?.credentials === credentials) return built.client;
    const key = credentials.buildable ? `${credentials.bases.join('\n')}\u0000${credentials.token}` : '';
    if (built?.key === key) {
      this.#built = { ...built, credentials };
      return built.client;
    }
    const client = credentials.buildable ? this.build(credentials) : null;
    if (client) this.counters.builds++;
    this.#built = { credentials, key, client };
    return client;
  }

  /** The composite's remote sources: the same object while the client is the same (asked per lookup). */
  sources(): RemoteSources {
    const client = this.get();
    if (this.#sources?.client !== client) this.#sources = { client, sources: client ? { community: client } : {} };
    return this.#sources.sources;
  }

  /** Drops the built repository; the next access builds it again from the current credentials. */
  rebuild(): void {
    this.counters.rebuilds++;
    this.#built = null;
  }
}
