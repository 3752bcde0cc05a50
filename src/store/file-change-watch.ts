/**
 * SQLite's wake-up for the change feed (docs/rules.md#fleet-feed, #idle-quiet): every process on one
 * SQLite file writes its WAL, so a change to the database's files (seen through the folder, as the
 * WAL is created and cut) is the only moment a poll can find anything. `wake` is called at most
 * once per `minIntervalMs` however fast the writes come, so a busy service polls about once a
 * second as before and an idle one not at all. When the folder cannot be watched (no inotify
 * watches left), `start` says so and the feed keeps its regular poll.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Log } from '../common/log.ts';
import type { ChangeWakeUp } from './change-feed.ts';

export interface FileChangeWatchOptions {
  /** The SQLite database file; its -wal, -shm and -journal siblings count too. */
  file: string;
  wake: () => void;
  /** Milliseconds, monotonic. */
  monotonicMs: () => number;
  minIntervalMs: number;
  log: Log;
}

export class FileChangeWatch implements ChangeWakeUp {
  readonly #options: FileChangeWatchOptions;
  #watcher: FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  #lastWakeMs = Number.NEGATIVE_INFINITY;
  /** Whether the folder is watched (the feed polls on its regular interval when it is not). */
  watching = false;

  constructor(options: FileChangeWatchOptions) {
    this.#options = options;
  }

  /** While watching, every write wakes the feed: its poll is only a safety net. */
  hearsAll(): boolean {
    return this.watching;
  }

  async start(): Promise<void> {
    const name = basename(this.#options.file);
    try {
      this.#watcher = watch(dirname(this.#options.file), { persistent: false }, (_event, changed) => {
        // Some platforms do not name the file: any change in the folder may be ours then.
        if (changed === null || changed.startsWith(name)) this.#changed();
      });
      this.#watcher.on('error', (error) => this.#lost(error));
      this.watching = true;
    } catch (error) {
      this.#lost(error);
    }
  }

  async stop(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#watcher?.close();
    this.#watcher = undefined;
    this.watching = false;
  }

  #changed(): void {
    if (this.#timer) return;
    const wait = this.#lastWakeMs + this.#options.minIntervalMs - this.#options.monotonicMs();
    if (wait <= 0) return this.#wake();
    this.#timer = setTimeout(() => this.#wake(), wait);
    this.#timer.unref();
  }

  #wake(): void {
    this.#timer = undefined;
    this.#lastWakeMs = this.#options.monotonicMs();
    this.#options.wake();
  }

  #lost(error: unknown): void {
    this.watching = false;
    this.#watcher?.close();
    this.#watcher = undefined;
    this.#options.log.warn(
      { error: String(error) },
      'the database folder cannot be watched: changes from other processes arrive at the regular poll',
    );
  }
}
