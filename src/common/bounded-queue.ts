/**
 * A FIFO with a fixed capacity that never blocks the producer: `offer` on a full queue drops the
 * item and counts it (what is dropped by design is counted, never silent).
 */
export class BoundedQueue<T> {
  #items: T[] = [];
  #head = 0;
  #dropped = 0;
  #waiters: (() => void)[] = [];

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.#items.length - this.#head;
  }

  get dropped(): number {
    return this.#dropped;
  }

  /** 0..1: how full the queue is. */
  get fill(): number {
    return this.size / this.capacity;
  }

  /** Adds the item, or drops and counts it when full. Returns whether it was queued. */
  offer(item: T): boolean {
    if (this.size >= this.capacity) {
      this.#dropped++;
      return false;
    }
    this.#items.push(item);
    this.#waiters.shift()?.();
    return true;
  }

  take(): T | undefined {
    if (this.size === 0) return undefined;
    const item = this.#items[this.#head] as T;
    this.#head++;
    // Compact now and then so the array does not grow without bound.
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** Resolves when an item is available (at once if one is). */
  whenAvailable(): Promise<void> {
    if (this.size > 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Wakes every waiter (used on stop so workers can see they should exit). */
  wakeAll(): void {
    for (const waiter of this.#waiters.splice(0)) waiter();
  }
}
