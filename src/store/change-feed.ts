/**
 * Changes that every process sharing the database must apply at once (a console moderation drops
 * the cached context of a key in every bot process, not only the one that served the request).
 *
 * A publisher inserts a row (origin, topic, key) into `change_feed`; every process polls the table
 * about once a second for rows past the last id it saw and hands the others' rows to the topic's
 * subscribers. Polling works the same on both engines and needs no connection held open.
 *
 * Ids are assigned at insert but become visible at commit, so on PostgreSQL a row may appear
 * behind one with a higher id. Each poll therefore re-reads the last OVERLAP ids and skips the
 * ones it already handled: a publish is a single-row insert, committed long before 256 others.
 * Rows older than KEEP_SEC are deleted by whichever process polls past the prune interval.
 *
 * On PostgreSQL a publish also notifies the schema's channel in the same transaction, and a
 * process given `listen` (src/store/change-listener.ts) polls at once when told: a change applies
 * everywhere within milliseconds, and the poll stays as the fallback (docs/rules.md#fleet-feed).
 * On SQLite the wake-up is a change to the database's files (src/store/file-change-watch.ts): while
 * it watches, it hears every write, so the regular poll slows to a safety net and an idle process
 * reads nothing (docs/rules.md#idle-quiet).
 */
import { randomUUID } from 'node:crypto';
import { exec, first } from '../sql/program.ts';
import { readRows, writeOne } from '../sql/engine.ts';
import { sql } from 'kysely';
import { bound, compiled } from '../sql/query.ts';
import type { Log } from '../common/log.ts';
import { RateLimitedLog } from '../common/log.ts';
import type { StoreEngine } from './schema.ts';

/**
 * `corpus`: a context key changed; `learned`: a learn batch wrote these contexts (key: a JSON list
 * of their keywords, docs/rules.md#fleet-feed); `bot-config`: an account's console settings changed;
 * `group-config` / `user-config`: a group's or a user's controls changed (key: its number);
 * `blacklist`: a group's blacklist changed (key: the group number); `fleet-account`: an account
 * is connected to the publishing process (key: its number); `fleet-hello`: the publishing process
 * started and asks the others for their accounts (docs/rules.md#fleet-accounts).
 */
export type ChangeTopic =
  | 'corpus'
  | 'learned'
  | 'bot-config'
  | 'group-config'
  | 'user-config'
  | 'blacklist'
  | 'unban'
  | 'fleet-account'
  | 'fleet-hello';

export interface ChangeFeedCounters {
  published: number;
  received: number;
  publishFailed: number;
  pollFailed: number;
}

export interface ChangeFeedOptions {
  log: Log;
  /** Milliseconds, monotonic. */
  monotonicMs: () => number;
  /** Unix milliseconds. */
  nowMs: () => number;
  pollMs?: number;
  /** The poll interval while the listener hears every change (`hearsAll`); default a minute. */
  quietPollMs?: number;
  /** Starts listening for other processes' publishes, calling `wake` on each. */
  listen?: (wake: () => void) => ChangeWakeUp;
}

/** What wakes the feed between polls: PostgreSQL's NOTIFY, or the SQLite files changing. */
export interface ChangeWakeUp {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** True while every change wakes the feed, so polling is only a safety net. */
  hearsAll?(): boolean;
}

const OVERLAP = 256;
const BATCH = 1_000;
const KEEP_SEC = 600;
const PRUNE_EVERY_MS = 60_000;
const DEFAULT_POLL_MS = 1_000;
const QUIET_POLL_MS = 60_000;

type Subscriber = (key: string) => void;

export class ChangeFeed {
  /** This process, as it appears in the rows it publishes. */
  readonly origin = randomUUID();
  readonly counters: ChangeFeedCounters = { published: 0, received: 0, publishFailed: 0, pollFailed: 0 };
  readonly #engine: StoreEngine;
  readonly #options: ChangeFeedOptions;
  readonly #warn: RateLimitedLog;
  readonly #subscribers = new Map<string, Set<Subscriber>>();
  /** Ids handled within the overlap window. */
  readonly #handled = new Set<number>();
  #lastId = 0;
  /** What was in the table at start: already applied to the database this process reads. */
  #startId = 0;
  #lastPruneMs = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;
  #polling: Promise<void> | undefined;
  /** A wake-up came during a poll: poll once more after it (the row may have missed it). */
  #again = false;
  #stopped = false;
  readonly #listener: ChangeWakeUp | undefined;

  constructor(engine: StoreEngine, options: ChangeFeedOptions) {
    this.#engine = engine;
    this.#options = options;
    this.#warn = new RateLimitedLog(options.log, options.monotonicMs);
    this.#listener = options.listen?.(() => this.wake());
  }

