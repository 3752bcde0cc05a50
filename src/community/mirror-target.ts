/**
 * The mirror worker's target over the community contribute endpoint (docs/rules.md#mirror). The worker already de-identifies and takes the budget; the bodies are built with group 0
 * and no bans anyway (src/community/codec.ts), so nothing identifying can leave even if a caller
 * forgets.
 *
 * A refused or failed contribution is counted and logged at most once a minute, not thrown: during
 * a hub outage every learned phrase would otherwise log a line. It waits in a bounded retry
 * backlog and is sent again when the hub is back.
 */
import type { Context, LearnInput } from '../domain/corpus.ts';
import { communityContext, communityLearnInput } from '../domain/deidentify.ts';
import type { MirrorTarget } from '../ports/remote-corpus.ts';
import { RateLimitedLog, type Log } from '../common/log.ts';
import type { CommunityClient, ContributeOutcome } from './community-client.ts';
import { MirrorRetry, type MirrorRetryOptions, type RetryItem } from './mirror-retry.ts';
import { errorMessage } from '../common/errors.ts';

export interface MirrorTargetCounters {
  accepted: number;
  refused: number;
  failed: number;
}

/**
 * The mirror's targets, one per community client. A contribution that fails (transport error,
 * refusal, an expired token) goes to the retry backlog (src/community/mirror-retry.ts); while the
 * hub cannot be reached, new contributions queue behind it instead of trying a hub that is away.
 */
export class CommunityMirrorTargets {
  readonly counters: MirrorTargetCounters = { accepted: 0, refused: 0, failed: 0 };
  readonly retry: MirrorRetry;
  readonly #targets = new WeakMap<CommunityClient, MirrorTarget>();
  readonly #log: RateLimitedLog;
  readonly #current: () => CommunityClient | null;
  readonly #contributing: () => boolean;

  /** `contributing`: whether contributions are wanted and allowed now (a credential may be still to come). */
  constructor(
    log: Log,
    now: () => number,
    current: () => CommunityClient | null,
    contributing: () => boolean,
    retryOptions: Partial<MirrorRetryOptions> = {},
  ) {
    this.#log = new RateLimitedLog(log, now);
    this.retry = new MirrorRetry({ target: current, log, now, ...retryOptions });
    this.#current = current;
    this.#contributing = contributing;
  }

  /**
   * An item learned while no target can be built (the deployment has not enrolled yet) waits in
   * the retry backlog when contributing is on, so enrolling sends it; false: nothing is coming.
   * `item` is de-identified already (and is again when the backlog sends it).
   */
  park(item: RetryItem): boolean {
    if (!this.#contributing()) return false;
    this.retry.add(item);
    return true;
  }

  /** The target for the repository as built now, null while none can be built. */
  current(): MirrorTarget | null {
    const client = this.#current();
    return client ? this.for(client) : null;
  }

  /** The target sending through `client` (one object per client). */
  for(client: CommunityClient): MirrorTarget {
    let target = this.#targets.get(client);
    if (!target) {
      // The worker has de-identified already; applied again here so no caller can skip it.
      target = {
        insert: async (context: Context) => {
          const shared = communityContext(context);
          if (shared) await this.#send(() => client.insert(shared), { kind: 'insert', context: shared });
        },
        upsertAnswer: async (input: LearnInput) => {
          const shared = communityLearnInput(input);
          if (shared) await this.#send(() => client.upsertAnswer(shared), { kind: 'upsert', input: shared });
        },
      };
      this.#targets.set(client, target);
    }
    return target;
  }

  async #send(contribute: () => Promise<ContributeOutcome>, item: RetryItem): Promise<void> {
    // The hub is away: a new contribution waits behind the others rather than trying again.
    if (this.retry.unreachable) {
      this.retry.add(item);
      return;
    }
    let outcome: ContributeOutcome;
    try {
      outcome = await contribute();
    } catch (error) {
      this.counters.failed++;
      this.#log.warn('mirror', { error: errorMessage(error) }, 'community contribution failed; it will be retried');
      this.retry.add(item, true);
      return;
    }
    if (outcome === 'ok') {
      this.counters.accepted++;
      return;
    }
    this.counters.refused++;
    this.retry.add(item);
  }
}
