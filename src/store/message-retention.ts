/**
 * Retention of the group message log (docs/guide/backups.md): rows
 * older than `days`, and rows beyond the newest `maxRows`, are deleted in id windows, each its own
 * short transaction sized to a few milliseconds (AdaptiveChunk), with the event loop free between
 * them, so a million-row log is trimmed while the bot keeps answering.
 */
import { sql } from 'kysely';
import { AdaptiveChunk, yieldToEventLoop } from '../common/adaptive-chunk.ts';
import { first } from '../sql/program.ts';
import { readFirst, writeOne } from '../sql/engine.ts';
import { toNumberOr } from '../sql/numbers.ts';
import { bound } from '../sql/query.ts';
import type { StoreEngine } from './schema.ts';

export interface RetentionPolicy {
  /** Rows older than this many days go; null keeps any age. */
  days: number | null;
  /** Only the newest this many rows stay; null keeps any number. */
  maxRows: number | null;
}

export interface RetentionPreview {
  total_rows: number;
  by_age: number;
  by_rows: number;
  /** Rows the policy deletes (a row both too old and beyond the count is counted once). */
  to_delete: number;
}

const STEP_TARGET_MS = 4;

export class MessageRetention {
  constructor(private readonly engine: StoreEngine) {}

  async preview(policy: RetentionPolicy, nowSec: number): Promise<RetentionPreview> {
    const { cutoff, cutId } = await this.#bounds(policy, nowSec);
    const db = this.engine.db;
    const count = async (where: ReturnType<typeof sql<boolean>>): Promise<number> => {
      const query = bound(
        db
          .selectFrom('message')
          .select((eb) => eb.fn.countAll().as('n'))
          .where(where),
      );
      const row = await readFirst(this.engine, query);
      return toNumberOr(row?.n, 0);
    };
    const [total, byAge, byRows, toDelete] = await Promise.all([
      count(sql<boolean>`1 = 1`),
      count(sql<boolean>`time < ${cutoff}`),
      count(sql<boolean>`id < ${cutId}`),
      count(sql<boolean>`(time < ${cutoff} OR id < ${cutId})`),
    ]);
    return { total_rows: total, by_age: byAge, by_rows: byRows, to_delete: toDelete };
  }

  /** Deletes what the policy says, in short steps; returns the rows deleted. */
  async apply(
    policy: RetentionPolicy,
    nowSec: number,
    onProgress?: (deleted: number, scannedToId: number, maxId: number) => void,
    signal?: AbortSignal,
  ): Promise<number> {
    const { cutoff, cutId } = await this.#bounds(policy, nowSec);
    const db = this.engine.db;
    const range = await this.engine.run(() =>
      first(
        bound(db.selectFrom('message').select((eb) => [eb.fn.min('id').as('min_id'), eb.fn.max('id').as('max_id')])),
      ),
    );
    const maxId = Number(range?.max_id ?? 0);
    const step = new AdaptiveChunk(512, 16, 200_000, STEP_TARGET_MS);
    let deleted = 0;
    for (let from = Number(range?.min_id ?? 1) - 1; from < maxId;) {
      signal?.throwIfAborted();
      const to = Math.min(maxId, from + step.size);
      const query = bound(
        db
          .deleteFrom('message')
          .where('id', '>', from)
          .where('id', '<=', to)
          .where(sql<boolean>`(time < ${cutoff} OR id < ${cutId})`),
      );
      const started = performance.now();
      deleted += Number((await writeOne(this.engine, query)) ?? 0);
      step.record(performance.now() - started);
      from = to;
      onProgress?.(deleted, from, maxId);
      await yieldToEventLoop();
    }
    return deleted;
  }

  /** The time and id below which rows go (0 when that part of the policy is off). */
  async #bounds(policy: RetentionPolicy, nowSec: number): Promise<{ cutoff: number; cutId: number }> {
    const cutoff = policy.days === null ? 0 : nowSec - policy.days * 86_400;
    if (policy.maxRows === null) return { cutoff, cutId: 0 };
    const query = bound(
      this.engine.db
        .selectFrom('message')
        .select('id')
        .orderBy('id', 'desc')
        .offset(policy.maxRows - 1)
        .limit(1),
    );
    const row = await readFirst(this.engine, query);
    return { cutoff, cutId: row ? Number(row.id) : 0 };
  }
}