  subscribe(topic: ChangeTopic, subscriber: Subscriber): () => void {
    const set = this.#subscribers.get(topic) ?? new Set();
    set.add(subscriber);
    this.#subscribers.set(topic, set);
    return () => set.delete(subscriber);
  }

  /** Tells the other processes; never throws (a failure is counted and logged). */
  async publish(topic: ChangeTopic, key: string): Promise<void> {
    const row = { origin: this.origin, topic, key, time: Math.floor(this.#options.nowMs() / 1000) };
    const db = this.#engine.db;
    // PostgreSQL: the row and its NOTIFY in one statement, so one round trip and one commit; the
    // notification is delivered at that commit, to the listeners of this schema only.
    const statement =
      this.#engine.kind === 'postgres'
        ? compiled(
            sql`WITH inserted AS (
                  INSERT INTO change_feed (origin, topic, "key", "time")
                  VALUES (${row.origin}, ${row.topic}, ${row.key}, ${row.time}) RETURNING id
                )
                SELECT pg_notify(left('chorus_change_feed_' || current_schema(), 63), '') FROM inserted`,
            db,
          )
        : bound(db.insertInto('change_feed').values(row));
    try {
      await this.#engine.run(function* () {
        yield* exec(statement);
      });
      this.counters.published++;
    } catch (error) {
      this.counters.publishFailed++;
      this.#warn.warn(
        'change-feed-publish',
        { error: String(error) },
        'a change could not be published to other processes',
      );
    }
  }

  /** Starts after what is already in the table: older changes are in the database already. */
  async start(): Promise<void> {
    const last = await this.#engine.run(() =>
      first(bound(this.#engine.db.selectFrom('change_feed').select((eb) => eb.fn.max('id').as('id')))),
    );
    this.#lastId = Number(last?.id ?? 0);
    this.#startId = this.#lastId;
    // Listening first, so the first poll is scheduled at the interval the listener allows.
    await this.#listener?.start();
    this.#schedule();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#listener?.stop();
    await this.#polling;
  }

  /** One poll now (tests; the timer calls it too). */
  poll(): Promise<void> {
    this.#polling ??= this.#pollOnce().finally(() => {
      this.#polling = undefined;
      if (this.#again) {
        this.#again = false;
        this.wake();
      }
    });
    return this.#polling;
  }

  /** Another process published: poll now, or once more after the poll under way. */
  wake(): void {
    if (this.#stopped) return;
    if (this.#polling) this.#again = true;
    else void this.poll();
  }

  #schedule(): void {
    if (this.#stopped) return;
    const quiet = this.#listener?.hearsAll?.() === true;
    const every = quiet ? (this.#options.quietPollMs ?? QUIET_POLL_MS) : (this.#options.pollMs ?? DEFAULT_POLL_MS);
    this.#timer = setTimeout(() => {
      void this.poll().finally(() => this.#schedule());
    }, every);
    this.#timer.unref();
  }

  async #pollOnce(): Promise<void> {
    const db = this.#engine.db;
    try {
      for (;;) {
        const floor = Math.max(0, this.#lastId - OVERLAP);
        const query = bound(
          db
            .selectFrom('change_feed')
            .select(['id', 'origin', 'topic', 'key'])
            .where('id', '>', floor)
            .orderBy('id')
            .limit(BATCH),
        );
        const found = await readRows(this.#engine, query);
        for (const row of found) this.#handle(Number(row.id), row.origin, row.topic, row.key);
        for (const id of this.#handled) if (id <= Math.max(0, this.#lastId - OVERLAP)) this.#handled.delete(id);
        if (found.length < BATCH) break;
      }
      await this.#pruneNow();
    } catch (error) {
      this.counters.pollFailed++;
      this.#warn.warn('change-feed-poll', { error: String(error) }, 'reading changes from other processes failed');
    }
  }

  #handle(id: number, origin: string, topic: string, key: string): void {
    if (id <= this.#startId || this.#handled.has(id)) return;
    this.#handled.add(id);
    this.#lastId = Math.max(this.#lastId, id);
    if (origin === this.origin) return;
    this.counters.received++;
    for (const subscriber of this.#subscribers.get(topic) ?? []) {
      try {
        subscriber(key);
      } catch (error) {
        this.#warn.warn('change-feed-subscriber', { topic, error: String(error) }, 'a change subscriber failed');
      }
    }
  }

  async #pruneNow(): Promise<void> {
    const now = this.#options.monotonicMs();
    if (now - this.#lastPruneMs < PRUNE_EVERY_MS) return;
    this.#lastPruneMs = now;
    const before = Math.floor(this.#options.nowMs() / 1000) - KEEP_SEC;
    const prune = bound(this.#engine.db.deleteFrom('change_feed').where('time', '<', before));
    await writeOne(this.#engine, prune);
  }
}
