/**
 * Claims on group messages for a fleet of `chorus serve` processes on one database
 * (docs/rules.md#fleet-claims): the first process to claim a message's fingerprint takes it
 * (logs, learns and may answer it); the others see that it was claimed elsewhere.
 *
 * One statement per batch of claims, outside a transaction (autocommit): a multi-row insert that
 * does nothing on a conflict with a live claim, and takes over a claim older than the time to live
 * (a row the prune has not reached yet must not block a message seen again much later). RETURNING
 * says which keys were won. The keys go in sorted, so two processes' batches that share keys take
 * their row locks in one order and cannot deadlock.
 */
import type { StoreEngine } from './schema.ts';
import { rows } from '../sql/program.ts';
import { writeOne } from '../sql/engine.ts';
import { bound } from '../sql/query.ts';

/** Claims live this long: far longer than any two deliveries of one message apart. */
export const CLAIM_TTL_MS = 600_000;

export class MessageClaimStore {
  constructor(
    private readonly engine: StoreEngine,
    /** Unix milliseconds. */
    private readonly nowMs: () => number,
    private readonly ttlMs: number = CLAIM_TTL_MS,
  ) {}

  /** Whether `by` now holds the claim on `key` (false: another process holds a live one). */
  async claim(key: string, by: string): Promise<boolean> {
    return (await this.claimAll([key], by)).has(key);
  }

  /** The keys of `keys` that `by` now holds; the others are held, alive, by another process. */
  async claimAll(keys: readonly string[], by: string): Promise<Set<string>> {
    const distinct = [...new Set(keys)].sort();
    if (distinct.length === 0) return new Set();
    const now = this.nowMs();
    const insert = bound(
      this.engine.db
        .insertInto('message_claims')
        .values(distinct.map((key) => ({ claim_key: key, claimed_by: by, claimed_at: now })))
        .onConflict((conflict) =>
          conflict
            .column('claim_key')
            .doUpdateSet((eb) => ({
              claimed_by: eb.ref('excluded.claimed_by'),
              claimed_at: eb.ref('excluded.claimed_at'),
            }))
            .where('message_claims.claimed_at', '<', now - this.ttlMs),
        )
        .returning('claim_key'),
    );
    // An insert returning the keys won: one statement, committed on its own.
    const won = await this.engine.run(() => rows(insert));
    return new Set(won.map((row) => row.claim_key));
  }

  /** Deletes expired claims; returns how many. */
  async prune(): Promise<number> {
    const before = this.nowMs() - this.ttlMs;
    const remove = bound(this.engine.db.deleteFrom('message_claims').where('claimed_at', '<', before));
    return writeOne(this.engine, remove);
  }
}
