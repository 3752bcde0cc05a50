/**
 * Counts of what the chat side did, for the console's charts: per bot and minute (messages
 * received, replies, texts sent) for the last hours, and per hour (decisions by reason, replies,
 * learn writes, bundle-cache sources, decision latency percentiles) for the last week. Told every
 * decision; each is a few integer increments in fixed-size arrays, so watching costs the bot
 * nothing it could measure, and memory does not grow with traffic.
 */
import type { RepeaterDecision } from './decision.ts';

export interface ActivityOptions {
  /** Minutes of per-minute counts kept. */
  minutes: number;
  /** Hours of hourly history kept. */
  hours: number;
  /** Bots tracked per minute at most (a new one replaces the quietest). */
  maxBots: number;
}

export const ACTIVITY_DEFAULTS: ActivityOptions = { minutes: 360, hours: 168, maxBots: 64 };

export interface MinuteCounts {
  /** Unix ms of the minute's start. */
  readonly minute: number;
  readonly received: number;
  readonly replies: number;
  readonly sent: number;
}

/** Upper bounds of the latency histogram buckets, in ms (the last one is open). */
export const LATENCY_BUCKETS_MS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, Infinity] as const;

export interface HourStats {
  /** Unix ms of the hour's start. */
  readonly hour: number;
  readonly decisions: number;
  readonly byReason: Readonly<Record<string, number>>;
  readonly replies: number;
  readonly learnWrites: number;
  readonly cache: Readonly<Record<string, number>>;
  /** Decisions per latency bucket (LATENCY_BUCKETS_MS). */
  readonly latency: readonly number[];
}

interface MinuteSlot {
  minute: number;
  received: number;
  replies: number;
  sent: number;
}

interface HourSlot {
  hour: number;
  decisions: number;
  byReason: Map<string, number>;
  replies: number;
  learnWrites: number;
  cache: Map<string, number>;
  latency: number[];
}

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

export class ChatActivity {
  readonly #options: ActivityOptions;
  readonly #all: MinuteSlot[];
  readonly #bots = new Map<number, MinuteSlot[]>();
  readonly #hours: HourSlot[];

  constructor(options: Partial<ActivityOptions> = {}) {
    this.#options = { ...ACTIVITY_DEFAULTS, ...options };
    this.#all = emptyMinutes(this.#options.minutes);
    this.#hours = Array.from({ length: this.#options.hours }, () => emptyHour(-1));
  }

