import { waitAtMost } from './timeout.ts';

/**
 * Fire-and-forget work with an owner (docs/rules.md#style-tasks): every task is tracked with a
 * label, its failure is reported with that label, and `drain` waits for what is still running on
 * stop. A `LifecycleScope` (lifecycle.ts) owns one and drains it when it stops.
 */
export class TaskSet {
  readonly #running = new Map<Promise<void>, string>();

  constructor(private readonly onError: (label: string, error: unknown) => void) {}

  get size(): number {
    return this.#running.size;
  }

  /** The labels of the tasks still running (a stop report names them). */
  labels(): string[] {
    return [...this.#running.values()];
  }

  /** Runs `task` on the next microtask (a synchronous throw is reported like a rejection). */
  run(label: string, task: () => Promise<unknown>): void {
    this.track(label, Promise.resolve().then(task));
  }

  /** Tracks work already under way (no deferral: event handlers keep their arrival order). */
  track(label: string, work: Promise<unknown>): void {
    const tracked: Promise<void> = work
      .then(
        () => undefined,
        (error: unknown) => this.onError(label, error),
      )
      .finally(() => this.#running.delete(tracked));
    this.#running.set(tracked, label);
  }

  /** Waits for the running tasks, at most `deadlineMs`; returns how many were still running. */
  async drain(deadlineMs: number): Promise<number> {
    if (this.#running.size === 0) return 0;
    await waitAtMost(Promise.allSettled([...this.#running.keys()]), deadlineMs);
    return this.#running.size;
  }
}
