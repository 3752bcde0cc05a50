/**
 * A history seed (docs/guide/groups.md#learning-from-history): reads a group's past messages
 * page by page through `get_group_msg_history`, back to the chosen depth, at most one call per
 * HISTORY_SEED.pageIntervalMs so the protocol side is not flooded, then offers them oldest first
 * to a HistoryLearner, waiting whenever the learning queue fills so nothing is shed for pressure.
 * Nothing is sent. The accounts are tried in turn until one answers; an implementation without
 * the action ends the seed as `unsupported`. Cancelling (the signal) stops at the next step and
 * reports what was done.
 */
import type { ChatHistory, HistoryMessage } from '../ports/chat.ts';
import type { HistoryLearner, HistoryOutcome } from './history-learn.ts';
import { HISTORY_SEED } from './limits.ts';

export interface SeedCounts {
  /** Messages read from the history (at most the depth). */
  fetched: number;
  learned: number;
  skipped: number;
  /** Skipped messages by reason. */
  skippedBy: Partial<Record<Exclude<HistoryOutcome, 'learned'>, number>>;
}

export type SeedProgress =
  | { readonly step: 'fetching'; readonly fetched: number; readonly depth: number }
  | { readonly step: 'learning'; readonly done: number; readonly total: number; readonly counts: SeedCounts };

export type SeedResult =
  | {
      readonly kind: 'done' | 'cancelled';
      readonly selfId: number;
      readonly counts: SeedCounts;
      /** Unix seconds of the newest message offered (0: none). */
      readonly offeredUntil: number;
    }
  | { readonly kind: 'unsupported'; readonly selfId: number; readonly detail: string }
  | { readonly kind: 'no-account' };

export interface SeedOptions {
  history: ChatHistory;
  /** The accounts that may read the group, in the order to try them. */
  selfIds: readonly number[];
  groupId: number;
  depth: number;
  /** Unix seconds: only messages said after it are read (an earlier seed learned the rest). */
  after?: number;
  learner: HistoryLearner;
  /** 0..1: how full the learning queue is against its pressure level. */
  queuePressure: () => number;
  /** Waits `ms` (resolves early when the signal aborts). */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  signal: AbortSignal;
  report: (progress: SeedProgress) => void;
  pageIntervalMs?: number;
}

export async function seedHistory(options: SeedOptions): Promise<SeedResult> {
  const counts: SeedCounts = { fetched: 0, learned: 0, skipped: 0, skippedBy: {} };
  const first = await firstPage(options);
  if (first.kind !== 'page') return first;
  const messages = await collect(options, first.selfId, first.messages);
  counts.fetched = messages.length;
  let offeredUntil = 0;
  const end = (kind: 'done' | 'cancelled'): SeedResult => ({ kind, selfId: first.selfId, counts, offeredUntil });
  if (options.signal.aborted) return end('cancelled');
  for (const [index, item] of messages.entries()) {
    while (options.queuePressure() > HISTORY_SEED.learnPressureMax && !options.signal.aborted) {
      await options.sleep(HISTORY_SEED.learnWaitMs, options.signal);
    }
    if (options.signal.aborted) return end('cancelled');
    const outcome = await options.learner.offer(item.message);
    offeredUntil = Math.max(offeredUntil, item.message.time);
    if (outcome === 'learned') counts.learned++;
    else {
      counts.skipped++;
      counts.skippedBy[outcome] = (counts.skippedBy[outcome] ?? 0) + 1;
    }
    const done = index + 1;
    if (done % HISTORY_SEED.progressEvery === 0 || done === messages.length)
      options.report({ step: 'learning', done, total: messages.length, counts });
  }
  return end('done');
}

type FirstPage =
  | { kind: 'page'; selfId: number; messages: readonly HistoryMessage[] }
  | Exclude<SeedResult, { kind: 'done' | 'cancelled' }>;

/** The newest page, from the first account that answers; the last error when none does. */
async function firstPage(options: SeedOptions): Promise<FirstPage> {
  let unsupported: FirstPage | undefined;
  let failure: unknown;
  for (const selfId of options.selfIds) {
    try {
      const page = await options.history.groupHistory(selfId, options.groupId, 0, pageCount(options.depth, 0));
      if (page.kind === 'page') return { kind: 'page', selfId, messages: page.messages };
      unsupported ??= { kind: 'unsupported', selfId, detail: page.detail };
    } catch (error) {
      failure = error;
    }
  }
  if (unsupported) return unsupported;
  if (failure !== undefined) throw failure;
  return { kind: 'no-account' };
}

/** Pages back from the newest until the depth, the history's start, or a cancel; oldest first. */
async function collect(
  options: SeedOptions,
  selfId: number,
  newest: readonly HistoryMessage[],
): Promise<HistoryMessage[]> {
  const byId = new Map<number, HistoryMessage>();
  const after = options.after ?? 0;
  let page = newest;
  for (;;) {
    let fresh = 0;
    for (const item of page) {
      if (byId.has(item.message.messageId) || item.message.time <= after) continue;
      byId.set(item.message.messageId, item);
      fresh++;
    }
    options.report({ step: 'fetching', fetched: Math.min(byId.size, options.depth), depth: options.depth });
    const oldest = page[0];
    const reachedSeeded = oldest !== undefined && oldest.message.time <= after;
    if (fresh === 0 || !oldest || reachedSeeded || byId.size >= options.depth || options.signal.aborted) break;
    await options.sleep(options.pageIntervalMs ?? HISTORY_SEED.pageIntervalMs, options.signal);
    if (options.signal.aborted) break;
    const next = await options.history.groupHistory(
      selfId,
      options.groupId,
      oldest.seq,
      pageCount(options.depth, byId.size),
    );
    if (next.kind !== 'page') break;
    page = next.messages;
  }
  const ordered = [...byId.values()].sort((a, b) => a.message.time - b.message.time || a.seq - b.seq);
  return ordered.slice(Math.max(0, ordered.length - options.depth));
}

/** What to ask for: the page size, or what is left of the depth plus the anchor message. */
function pageCount(depth: number, have: number): number {
  return Math.max(1, Math.min(HISTORY_SEED.pageSize, depth - have + (have > 0 ? 1 : 0)));
}
