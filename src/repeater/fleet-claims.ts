/**
 * The repeater's claim on a group message when several processes share one database
 * (docs/rules.md#fleet-claims). The claim starts as soon as the message is parsed; the repeater
 * waits for it at most `waitMs` (it runs alongside the keyword extraction and the in-process
 * duplicate check, so the wait is usually the rest of one database round trip).
 *
 * Claims asked while a statement is in flight wait for it and then go together in the next one
 * (at most FLEET_CLAIMS.batchMax keys): the claims of a process hold at most one connection whatever the
 * message rate, so they never add to pool pressure more than one caller does
 * (docs/rules.md#store-pressure), and one round trip serves a burst.
 *
 * A claim the store could not give in time, or at all, is `unsure`, and the message is then
 * handled here as if claimed: a store that fails is the database every learn and lookup uses, so
 * the fleet is degraded anyway, and a message answered twice is a smaller harm than a message
 * nobody learns or answers (a rare double learn only adds one to a count).
 */
import { LRUCache } from 'lru-cache';
import type { ClaimVerdict } from './fleet-claim.ts';
import type { Log } from '../common/log.ts';
import { RateLimitedLog } from '../common/log.ts';
import { TIMED_OUT, waitAtMost, withTimeout } from '../common/timeout.ts';
import { FLEET_CLAIMS } from './limits.ts';

/** Where claims are made: the database the fleet shares (src/store/message-claims.ts). */
export interface ClaimStore {
  /** The keys of `keys` that `by` now holds; the others are held, alive, by another process. */
  claimAll(keys: readonly string[], by: string): Promise<Set<string>>;
  /** Deletes expired claims. */
  prune(): Promise<unknown>;
}

export interface FleetClaimCounters {
  won: number;
  lost: number;
  /** The store failed: handled here. */
  failed: number;
  /** The store did not answer within the wait: handled here. */
  slow: number;
  /** Sum and largest of the claim round trips, in ms (for the mean on /health). */
  latencySumMs: number;
  latencyMaxMs: number;
}

export interface FleetClaimsOptions {
  /** This process, as recorded in `claimed_by`. */
  origin: string;
  log: Log;
  /** Milliseconds, monotonic. */
  monotonicMs: () => number;
  waitMs?: number;
}

interface QueuedClaim {
  key: string;
  settle: (won: boolean | 'failed') => void;
}

