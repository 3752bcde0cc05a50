/**
 * Watches the project folder for hand edits of chorus.toml and .env (docs/rules.md#cfg-watch). The
 * folder is watched, not the files: editors save by writing a new file and renaming it over the
 * old one, which a watch on the old file would never see. Events are debounced (an editor's save
 * is several events) and handled one at a time; an edit during a handling is handled after it.
 */
import { watch, type FSWatcher } from 'node:fs';
import { ENV_FILE, PROJECT_FILE } from './load.ts';

const WATCHED = new Set([PROJECT_FILE, ENV_FILE]);

export interface ConfigFileWatchOptions {
  projectDir: string;
  /** Quiet time after the last event before `changed` runs. */
  debounceMs: number;
  /** Runs once per settled edit; its failures are its own to report. */
  changed: () => Promise<void>;
  /** The folder cannot be watched (no inotify watches left): edits apply at the next start. */
  unwatchable: (error: unknown) => void;
}

export class ConfigFileWatch {
  readonly #options: ConfigFileWatchOptions;
  #watcher: FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = false;

  constructor(options: ConfigFileWatchOptions) {
    this.#options = options;
  }

  start(): void {
    this.#stopped = false;
    try {
      this.#watcher = watch(this.#options.projectDir, { persistent: false }, (_event, name) => {
        // Some platforms do not name the file: any change in the folder may be one of ours then.
        if (name === null || WATCHED.has(name)) this.#schedule();
      });
      this.#watcher.on('error', (error) => this.#lost(error));
    } catch (error) {
      this.#lost(error);
    }
  }

  /** Stops watching and waits for a handling under way (so no reaction runs after the stop). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#watcher?.close();
    this.#watcher = undefined;
    await this.#running;
  }

  #schedule(): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#run(), this.#options.debounceMs);
    this.#timer.unref();
  }

  #run(): void {
    this.#timer = undefined;
    if (this.#running) {
      this.#again = true;
      return;
    }
    // `changed` reports its own failures; a rejection here would only be an unhandled one.
    this.#running = this.#options
      .changed()
      .catch(() => undefined)
      .finally(() => {
        this.#running = undefined;
        if (this.#again && !this.#stopped) {
          this.#again = false;
          this.#run();
        }
      });
  }

  #lost(error: unknown): void {
    this.#watcher?.close();
    this.#watcher = undefined;
    this.#options.unwatchable(error);
  }
}
