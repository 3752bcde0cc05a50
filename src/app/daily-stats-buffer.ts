/**
 * Adds up each decision into the day's counts of its account and group in memory and writes them
 * to `console_daily_stats` every few seconds in one unit of work (src/store/daily-stats.ts), so
 * the reply path never waits on the database. Bounded: past MAX_PENDING distinct rows a new one
 * is dropped and counted; on stop what is pending is written. A day is the server's local day.
 */
import type { RepeaterDecision } from '../repeater/index.ts';
import type { Log } from '../shared/log.ts';
import { DAILY_COUNTS, type DailyCount, type DailyRow, type DailyStatsStore } from '../store/daily-stats.ts';

const FLUSH_EVERY_MS = 5_000;
const MAX_PENDING = 10_000;

export class DailyStatsBuffer {
  readonly counters = { recorded: 0, written: 0, dropped: 0, write_failed: 0 };
  #pending = new Map<string, DailyRow>();
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  /** The current local day and when it began and ends (formatting a date per message is not free). */
  #day = { name: '', fromMs: 0, untilMs: 0 };

  constructor(
    private readonly store: Pick<DailyStatsStore, 'add'>,
    private readonly log: Log,
    private readonly flushEveryMs = FLUSH_EVERY_MS,
  ) {}

  record(decision: RepeaterDecision, atMs: number): void {
    if (decision.reason === 'self' || decision.reason === 'duplicate-id' || decision.reason === 'duplicate-event')
      return;
    const day = this.#dayOf(atMs);
    const key = `${day}|${decision.selfId}|${decision.groupId}`;
    let row = this.#pending.get(key);
    if (!row) {
      if (this.#pending.size >= MAX_PENDING) {
        this.counters.dropped++;
        return;
      }
      row = {
        day,
        selfId: decision.selfId,
        groupId: decision.groupId,
        received: 0,
        replies_group: 0,
        replies_cross_group: 0,
        replies_community: 0,
        replies_repeat: 0,
        learn_queued: 0,
        bans: 0,
      };
      this.#pending.set(key, row);
    }
    row.received++;
    const kind = replyKind(decision);
    if (kind) row[kind]++;
    if (decision.learn === 'queued') row.learn_queued++;
    if (decision.outcome === 'banned') row.bans++;
    this.counters.recorded++;
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, this.flushEveryMs).unref();
  }

  #dayOf(atMs: number): string {
    if (atMs < this.#day.fromMs || atMs >= this.#day.untilMs) {
      const start = new Date(atMs);
      start.setHours(0, 0, 0, 0);
      const end = new Date(start);
      end.setDate(end.getDate() + 1);
      this.#day = { name: localDay(atMs), fromMs: start.getTime(), untilMs: end.getTime() };
    }
    return this.#day.name;
  }

  /** Counts not written yet (the console adds them to what it reads). */
  pendingRows(): DailyRow[] {
    return [...this.#pending.values()].map((row) => ({ ...row }));
  }

  /** Writes what is pending (one unit of work); never throws. */
  flush(): Promise<void> {
    const batch = [...this.#pending.values()];
    this.#pending = new Map();
    if (batch.length === 0) return this.#writing;
    this.#writing = this.#writing.then(async () => {
      try {
        await this.store.add(batch);
        this.counters.written += batch.length;
      } catch (error) {
        this.counters.write_failed += batch.length;
        this.log.warn({ rows: batch.length, error: String(error) }, 'daily statistics could not be written');
      }
    });
    return this.#writing;
  }

  async stop(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }
}

function replyKind(decision: RepeaterDecision): DailyCount | null {
  if (decision.outcome !== 'replied') return null;
  switch (decision.reason) {
    case 'repeat':
      return 'replies_repeat';
    case 'cross-group':
      return 'replies_cross_group';
    case 'community':
      return 'replies_community';
    default:
      return 'replies_group';
  }
}

/** YYYY-MM-DD of the server's local day. */
export function localDay(atMs: number): string {
  const date = new Date(atMs);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** Stored rows plus pending ones of the same day, account and group, added up. */
export function mergeDailyRows(stored: readonly DailyRow[], pending: readonly DailyRow[]): DailyRow[] {
  const byKey = new Map(stored.map((row) => [`${row.day}|${row.selfId}|${row.groupId}`, { ...row }]));
  for (const row of pending) {
    const key = `${row.day}|${row.selfId}|${row.groupId}`;
    const known = byKey.get(key);
    if (!known) byKey.set(key, { ...row });
    else for (const name of DAILY_COUNTS) known[name] += row[name];
  }
  return [...byKey.values()].sort((a, b) => a.day.localeCompare(b.day) || a.selfId - b.selfId || a.groupId - b.groupId);
}
