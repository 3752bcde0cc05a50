/**
 * The reminder scheduler (docs/agent-tasks.md#scheduler): sends each reminder in its group at its
 * time, once. Tasks live in the store, so they survive a restart (the first pass after a start
 * finds what fell due while the service was down) and every process of a fleet sees them; each
 * process sends only for the accounts connected to it, and the store's claim lets exactly one
 * process send a task. A pass runs at the soonest due time, at least every `pollMs` (tasks made
 * by another process), and at once after a task is made here.
 *
 * A task found more than `lateBoundMs` overdue is not sent but failed with reason `late`; one the
 * guard or the bans refuse, or whose group is off, is failed with that reason; one in a silenced
 * group waits (and may then run late). A send the platform refused is failed `send_failed`.
 */
import type { Clock } from '../../common/clock.ts';
import { errorMessage } from '../../common/errors.ts';
import type { Log } from '../../common/log.ts';
import { waitAtMost } from '../../common/timeout.ts';
import type { AgentTask, AgentTaskStore } from '../../store/agent-tasks-store.ts';
import { TASKS } from './limits.ts';

/** Why a reminder may not be said now: never (refused, the task fails), or not yet (wait). */
export type ReminderJudgement = 'send' | 'wait' | { refused: 'guarded' | 'banned' | 'group_off' };

/** Where reminders are said: the chat side of this process. */
export interface ReminderOutlet {
  /** The accounts connected to this process: only their reminders are sent here. */
  accounts(): readonly number[];
  judge(task: AgentTask): ReminderJudgement;
  /** Says the reminder in its group; throws when the platform refused it. */
  send(task: AgentTask): Promise<void>;
}

export type ScheduleRepository = Pick<AgentTaskStore, 'due' | 'claim' | 'fail' | 'expireLate' | 'nextDueAt'>;

export interface SchedulerOptions {
  store: ScheduleRepository;
  outlet: ReminderOutlet;
  clock: Clock;
  log: Log;
  lateBoundMs?: number;
  pollMs?: number;
}

export interface SchedulerCounters {
  sent: number;
  failed: number;
  late: number;
  /** Due tasks another process took first. */
  claimedElsewhere: number;
  passes: number;
  passFailures: number;
}

export class ReminderScheduler {
  readonly counters: SchedulerCounters = {
    sent: 0,
    failed: 0,
    late: 0,
    claimedElsewhere: 0,
    passes: 0,
    passFailures: 0,
  };
  readonly #options: SchedulerOptions;
  readonly #lateBoundMs: number;
  readonly #pollMs: number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #started = false;

  constructor(options: SchedulerOptions) {
    this.#options = options;
    this.#lateBoundMs = options.lateBoundMs ?? TASKS.lateBoundMs;
    this.#pollMs = options.pollMs ?? TASKS.pollMs;
  }

  /** One pass: give up what is too late, then send what is due for this process's accounts. */
  async tick(): Promise<void> {
    const { store, outlet, clock, log } = this.#options;
    const now = clock.nowMs();
    for (const task of await store.expireLate(now, this.#lateBoundMs)) {
      this.counters.late++;
      log.warn({ task: task.id, group: task.groupId, late_ms: now - task.dueAt }, 'reminder too late, not sent');
    }
    const accounts = outlet.accounts();
    for (const task of await store.due(now, accounts, TASKS.batch)) {
      const judgement = outlet.judge(task);
      if (judgement === 'wait') continue;
      const claimed = await store.claim(task.id, clock.nowMs());
      if (!claimed) {
        this.counters.claimedElsewhere++;
        continue;
      }
      if (judgement !== 'send') {
        await this.#fail(claimed, judgement.refused);
        continue;
      }
      try {
        await outlet.send(claimed);
        this.counters.sent++;
        log.info({ task: claimed.id, group: claimed.groupId }, 'reminder sent');
      } catch (error) {
        await this.#fail(claimed, 'send_failed', errorMessage(error));
      }
    }
  }

  async #fail(task: AgentTask, reason: string, detail?: string): Promise<void> {
    this.counters.failed++;
    this.#options.log.warn({ task: task.id, group: task.groupId, reason, detail }, 'reminder not sent');
    await this.#options.store.fail(task.id, reason, this.#options.clock.nowMs());
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.wake();
  }

  /** A pass soon (a task was made here, an account connected); joins one under way. */
  wake(): void {
    if (!this.#started) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#running = this.#pass().finally(() => {
      this.#running = undefined;
      if (this.#again) {
        this.#again = false;
        this.wake();
      }
    });
  }

  async #pass(): Promise<void> {
    let delay = this.#pollMs;
    try {
      this.counters.passes++;
      await this.tick();
      const now = this.#options.clock.nowMs();
      // Due tasks that wait (a silenced group, an account away) are looked at again by the poll.
      const next = await this.#options.store.nextDueAt(now, this.#options.outlet.accounts());
      if (next !== null) delay = Math.min(delay, next - now);
    } catch (error) {
      this.counters.passFailures++;
      this.#options.log.warn({ error: errorMessage(error) }, 'reminder pass failed');
    }
    if (!this.#started) return;
    this.#timer = setTimeout(() => this.wake(), Math.max(delay, 0));
    this.#timer.unref();
  }

  /** Stops the timer and waits for a pass under way, at most `deadlineMs`. */
  async stop(deadlineMs: number): Promise<void> {
    this.#started = false;
    this.#again = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#running) await waitAtMost(this.#running, deadlineMs);
  }
}
