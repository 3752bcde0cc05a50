/**
 * Owns the current configuration snapshot of one project folder: loads it, reloads it when
 * asked, saves console settings, and announces every change as `config/changed` so each
 * consumer reacts to its own keys (docs/rules.md#cfg-events).
 */
import { EventEmitter } from 'node:events';
import { dirname, resolve } from 'node:path';
import { ensurePrivateDir, writeFileAtomic } from './atomic-file.ts';
import { buildCatalog, type Catalog } from './catalog.ts';
import { checkAcrossKeys } from './cross-checks.ts';
import { loadSnapshot, readSources } from './load.ts';
import type { ConfigKey } from './sections/index.ts';
import { changedKeys, sameSnapshot, type ConfigSnapshot } from './snapshot.ts';
import type { EnvVars } from './sources/env.ts';
import { validateValues } from './validate.ts';

export interface ConfigChange {
  readonly previous: ConfigSnapshot;
  readonly current: ConfigSnapshot;
  /** Env keys whose resolved value differs, in declaration order; never empty. */
  readonly changedKeys: readonly ConfigKey[];
}

/**
 * The new configuration is in place, but `config/changed` listeners threw. Every listener ran
 * (one failing does not skip the others); `change` is what they were told.
 */
export class ConfigListenerError extends Error {
  override readonly name = 'ConfigListenerError';
  readonly change: ConfigChange;
  readonly failures: readonly unknown[];

  constructor(change: ConfigChange, failures: readonly unknown[]) {
    const messages = failures.map((failure) => (failure instanceof Error ? failure.message : String(failure)));
    super(`a configuration listener failed: ${messages.join('; ')}`, { cause: failures[0] });
    this.change = change;
    this.failures = failures;
  }
}

export interface ConfigEvents {
  'config/changed': [ConfigChange];
}

export interface ConfigStoreOptions {
  /** Folder holding chorus.toml and .env; default the working directory. */
  projectDir?: string;
  /** The process environment, passed in so tests (and src/config) never touch process.env. */
  env: EnvVars;
}

export class ConfigStore extends EventEmitter<ConfigEvents> {
  readonly projectDir: string;
  readonly #env: EnvVars;
  readonly #catalog: Catalog;
  #snapshot: ConfigSnapshot;
  /** Reloads and saves run one at a time, so a save never interleaves with a reload's reads. */
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(projectDir: string, env: EnvVars, catalog: Catalog, snapshot: ConfigSnapshot) {
    super();
    this.projectDir = projectDir;
    this.#env = env;
    this.#catalog = catalog;
    this.#snapshot = snapshot;
  }

  /** Throws `ConfigFileError` when chorus.toml, .env or the console file is malformed. */
  static async open(options: ConfigStoreOptions): Promise<ConfigStore> {
    const projectDir = resolve(options.projectDir ?? process.cwd());
    const catalog = buildCatalog();
    const snapshot = await loadSnapshot(catalog, projectDir, options.env);
    return new ConfigStore(projectDir, options.env, catalog, snapshot);
  }

  current(): ConfigSnapshot {
    return this.#snapshot;
  }

  /**
   * Re-reads every file. When a value changed, swaps the snapshot and emits `config/changed`;
   * listeners that throw make this call reject with `ConfigListenerError` after every listener ran
   * (the new snapshot is already in place). A malformed file rejects with `ConfigFileError` and
   * keeps the previous snapshot.
   */
  reload(): Promise<ConfigChange | null> {
    return this.#serial(() => this.#reloadNow());
  }

  /**
   * Validates every key first (`ConfigValidationError` naming the field; nothing is written),
   * merges into the console settings file, writes it atomically with mode 0600 and reloads.
   * A value of `null` removes the key from the file, so a lower source applies again.
   */
  saveConsoleSettings(values: Readonly<Record<string, unknown>>): Promise<ConfigChange | null> {
    return this.#serial(async () => {
      const accepted = validateValues(this.#catalog, values, { forConsole: true });
      checkAcrossKeys(accepted, this.#snapshot);
      const { consoleFile, consoleStored } = await readSources(this.#catalog, this.projectDir, this.#env);
      const merged = new Map<string, unknown>();
      for (const [name, value] of Object.entries(consoleStored)) {
        const entry = this.#catalog.entries.get(name.toUpperCase());
        // The file only ever holds keys this version can set; anything else was warned about.
        if (entry?.field.consoleSettable === true) merged.set(name.toUpperCase(), value);
      }
      for (const [key, value] of accepted) {
        if (value === null) merged.delete(key);
        else merged.set(key, value);
      }
      const document = Object.fromEntries([...merged].sort(([a], [b]) => a.localeCompare(b)));
      await ensurePrivateDir(dirname(consoleFile));
      await writeFileAtomic(consoleFile, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 });
      return this.#reloadNow();
    });
  }

  async #reloadNow(): Promise<ConfigChange | null> {
    const previous = this.#snapshot;
    const current = await loadSnapshot(this.#catalog, this.projectDir, this.#env);
    const changed = changedKeys(this.#catalog, previous, current);
    if (changed.length === 0) {
      // Same values: keep the old object unless a source or warning moved, so sourceOf stays true.
      if (!sameSnapshot(this.#catalog, previous, current)) this.#snapshot = current;
      return null;
    }
    this.#snapshot = current;
    const change: ConfigChange = Object.freeze({ previous, current, changedKeys: Object.freeze(changed) });
    this.#announce(change);
    return change;
  }

  /** Like `emit`, except that a throwing listener does not skip the ones after it. */
  #announce(change: ConfigChange): void {
    const failures: unknown[] = [];
    for (const listener of this.listeners('config/changed')) {
      try {
        listener(change);
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length > 0) throw new ConfigListenerError(change, failures);
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}
