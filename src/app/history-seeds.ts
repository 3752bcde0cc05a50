/**
 * Learning from history as console jobs (docs/guide/groups.md#learning-from-history): one seed
 * per group at a time (job kind `history_seed:<group>`), each followed by the 群组 page, each
 * cancellable; started by the console's write level and recorded in the activity log. The work
 * is src/repeater/history-seed.ts; this file words it as job codes with parameters
 * (`history_seed.*`, worded by the console) and picks the accounts to read with.
 */
import type { ActivityActor, ActivityRecorder } from '../domain/activity.ts';
import type { ChatHistory } from '../ports/chat.ts';
import type { BotStatus } from '../onebot/index.ts';
import type { Job } from '../ops/jobs/index.ts';
import { JobFailure, JobRegistry, type JobContext, type JobOutcome } from '../ops/jobs/index.ts';
import {
  HISTORY_SEED,
  HistoryLearner,
  seedHistory,
  type ChatControls,
  type HistoryLearnDeps,
  type SeedCounts,
} from '../repeater/index.ts';
import { defaultGroupConfig, type GroupConfig } from '../domain/chat-controls.ts';
import type { Clock } from '../common/clock.ts';
import type { Log } from '../common/log.ts';
import { errorMessage } from '../common/errors.ts';

const KIND_PREFIX = 'history_seed:';

export interface HistorySeedsOptions {
  history: ChatHistory;
  /** The accounts connected here, online first. */
  accounts: () => readonly number[];
  /** The repeater's state (Repeater.historyDeps). */
  learn: () => HistoryLearnDeps;
  queuePressure: () => number;
  /** Where a group's auto-seed setting is read and its seeded mark kept. */
  controls: Pick<ChatControls, 'group' | 'saveGroup'>;
  activity: ActivityRecorder;
  clock: Clock;
  log: Log;
  pageIntervalMs?: number;
}

export interface SeedStart {
  groupId: number;
  depth: number;
  actor: ActivityActor;
}

export class HistorySeeds {
  readonly #jobs: JobRegistry;
  /** The running seeds' cancels, by job id. */
  readonly #cancels = new Map<string, AbortController>();
  /** The latest seed per group (one entry per group ever seeded since start). */
  readonly #latest = new Map<number, Job>();