export class FleetClaims {
  readonly counters: FleetClaimCounters = { won: 0, lost: 0, failed: 0, slow: 0, latencySumMs: 0, latencyMaxMs: 0 };
  readonly #store: ClaimStore;
  readonly #options: FleetClaimsOptions;
  readonly #waitMs: number;
  readonly #warn: RateLimitedLog;
  readonly #memo = new LRUCache<string, Promise<ClaimVerdict>>({
    max: FLEET_CLAIMS.memoMax,
    ttl: FLEET_CLAIMS.memoTtlMs,
  });
  /** Claims waiting for the statement in flight to end. */
  #queued: QueuedClaim[] = [];
  #inFlight: Promise<void> | undefined;
  /** Claim statements not yet answered (more than one only when one hangs). */
  readonly #statements = new Set<Promise<void>>();
  /** The last claim asked per group. */
  readonly #order = new Map<number, Promise<ClaimVerdict>>();
  #lastPruneMs = Number.NEGATIVE_INFINITY;
  #pruning: Promise<void> | undefined;

  constructor(store: ClaimStore, options: FleetClaimsOptions) {
    this.#waitMs = options.waitMs ?? FLEET_CLAIMS.waitMs;
    this.#store = store;
    this.#options = options;
    this.#warn = new RateLimitedLog(options.log, options.monotonicMs);
  }

  /**
   * Never rejects; resolves within the wait, and never before the claim of the group's previous
   * message: the repeater then handles a group's messages in the order they arrived (each one's
   * predecessor is in the window before it), though the database may answer them out of order.
   */
  claim(key: string, groupId: number): Promise<ClaimVerdict> {
    const known = this.#memo.get(key);
    if (known) return known;
    const own = this.#claim(key);
    const prior = this.#order.get(groupId);
    const verdict = prior ? prior.then(() => own) : own;
    this.#order.set(groupId, verdict);
    void verdict.then(() => {
      if (this.#order.get(groupId) === verdict) this.#order.delete(groupId);
    });
    this.#memo.set(key, verdict);
    this.#pruneNow();
    return verdict;
  }

  /** Lets the claim statements and a prune under way finish (stop). */
  async stop(): Promise<void> {
    while (this.#inFlight) await this.#inFlight;
    await waitAtMost(Promise.all(this.#statements), this.#waitMs);
    await this.#pruning;
  }

  /** The store's answer for `key`, asked in the next batch; 'failed' when the statement failed. */
  #ask(key: string): Promise<boolean | 'failed'> {
    const answer = new Promise<boolean | 'failed'>((settle) => this.#queued.push({ key, settle }));
    if (!this.#inFlight) this.#inFlight = this.#sendBatches();
    return answer;
  }

  async #sendBatches(): Promise<void> {
    while (this.#queued.length > 0) {
      const sent = this.#send(this.#queued.splice(0, FLEET_CLAIMS.batchMax));
      this.#statements.add(sent);
      void sent.finally(() => this.#statements.delete(sent));
      // A statement that hangs holds the next batch up one wait at most: its claims are unsure by then.
      await waitAtMost(sent, this.#waitMs);
    }
    this.#inFlight = undefined;
  }

  async #send(batch: QueuedClaim[]): Promise<void> {
    try {
      const won = await this.#store.claimAll(
        batch.map((claim) => claim.key),
        this.#options.origin,
      );
      for (const claim of batch) claim.settle(won.has(claim.key));
    } catch (error) {
      this.#warn.warn('fleet-claim', { error: String(error) }, 'a message claim failed; the message is handled here');
      for (const claim of batch) claim.settle('failed');
    }
  }

  async #claim(key: string): Promise<ClaimVerdict> {
    const started = performance.now();
    const asked = this.#ask(key).then((won) => {
      if (won !== 'failed') {
        const ms = performance.now() - started;
        this.counters.latencySumMs += ms;
        this.counters.latencyMaxMs = Math.max(this.counters.latencyMaxMs, ms);
      }
      return won;
    });
    const won = await withTimeout(asked, this.#waitMs);
    if (won === TIMED_OUT) {
      this.counters.slow++;
      return 'unsure';
    }
    if (won === 'failed') {
      this.counters.failed++;
      return 'unsure';
    }
    if (won) this.counters.won++;
    else this.counters.lost++;
    return won ? 'won' : 'lost';
  }

  /** Expired claims go about once a minute, from whichever process claims then. */
  #pruneNow(): void {
    const now = this.#options.monotonicMs();
    if (this.#pruning || now - this.#lastPruneMs < FLEET_CLAIMS.pruneEveryMs) return;
    this.#lastPruneMs = now;
    this.#pruning = this.#store
      .prune()
      .then(
        () => undefined,
        (error: unknown) =>
          this.#warn.warn('fleet-claim-prune', { error: String(error) }, 'pruning message claims failed'),
      )
      .finally(() => {
        this.#pruning = undefined;
      });
  }
}

/** The counters as `/health` reports them. */
export function fleetClaimsHealth(claims: FleetClaims): {
  won: number;
  lost: number;
  failed: number;
  slow: number;
  mean_ms: number;
  max_ms: number;
} {
  const { won, lost, failed, slow, latencySumMs, latencyMaxMs } = claims.counters;
  const answered = won + lost + slow;
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return {
    won,
    lost,
    failed,
    slow,
    mean_ms: answered === 0 ? 0 : round(latencySumMs / answered),
    max_ms: round(latencyMaxMs),
  };
}
