import { errorMessage } from './errors.ts';
import { TaskSet } from './task-set.ts';
import { deadlineFrom, waitAtMost } from './timeout.ts';

/** Something with a start and a stop (a worker, a listener, a connection, another scope). */
export interface LifecyclePart {
  readonly name: string;
  start?(): unknown;
  /** Told how long it has; the scope does not wait past what is left of its own deadline. */
  stop?(deadlineMs: number): unknown;
}

export interface PartOptions {
  /** What the part is told it has, out of what is left of the deadline (default: all of it). */
  budget?: (leftMs: number) => number;
}

/** What a stop did, part by part (a child scope's parts are named `child/part`). */
export interface StopReport {
  stopped: string[];
  /** Parts not done when their time was up: given up on, not waited for. */
  timedOut: string[];
  failed: { part: string; error: string }[];
  /** Labels of tracked tasks still running when the scope gave up on them. */
  tasksLeft: string[];
  /** This scope's own deadline ran out before everything stopped. */
  outOfTime: boolean;
}

export interface ScopeOptions {
  /** Told each tracked task that failed, and each late failure of a part given up on. */
  onTaskError: (label: string, error: unknown) => void;
  /** The parts run only while this holds; `follow()` checks it again (shard role groups). */
  active?: () => boolean;
  /** The deadline of stops nobody passed one to: `follow`, `restart`, a failed start. */
  stopDeadlineMs?: number;
  /** Monotonic milliseconds (default performance.now). */
  now?: () => number;
}

interface Entry {
  part: LifecyclePart;
  budget: ((leftMs: number) => number) | undefined;
  started: boolean;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

const DEFAULT_STOP_DEADLINE_MS = 5000;

/**
 * Start and stop written once (docs/rules.md#style-owner): parts start in the order they were
 * added (a failure stops those already started, in reverse, and rethrows), and stop in reverse
 * with ONE deadline shared by all: each is told what is left (or its `budget` of it), and one
 * that is not done when the deadline is up is reported and given up on, never hung on. A scope
 * owns a task set (docs/rules.md#style-tasks) drained after its parts; a scope is itself a part,
 * so scopes nest and their reports merge. With `active`, a scope is a group that runs only while
 * the condition holds (one shard-role check for all singleton jobs). Start, stop, `follow` and
 * `restart` run one at a time, and nothing starts again once a stop was asked for.
 */
export class LifecycleScope implements LifecyclePart {
  readonly tasks: TaskSet;
  readonly #entries: Entry[] = [];
  readonly #now: () => number;
  /** A start was asked for and no stop since. */
  #open = false;
  #serial: Promise<unknown> = Promise.resolve();

  constructor(
    readonly name: string,
    private readonly options: ScopeOptions,
  ) {
    this.tasks = new TaskSet(options.onTaskError);
    this.#now = options.now ?? (() => performance.now());
  }

  /** Whether any part is started. */
  get running(): boolean {
    return this.#entries.some((entry) => entry.started);
  }

  /** Adds a part to start at `start()` in this order. */
  add<P extends LifecyclePart>(part: P, options: PartOptions = {}): P {
    this.#entries.push({ part, budget: options.budget, started: false });
    return part;
  }

  /** Adds a part that is running already (opened while building): its stop is owed from now. */
  adopt<P extends LifecyclePart>(part: P, options: PartOptions = {}): P {
    this.#entries.push({ part, budget: options.budget, started: true });
    return part;
  }

  start(): Promise<void> {
    this.#open = true;
    return this.#serially(async () => {
      if (this.#active()) await this.#startParts();
    });
  }

  /** Stops the started parts in reverse within `deadlineMs`, then drains the tasks. */
  stop(deadlineMs: number = this.options.stopDeadlineMs ?? DEFAULT_STOP_DEADLINE_MS): Promise<StopReport> {
    this.#open = false;
    const deadline = deadlineFrom(this.#now, deadlineMs);
    const before = this.#serial;
    const run = (async () => {
      // A start, follow or restart under way ends first (it sees the stop and starts nothing more).
      await waitAtMost(before, deadline.left());
      return this.#stopParts(deadline);
    })();
    this.#serial = run.catch(() => undefined);
    return run;
  }

  /** Starts or stops the parts as `active` now says (its input changed). */
  follow(): Promise<void> {
    return this.#serially(async () => {
      if (!this.#open) return;
      if (this.#active()) await this.#startParts();
      else if (this.running) this.#reportLate(await this.#stopParts(this.#ownDeadline()));
    });
  }

  /** Calls a started part's start again (it must be idempotent): its own settings changed. */
  refresh(name: string): Promise<void> {
    return this.#serially(async () => {
      const entry = this.#entry(name);
      if (this.#open && entry.started) await entry.part.start?.();
    });
  }

