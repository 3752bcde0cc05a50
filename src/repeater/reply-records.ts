import { REPLIES } from './limits.ts';

/** One message the bot sent as a reply (docs/rules.md#rep-records): what it answered and with what. */
export interface ReplyRecord {
  readonly botId: number;
  /** Unix seconds. */
  readonly time: number;
  readonly preRawMessage: string;
  /** The context key the answer came from. */
  readonly preKeywords: string;
  /** The text sent. */
  readonly reply: string;
  /** The answer keywords of the text sent. */
  readonly replyKeywords: string;
  /** Known once the platform accepted the message. */
  messageId: number | null;
}

interface Bucket {
  records: ReplyRecord[];
  /** Monotonic ms until which this bot stays quiet in this group. */
  quietUntilMs: number;
  touchedMs: number;
}

/**
 * What each bot said in each group, newest last and bounded (docs/rules.md#rep-records), plus each bot's
 * cool-down per group. Bans resolve their target here first (docs/rules.md#bans).
 */
export class ReplyRecords {
  readonly #groups = new Map<number, Map<number, Bucket>>();

  constructor(private readonly now: () => number) {}

  add(groupId: number, record: ReplyRecord): ReplyRecord {
    const bucket = this.#bucket(groupId, record.botId);
    bucket.records.push(record);
    if (bucket.records.length > REPLIES.recordsPerBot)
      bucket.records.splice(0, bucket.records.length - REPLIES.recordsPerBot);
    return record;
  }

  latest(groupId: number, botId: number): ReplyRecord | undefined {
    return this.#groups.get(groupId)?.get(botId)?.records.at(-1);
  }

  /** The bot's newest `limit` records, newest first. */
  recent(groupId: number, botId: number, limit: number): ReplyRecord[] {
    const records = this.#groups.get(groupId)?.get(botId)?.records ?? [];
    return records.slice(-limit).reverse();
  }

  /** Newest first: the given bot's records, then the other bots' in this group (docs/rules.md#bans). */
  *search(groupId: number, botId: number): Generator<ReplyRecord> {
    const buckets = this.#groups.get(groupId);
    if (!buckets) return;
    const own = buckets.get(botId);
    if (own) for (let i = own.records.length - 1; i >= 0; i--) yield own.records[i] as ReplyRecord;
    for (const [other, bucket] of buckets) {
      if (other === botId) continue;
      for (let i = bucket.records.length - 1; i >= 0; i--) yield bucket.records[i] as ReplyRecord;
    }
  }

  byMessageId(groupId: number, messageId: number): ReplyRecord | undefined {
    for (const bucket of this.#groups.get(groupId)?.values() ?? []) {
      const found = bucket.records.find((record) => record.messageId === messageId);
      if (found) return found;
    }
    return undefined;
  }

  /** Starts the bot's cool-down in the group. */
  quiet(groupId: number, botId: number, forMs: number): void {
    this.#bucket(groupId, botId).quietUntilMs = this.now() + forMs;
  }

  isQuiet(groupId: number, botId: number): boolean {
    return this.quietLeftMs(groupId, botId) > 0;
  }

  /** How long the bot's cool-down in the group still lasts (0: none). */
  quietLeftMs(groupId: number, botId: number): number {
    const bucket = this.#groups.get(groupId)?.get(botId);
    return bucket === undefined ? 0 : Math.max(0, bucket.quietUntilMs - this.now());
  }

  /** Drops buckets untouched for `idleMs`; returns how many. */
  prune(idleMs: number): number {
    const cutoff = this.now() - idleMs;
    let dropped = 0;
    for (const [groupId, buckets] of this.#groups) {
      for (const [botId, bucket] of buckets) {
        if (bucket.touchedMs < cutoff) {
          buckets.delete(botId);
          dropped++;
        }
      }
      if (buckets.size === 0) this.#groups.delete(groupId);
    }
    return dropped;
  }

  #bucket(groupId: number, botId: number): Bucket {
    let buckets = this.#groups.get(groupId);
    if (!buckets) {
      buckets = new Map();
      this.#groups.set(groupId, buckets);
    }
    let bucket = buckets.get(botId);
    if (!bucket) {
      bucket = { records: [], quietUntilMs: 0, touchedMs: 0 };
      buckets.set(botId, bucket);
    }
    bucket.touchedMs = this.now();
    return bucket;
  }
}
