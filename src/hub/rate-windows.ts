/**
 * Fixed rate windows kept in memory (docs/hub.md#rates): a refused request costs a map lookup and
 * writes nothing, which is what keeps a flood from growing the database and its WAL. Each hub
 * process keeps its own windows, so N processes behind one address admit up to N times a limit
 * (per-deployment daily contributions stay in the database, shared by all processes).
 */
import { RATE_KEYS_MAX } from './limits.ts';

/** One limit: at most `limit` requests of `key` per fixed window of `windowSec`; 0 = no limit. */
export interface RateCheck {
  key: string;
  limit: number;
  windowSec: number;
  /** What the refusal is counted as on `GET /health`. */
  reason: RefusalReason;
  /** What its 429 says. */
  detail: string;
}

export const REFUSAL_REASONS = [
  'enroll_per_address_minute',
  'enroll_per_address_hour',
  'enroll_global',
  'contribute_per_minute',
  'contribute_per_day',
  'read_per_minute',
  'report_per_hour',
  'hot_upload_interval',
  'heartbeat_per_address',
  'heartbeat_interval',
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

export type Admission = { ok: true } | { ok: false; reason: RefusalReason; detail: string; retryAfterSec: number };

interface Window {
  start: number;
  count: number;
}

export class RateWindows {
  readonly #windows = new Map<string, Window>();
  readonly #maxKeys: number;
  /** Requests refused with 429, per reason, since start (`GET /health`). */
  readonly refused: Record<RefusalReason, number> = Object.fromEntries(
    REFUSAL_REASONS.map((reason) => [reason, 0]),
  ) as Record<RefusalReason, number>;

  constructor(maxKeys: number = RATE_KEYS_MAX) {
    this.#maxKeys = maxKeys;
  }

  /**
   * Admits a request only when every check has room, and then counts it in each; a refused
   * request is counted nowhere but in `refused`.
   */
  admit(checks: readonly RateCheck[], now: number): Admission {
    for (const check of checks) {
      if (check.limit <= 0) continue;
      const start = now - (now % check.windowSec);
      const window = this.#windows.get(`${check.windowSec}|${check.key}`);
      if (window !== undefined && window.start === start && window.count >= check.limit) {
        return this.refuse(check.reason, check.detail, start + check.windowSec - now);
      }
    }
    for (const check of checks) {
      if (check.limit <= 0) continue;
      const start = now - (now % check.windowSec);
      const key = `${check.windowSec}|${check.key}`;
      const window = this.#windows.get(key);
      if (window !== undefined && window.start === start) {
        window.count++;
        continue;
      }
      // Re-inserted, so the map's order is the order windows started in: the oldest go first.
      this.#windows.delete(key);
      this.#windows.set(key, { start, count: 1 });
      if (this.#windows.size > this.#maxKeys) {
        const oldest = this.#windows.keys().next().value;
        if (oldest !== undefined) this.#windows.delete(oldest);
      }
    }
    return { ok: true };
  }

  /** Counts a refusal decided elsewhere (a database window, an interval). */
  refuse(reason: RefusalReason, detail: string, retryAfterSec: number): Admission & { ok: false } {
    this.refused[reason]++;
    return { ok: false, reason, detail, retryAfterSec: Math.max(1, Math.ceil(retryAfterSec)) };
  }

  /** Requests counted in `key`'s current window of `windowSec` (the admin view of rates). */
  count(key: string, windowSec: number, now: number): number {
    const window = this.#windows.get(`${windowSec}|${key}`);
    return window !== undefined && window.start === now - (now % windowSec) ? window.count : 0;
  }

  /** Keys with a window open now, by prefix (e.g. `enroll|` for enrollments per address). */
  current(prefix: string, windowSec: number, now: number): { key: string; count: number }[] {
    const start = now - (now % windowSec);
    const found: { key: string; count: number }[] = [];
    const head = `${windowSec}|${prefix}`;
    for (const [key, window] of this.#windows) {
      if (window.start === start && key.startsWith(head))
        found.push({ key: key.slice(head.length), count: window.count });
    }
    return found.sort((a, b) => b.count - a.count);
  }
}

/** The rate limits the hub's config section sets (docs/hub.md#rates). */
export interface RateSettings {
  enrollPerMinute: number;
  enrollPerIpPerMinute: number;
  enrollPerIpPerHour: number;
  contributionsPerMinute: number;
  heartbeatPerIpPerMinute: number;
  reportsPerHour: number;
}

const MINUTE = 60;
const HOUR = 3600;

/** An enrollment: all addresses per minute, this address per minute and per hour. */
export function enrollChecks(settings: RateSettings, address: string): RateCheck[] {
  const key = `enroll|${address}`;
  return [
    {
      key: 'enroll',
      limit: settings.enrollPerMinute,
      windowSec: MINUTE,
      reason: 'enroll_global',
      detail: `enroll limit reached: ${settings.enrollPerMinute} per minute from all addresses`,
    },
    {
      key,
      limit: settings.enrollPerIpPerMinute,
      windowSec: MINUTE,
      reason: 'enroll_per_address_minute',
      detail: `enroll limit reached: ${settings.enrollPerIpPerMinute} per minute`,
    },
    {
      key,
      limit: settings.enrollPerIpPerHour,
      windowSec: HOUR,
      reason: 'enroll_per_address_hour',
      detail: `enroll limit reached: ${settings.enrollPerIpPerHour} per hour`,
    },
  ];
}

/** A contribution of one deployment, per minute (its day is counted in the database). */
export function contributeCheck(settings: RateSettings, deploymentId: string): RateCheck {
  const limit = settings.contributionsPerMinute;
  const detail = `contribution limit reached: ${limit} per minute`;
  return { key: `contribute|${deploymentId}`, limit, windowSec: MINUTE, reason: 'contribute_per_minute', detail };
}

/** An open heartbeat from one address. */
export function heartbeatCheck(settings: RateSettings, address: string): RateCheck {
  const limit = settings.heartbeatPerIpPerMinute;
  const detail = `heartbeat limit reached: ${limit} per minute`;
  return { key: `heartbeat|${address}`, limit, windowSec: MINUTE, reason: 'heartbeat_per_address', detail };
}

/** An answer report of one deployment (POST /report). */
export function reportCheck(settings: RateSettings, deploymentId: string): RateCheck {
  const limit = settings.reportsPerHour;
  const detail = `report limit reached: ${limit} per hour`;
  return { key: `report|${deploymentId}`, limit, windowSec: HOUR, reason: 'report_per_hour', detail };
}
