/**
 * Adds up each decision into the day's counts of its account and group in memory and writes them
 * to `console_daily_stats` every few seconds in one unit of work (src/store/daily-stats.ts), so
 * the reply path never waits on the database (src/common/batch-writer.ts: bounded, drops counted,
 * what is pending written on stop). A day is the server's local day.
 */
import type { RepeaterDecision } from '../repeater/index.ts';
import { BatchWriter } from '../common/batch-writer.ts';
import { errorMessage } from '../common/errors.ts';
import type { Log } from '../common/log.ts';
import { DAILY_COUNTS, type DailyCount, type DailyQuery, type DailyRow } from '../store/daily-stats.ts';
import type { DailyStatsStore as Store } from '../store/daily-stats.ts';

const FLUSH_EVERY_MS = 5_000;
const MAX_PENDING = 10_000;

export class DailyStatsBuffer {
  readonly #writer: BatchWriter<DailyRow>;
  /** The current local day and when it began and ends (formatting a date per message is not free). */
  #day = { name: '', fromMs: 0, untilMs: 0 };

  readonly #store: Pick<Store, 'add' | 'list'>;

  constructor(store: Pick<Store, 'add' | 'list'>, log: Log, flushEveryMs = FLUSH_EVERY_MS) {
    this.#store = store;
    this.#writer = new BatchWriter({
      write: (batch) => store.add(batch),
      flushEveryMs,
      maxPending: MAX_PENDING,
      failed: (rows, error) => log.warn({ rows, error: errorMessage(error) }, 'daily statistics could not be written'),
    });
  }

  get counters(): BatchWriter<DailyRow>['counters'] {
    return this.#writer.counters;
  }

  record(decision: RepeaterDecision, atMs: number): void {
    const notCounted = ['self', 'duplicate-id', 'duplicate-event', 'proactive-skipped', 'agent-chat-skipped'];
    if (notCounted.includes(decision.reason)) return;
    const day = this.#dayOf(atMs);
    const { selfId, groupId } = decision;
    this.#writer.add(
      `${day}|${selfId}|${groupId}`,
      () => ({ day, selfId, groupId, ...zeroCounts() }),
      (row) => {
        // A proactive line answers no message: counted apart, never as one received.
        // A model answer follows its message's own decision, which counted the message already.
        if (decision.reason !== 'proactive' && decision.reason !== 'agent-chat') row.received++;
        const kind = replyKind(decision);
        if (kind) row[kind]++;
        if (decision.learn === 'queued') row.learn_queued++;
        if (decision.outcome === 'banned') row.bans++;
      },
    );
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
    return this.#writer.pending().map((row) => ({ ...row }));
  }

  /** The stored rows of the query with the counts not written yet added (what the console reads). */
  async list(query: DailyQuery): Promise<DailyRow[]> {
    const wanted = (row: DailyRow) =>
      row.day >= query.start &&
      row.day <= query.end &&
      (query.selfId === undefined || row.selfId === query.selfId) &&
      (query.groupId === undefined || row.groupId === query.groupId);
    return mergeDailyRows(await this.#store.list(query), this.pendingRows().filter(wanted));
  }

  /** Writes what is pending (one unit of work); never throws. */
  flush(): Promise<void> {
    return this.#writer.flush();
  }

  stop(): Promise<void> {
    return this.#writer.stop();
  }
}

function zeroCounts(): Record<DailyCount, number> {
  return Object.fromEntries(DAILY_COUNTS.map((name) => [name, 0])) as Record<DailyCount, number>;
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
    case 'proactive':
      return 'replies_proactive';
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
