/**
 * Entries collected in memory and written every few seconds in one call, so a hot path never waits
 * on the database: entries with the same key add up before they are written. Bounded: past
 * `maxPending` distinct keys a new entry is dropped and counted. A failed write is counted and
 * reported, never thrown; on stop what is pending is written.
 */
export interface BatchWriterOptions<V> {
  write(batch: V[]): Promise<void>;
  flushEveryMs: number;
  maxPending: number;
  /** Told when a write failed (the entries are counted as `write_failed`). */
  failed(entries: number, error: unknown): void;
}

export class BatchWriter<V> {
  readonly counters = { recorded: 0, written: 0, dropped: 0, write_failed: 0 };
  #pending = new Map<string, V>();
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(private readonly options: BatchWriterOptions<V>) {}

  /**
   * Adds to the entry of `key` (made by `create` when there is none): false when it was dropped
   * because the buffer is full.
   */
  add(key: string, create: () => V, update: (entry: V) => void): boolean {
    let entry = this.#pending.get(key);
    if (entry === undefined) {
      if (this.#pending.size >= this.options.maxPending) {
        this.counters.dropped++;
        return false;
      }
      entry = create();
      this.#pending.set(key, entry);
    }
    update(entry);
    this.counters.recorded++;
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, this.options.flushEveryMs).unref();
    return true;
  }

  /** The entries not written yet. */
  pending(): V[] {
    return [...this.#pending.values()];
  }

  /** Writes what is pending (one call, after any write still running); never throws. */
  flush(): Promise<void> {
    const batch = [...this.#pending.values()];
    this.#pending = new Map();
    if (batch.length === 0) return this.#writing;
    this.#writing = this.#writing.then(async () => {
      try {
        await this.options.write(batch);
        this.counters.written += batch.length;
      } catch (error) {
        this.counters.write_failed += batch.length;
        this.options.failed(batch.length, error);
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