  /** Stops a started part and starts it again, unless the scope is stopped meanwhile. */
  restart(name: string): Promise<void> {
    return this.#serially(async () => {
      const entry = this.#entry(name);
      if (!entry.started) return;
      entry.started = false;
      const report = emptyReport();
      await this.#stopOne(entry, this.#ownDeadline(), report);
      this.#reportLate(report);
      if (!this.#open || !this.#active()) return;
      await entry.part.start?.();
      entry.started = true;
    });
  }

  #active(): boolean {
    return this.options.active?.() ?? true;
  }

  #ownDeadline() {
    return deadlineFrom(this.#now, this.options.stopDeadlineMs ?? DEFAULT_STOP_DEADLINE_MS);
  }

  #entry(name: string): Entry {
    const entry = this.#entries.find((each) => each.part.name === name);
    if (!entry) throw new Error(`${this.name}: no part named ${name}`);
    return entry;
  }

  #serially(work: () => Promise<void>): Promise<void> {
    const run = this.#serial.then(work);
    this.#serial = run.catch(() => undefined);
    return run;
  }

  async #startParts(): Promise<void> {
    for (const entry of this.#entries) {
      if (entry.started) continue;
      // A stop asked for meanwhile: start nothing more, it stops what did start.
      if (!this.#open) return;
      try {
        await entry.part.start?.();
        entry.started = true;
      } catch (error) {
        this.#reportLate(await this.#stopParts(this.#ownDeadline()));
        throw error;
      }
    }
  }

  async #stopParts(deadline: { left(): number }): Promise<StopReport> {
    const report = emptyReport();
    for (const entry of [...this.#entries].reverse()) {
      if (!entry.started) continue;
      entry.started = false;
      await this.#stopOne(entry, deadline, report);
    }
    if ((await this.tasks.drain(deadline.left())) > 0) {
      report.tasksLeft.push(...this.tasks.labels());
      report.outOfTime = true;
    }
    return report;
  }

  async #stopOne(entry: Entry, deadline: { left(): number }, report: StopReport): Promise<void> {
    const { part } = entry;
    const left = deadline.left();
    const told = entry.budget ? Math.max(0, Math.min(left, entry.budget(left))) : left;
    const outcome = settle(() => part.stop?.(told));
    // A child scope keeps its deadline itself (every wait in it is bounded): no second timer.
    if (!(part instanceof LifecycleScope) && !(await waitAtMost(outcome, left))) {
      report.timedOut.push(part.name);
      report.outOfTime = true;
      // Given up on, not forgotten: a failure that comes later is still reported.
      void outcome.then((late) => {
        if (!late.ok) this.options.onTaskError(`stop ${part.name}`, late.error);
      });
      return;
    }
    const result = await outcome;
    if (!result.ok) report.failed.push({ part: part.name, error: errorMessage(result.error) });
    else if (part instanceof LifecycleScope) mergeChild(report, part.name, result.value as StopReport);
    else report.stopped.push(part.name);
  }

  #reportLate(report: StopReport): void {
    for (const name of report.timedOut) this.options.onTaskError(`stop ${name}`, new Error('ran out of time'));
    for (const { part, error } of report.failed) this.options.onTaskError(`stop ${part}`, new Error(error));
  }
}

/** Whether the report has anything but clean stops. */
export function stopWasClean(report: StopReport): boolean {
  return report.timedOut.length === 0 && report.failed.length === 0 && report.tasksLeft.length === 0;
}

function emptyReport(): StopReport {
  return { stopped: [], timedOut: [], failed: [], tasksLeft: [], outOfTime: false };
}

function mergeChild(report: StopReport, child: string, inner: StopReport): void {
  const named = (name: string) => `${child}/${name}`;
  report.stopped.push(...inner.stopped.map(named));
  report.timedOut.push(...inner.timedOut.map(named));
  report.failed.push(...inner.failed.map((each) => ({ part: named(each.part), error: each.error })));
  report.tasksLeft.push(...inner.tasksLeft.map(named));
}

function settle(run: () => unknown): Promise<Outcome> {
  try {
    return Promise.resolve(run()).then(
      (value): Outcome => ({ ok: true, value }),
      (error: unknown): Outcome => ({ ok: false, error }),
    );
  } catch (error) {
    return Promise.resolve({ ok: false, error });
  }
}
