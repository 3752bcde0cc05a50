/**
 * Fire-and-forget work with an owner (docs/rules.md#style-tasks): every task is tracked, its failure is
 * reported with a label, and `drain` waits for what is still running on stop.
 */
export class TaskSet {
  readonly #running = new Set<Promise<void>>();

  constructor(private readonly onError: (label: string, error: unknown) => void) {}

  get size(): number {
    return this.#running.size;
  }

  run(label: string, task: () => Promise<unknown>): void {
    const tracked: Promise<void> = Promise.resolve()
      .then(task)
      .then(
        () => undefined,
        (error: unknown) => this.onError(label, error),
      )
      .finally(() => this.#running.delete(tracked));
    this.#running.add(tracked);
  }

  /** Waits for the running tasks, at most `deadlineMs`; returns how many were still running. */
  async drain(deadlineMs: number): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, deadlineMs);
      timer.unref();
    });
    await Promise.race([Promise.allSettled([...this.#running]), deadline]);
    clearTimeout(timer);
    return this.#running.size;
  }
}