  constructor(private readonly options: HistorySeedsOptions) {
    this.#jobs = new JobRegistry({
      now: () => options.clock.nowMs(),
      onUnexpected: (job, error) =>
        options.log.error({ job_id: job.id, error: errorMessage(error) }, 'history seed failed'),
    });
  }

  /** Starts a seed of the group; throws JobBusyError while one runs there. */
  start({ groupId, depth, actor }: SeedStart): Job {
    const cancel = new AbortController();
    const job = this.#jobs.start(KIND_PREFIX + String(groupId), 'history-seed', (context) =>
      this.#run(groupId, depth, context, cancel.signal),
    );
    this.#cancels.set(job.id, cancel);
    this.#latest.set(groupId, job);
    const forget = job.subscribe(() => {
      if (!job.finished) return;
      this.#cancels.delete(job.id);
      forget();
    });
    void this.options.activity.record({
      kind: 'history_seed',
      actor,
      groupId,
      time: Math.floor(this.options.clock.nowMs() / 1000),
      params: { depth },
    });
    this.options.log.info({ groupId, depth, job_id: job.id }, 'learning from the group history');
    return job;
  }

  /** After a group's config was saved: switched on with auto-seed, its history is learned. */
  afterSave(before: GroupConfig, after: GroupConfig): void {
    if (autoSeeds(after) && !autoSeeds(before)) this.#auto(after.groupId, 'switched_on');
  }

  /** An account connected: each auto-seed group never seeded is seeded. */
  accountJoined(groups: readonly GroupConfig[]): void {
    for (const group of groups) {
      if (autoSeeds(group) && group.historySeededUntil === 0) this.#auto(group.groupId, 'account_joined');
    }
  }

  #auto(groupId: number, why: string): void {
    if (this.#jobs.active(KIND_PREFIX + String(groupId))) return;
    this.start({ groupId, depth: HISTORY_SEED.defaultDepth, actor: { kind: 'system', name: `history_seed.${why}` } });
  }

  /** Cancels the group's running seed; false when none runs. */
  cancel(groupId: number): boolean {
    const job = this.#jobs.active(KIND_PREFIX + String(groupId));
    const cancel = job && this.#cancels.get(job.id);
    if (!cancel) return false;
    cancel.abort();
    return true;
  }

  /** The latest seed of each group that had one since start. */
  list(): { groupId: number; job: Job }[] {
    return [...this.#latest].map(([groupId, job]) => ({ groupId, job }));
  }

  async stop(deadlineMs: number): Promise<void> {
    await this.#jobs.stop(deadlineMs);
  }

  async #run(groupId: number, depth: number, context: JobContext, cancelled: AbortSignal): Promise<JobOutcome> {
    const selfIds = this.options.accounts();
    if (selfIds.length === 0)
      throw new JobFailure('no account is connected', null, { code: 'history_seed.no_account', params: {} });
    const signal = AbortSignal.any([cancelled, context.signal]);
    const startedSec = Math.floor(this.options.clock.nowMs() / 1000);
    const after = this.options.controls.group(groupId).historySeededUntil;
    const result = await seedHistory({
      after,
      history: this.options.history,
      selfIds,
      groupId,
      depth,
      learner: new HistoryLearner(this.options.learn()),
      queuePressure: this.options.queuePressure,
      sleep: abortableSleep,
      signal,
      ...(this.options.pageIntervalMs !== undefined ? { pageIntervalMs: this.options.pageIntervalMs } : {}),
      report: (progress) => {
        if (progress.step === 'fetching') {
          const { fetched } = progress;
          const message = `read ${fetched} of ${depth} messages`;
          context.progress(5 + (45 * fetched) / depth, message, {
            code: 'history_seed.fetching',
            params: { fetched, depth },
          });
        } else {
          const { done, total, counts } = progress;
          context.progress(50 + (50 * done) / Math.max(1, total), `offered ${done} of ${total} messages`, {
            code: 'history_seed.learning',
            params: { done, total, learned: counts.learned, skipped: counts.skipped },
          });
        }
      },
    }).catch((error: unknown) => {
      const detail = errorMessage(error);
      throw new JobFailure(`reading the history failed: ${detail}`, null, {
        code: 'history_seed.failed',
        params: { detail },
      });
    });
    if (result.kind === 'no-account')
      throw new JobFailure('no account is connected', null, { code: 'history_seed.no_account', params: {} });
    if (result.kind === 'unsupported') {
      throw new JobFailure(
        `the implementation of account ${result.selfId} has no get_group_msg_history (${result.detail})`,
        { account: result.selfId, supported: false },
        { code: 'history_seed.unsupported', params: { account: result.selfId, detail: result.detail } },
      );
    }
    // Done: everything said before the start is learned (later messages are live); stopped: up to the last offered.
    const seededUntil = result.kind === 'done' ? startedSec : result.offeredUntil;
    if (seededUntil > after) this.options.controls.saveGroup(groupId, { historySeededUntil: seededUntil });
    const summary = resultOf(result.selfId, depth, result.counts);
    const params = { learned: result.counts.learned, skipped: result.counts.skipped, fetched: result.counts.fetched };
    if (result.kind === 'cancelled') {
      throw new JobFailure('cancelled', { ...summary, cancelled: true }, { code: 'history_seed.cancelled', params });
    }
    const message = `learned ${params.learned}, skipped ${params.skipped} of ${params.fetched} messages`;
    return { result: summary, message, text: { code: 'history_seed.done', params } };
  }
}

/** Whether the group learns from its history when switched on (its setting, learning on, not banned). */
function autoSeeds(group: GroupConfig): boolean {
  return group.historySeed && group.learn && !group.banned;
}

function resultOf(account: number, depth: number, counts: SeedCounts): Record<string, unknown> {
  return {
    account,
    depth,
    fetched: counts.fetched,
    learned: counts.learned,
    skipped: counts.skipped,
    skipped_by: { ...counts.skippedBy },
    supported: true,
  };
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The seeds of `chorus serve`: the chat side's accounts, repeater and learning queue. */
export function wireHistorySeeds(parts: {
  chat: { onebot: ChatHistory & { bots(): readonly BotStatus[] }; repeater: { historyDeps(): HistoryLearnDeps } };
  learning: { readonly queuePressure: number };
  controls: Pick<ChatControls, 'group' | 'saveGroup'>;
  activity: ActivityRecorder;
  clock: Clock;
  log: Log;
}): HistorySeeds {
  const { chat } = parts;
  return new HistorySeeds({
    history: chat.onebot,
    // Accounts that take actions, those reported online first (a heartbeat's `online: false` last).
    accounts: () =>
      chat.onebot
        .bots()
        .filter((bot) => bot.roles.some((role) => role !== 'Event'))
        .sort((a, b) => Number(b.online !== false) - Number(a.online !== false))
        .map((bot) => bot.selfId),
    learn: () => chat.repeater.historyDeps(),
    queuePressure: () => parts.learning.queuePressure,
    controls: parts.controls,
    activity: parts.activity,
    clock: parts.clock,
    log: parts.log,
  });
}

/** The seeds of a console without a chat side (tests, tools): no account, so a seed ends as `no_account`. */
export function noHistorySeeds(parts: { activity: ActivityRecorder; clock: Clock; log: Log }): HistorySeeds {
  return new HistorySeeds({
    history: { groupHistory: async () => ({ kind: 'unsupported', detail: 'no chat side in this process' }) },
    accounts: () => [],
    learn: () => {
      throw new Error('no chat side in this process');
    },
    queuePressure: () => 0,
    controls: { group: defaultGroupConfig, saveGroup: () => undefined },
    ...parts,
  });
}
