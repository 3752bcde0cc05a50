/**
 * The mirror worker's target over the community contribute endpoint (spec "Learning write path"
 * 6). The worker already de-identifies and takes the budget; the bodies are built with group 0
 * and no bans anyway (src/community/codec.ts), so nothing identifying can leave even if a caller
 * forgets.
 *
 * A refused or failed contribution is counted and logged at most once a minute, not thrown: during
 * a hub outage every learned phrase would otherwise log a line. Learning is not retried (the
 * backfill covers history).
 */
import type { Context, LearnInput } from '../domain/corpus.ts';
import { communityContext, communityLearnInput } from '../domain/deidentify.ts';
import type { MirrorTarget } from '../ports/remote-corpus.ts';
import { RateLimitedLog, type Log } from '../shared/log.ts';
import type { CommunityClient, ContributeOutcome } from './community-client.ts';

export interface MirrorTargetCounters {
  accepted: number;
  refused: number;
  failed: number;
}

export class CommunityMirrorTargets {
  readonly counters: MirrorTargetCounters = { accepted: 0, refused: 0, failed: 0 };
  readonly #targets = new WeakMap<CommunityClient, MirrorTarget>();
  readonly #log: RateLimitedLog;

  constructor(log: Log, now: () => number) {
    this.#log = new RateLimitedLog(log, now);
  }

  /** The target sending through `client` (one object per client). */
  for(client: CommunityClient): MirrorTarget {
    let target = this.#targets.get(client);
    if (!target) {
      target = {
        // The worker has de-identified already; applied again here so no caller can skip it.
        insert: async (context: Context) => {
          const shared = communityContext(context);
          if (shared) await this.#send(() => client.insert(shared));
        },
        upsertAnswer: async (input: LearnInput) => {
          const shared = communityLearnInput(input);
          if (shared) await this.#send(() => client.upsertAnswer(shared));
        },
      };
      this.#targets.set(client, target);
    }
    return target;
  }

  async #send(contribute: () => Promise<ContributeOutcome>): Promise<void> {
    let outcome: ContributeOutcome;
    try {
      outcome = await contribute();
    } catch (error) {
      this.counters.failed++;
      this.#log.warn(
        'mirror',
        { error: error instanceof Error ? error.message : String(error) },
        'community contribution failed',
      );
      return;
    }
    if (outcome === 'ok') this.counters.accepted++;
    else this.counters.refused++;
  }
}