  record(decision: RepeaterDecision, atMs: number): void {
    const minute = Math.floor(atMs / MINUTE_MS) * MINUTE_MS;
    const replied = decision.outcome === 'replied' ? 1 : 0;
    const sent = replied ? decision.texts.length : 0;
    // Own messages echoed back, and the proactive check's own decisions, are not received traffic.
    const received =
      decision.reason === 'self' || decision.reason.startsWith('proactive') || decision.reason.startsWith('agent-')
        ? 0
        : 1;
    bump(slotOf(this.#all, minute), received, replied, sent);
    bump(slotOf(this.#botMinutes(decision.selfId), minute), received, replied, sent);

    const hour = Math.floor(atMs / HOUR_MS) * HOUR_MS;
    const index = Math.floor(hour / HOUR_MS) % this.#hours.length;
    let slot = this.#hours[index] as HourSlot;
    if (slot.hour !== hour) {
      slot = emptyHour(hour);
      this.#hours[index] = slot;
    }
    slot.decisions++;
    slot.byReason.set(decision.reason, (slot.byReason.get(decision.reason) ?? 0) + 1);
    slot.replies += replied;
    if (decision.learn === 'queued') slot.learnWrites++;
    if (decision.cache !== null) slot.cache.set(decision.cache, (slot.cache.get(decision.cache) ?? 0) + 1);
    let bucket = 0;
    while (decision.latencyMs > (LATENCY_BUCKETS_MS[bucket] as number)) bucket++;
    slot.latency[bucket] = (slot.latency[bucket] ?? 0) + 1;
  }

  /** The last `minutes` minutes up to `nowMs`, oldest first, for one bot or all (null). */
  minutes(selfId: number | null, minutes: number, nowMs: number): MinuteCounts[] {
    const slots = selfId === null ? this.#all : this.#bots.get(selfId);
    const last = Math.floor(nowMs / MINUTE_MS) * MINUTE_MS;
    const count = Math.min(minutes, this.#options.minutes);
    const out: MinuteCounts[] = [];
    for (let i = count - 1; i >= 0; i--) {
      const minute = last - i * MINUTE_MS;
      const slot = slots?.[Math.floor(minute / MINUTE_MS) % slots.length];
      out.push(
        slot && slot.minute === minute
          ? { minute, received: slot.received, replies: slot.replies, sent: slot.sent }
          : { minute, received: 0, replies: 0, sent: 0 },
      );
    }
    return out;
  }

  /** The bots with per-minute counts. */
  bots(): number[] {
    return [...this.#bots.keys()];
  }

  /** Hours with at least one decision, newest first, at most `limit`. */
  hours(limit: number): HourStats[] {
    return this.#hours
      .filter((slot) => slot.hour >= 0)
      .sort((a, b) => b.hour - a.hour)
      .slice(0, limit)
      .map((slot) => ({
        hour: slot.hour,
        decisions: slot.decisions,
        byReason: Object.fromEntries(slot.byReason),
        replies: slot.replies,
        learnWrites: slot.learnWrites,
        cache: Object.fromEntries(slot.cache),
        latency: [...slot.latency],
      }));
  }

  #botMinutes(selfId: number): MinuteSlot[] {
    let slots = this.#bots.get(selfId);
    if (slots) return slots;
    if (this.#bots.size >= this.#options.maxBots) {
      const quietest = [...this.#bots].sort((a, b) => newest(a[1]) - newest(b[1]))[0];
      if (quietest) this.#bots.delete(quietest[0]);
    }
    slots = emptyMinutes(this.#options.minutes);
    this.#bots.set(selfId, slots);
    return slots;
  }
}

/** The latency below which `share` (0..1) of the decisions fell: a bucket's upper bound. */
export function latencyPercentile(latency: readonly number[], share: number): number | null {
  const total = latency.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const wanted = Math.ceil(total * share);
  let seen = 0;
  for (let i = 0; i < latency.length; i++) {
    seen += latency[i] ?? 0;
    if (seen >= wanted) {
      const bound = LATENCY_BUCKETS_MS[i] as number;
      return Number.isFinite(bound) ? bound : (LATENCY_BUCKETS_MS.at(-2) as number);
    }
  }
  return null;
}

function emptyMinutes(count: number): MinuteSlot[] {
  return Array.from({ length: count }, () => ({ minute: -1, received: 0, replies: 0, sent: 0 }));
}

function emptyHour(hour: number): HourSlot {
  return {
    hour,
    decisions: 0,
    byReason: new Map(),
    replies: 0,
    learnWrites: 0,
    cache: new Map(),
    latency: LATENCY_BUCKETS_MS.map(() => 0),
  };
}

function slotOf(slots: MinuteSlot[], minute: number): MinuteSlot {
  const slot = slots[Math.floor(minute / MINUTE_MS) % slots.length] as MinuteSlot;
  if (slot.minute !== minute) {
    slot.minute = minute;
    slot.received = 0;
    slot.replies = 0;
    slot.sent = 0;
  }
  return slot;
}

function bump(slot: MinuteSlot, received: number, replies: number, sent: number): void {
  slot.received += received;
  slot.replies += replies;
  slot.sent += sent;
}

function newest(slots: MinuteSlot[]): number {
  return slots.reduce((best, slot) => Math.max(best, slot.minute), -1);
}
