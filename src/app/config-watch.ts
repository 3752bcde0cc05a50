/**
 * Hand edits of chorus.toml and .env while the service runs (docs/rules.md#cfg-watch): the files
 * are read again, and a change sets off the same run of configuration reactions a console save
 * does, reported in the log by key (never by value) and counted on `/api/health`. An edit that does
 * not load (a syntax error, an unusable credential) changes nothing: the running configuration
 * stays and the log says why.
 */
import {
  ConfigFileError,
  ConfigFileWatch,
  ConfigListenerError,
  type ConfigChange,
  type ConfigReactions,
  type ConfigStore,
  type StepReport,
} from '../config/index.ts';
import { errorMessage } from '../common/errors.ts';
import type { Log } from '../common/log.ts';

/** An editor's save is a burst of events (write, rename, chmod); one reload after it settles. */
const DEBOUNCE_MS = 300;

export interface ConfigWatchHealth {
  /** Edits read again since start (whether or not a value changed). */
  reloads: number;
  /** Edits refused: the file did not load, the running configuration stayed. */
  reload_failed: number;
  /** The last edit that changed a value: when, which keys, which reaction steps failed. */
  last_change: { at_sec: number; changed_keys: string[]; failed_steps: string[] } | null;
}

export interface ConfigWatch {
  start(): void;
  stop(): Promise<void>;
  health(): ConfigWatchHealth;
}

export function watchConfigFiles(
  config: ConfigStore,
  reactions: Pick<ConfigReactions, 'handle'>,
  log: Log,
  nowMs: () => number,
): ConfigWatch {
  const state: ConfigWatchHealth = { reloads: 0, reload_failed: 0, last_change: null };
  const applied = (change: ConfigChange, steps: StepReport[]) => {
    const failed = steps.filter((step) => !step.ok).map((step) => step.step);
    state.last_change = {
      at_sec: Math.floor(nowMs() / 1000),
      changed_keys: [...change.changedKeys],
      failed_steps: failed,
    };
    const keys = change.changedKeys.join(', ');
    if (failed.length === 0) log.info({ keys: change.changedKeys }, `configuration file edited: applied ${keys}`);
    else log.warn({ keys: change.changedKeys, failed }, `configuration file edited: ${keys}; steps failed`);
  };
  const reload = async (): Promise<void> => {
    let change: ConfigChange | null;
    try {
      change = await config.reload();
    } catch (error) {
      if (error instanceof ConfigListenerError) {
        change = error.change;
      } else {
        state.reload_failed++;
        // A ConfigFileError names the file, line and key, never a value.
        const why = error instanceof ConfigFileError ? error.message : errorMessage(error);
        log.warn({ error: why }, 'configuration file edit not applied; the running configuration stays');
        return;
      }
    }
    state.reloads++;
    if (change === null) {
      log.info({}, 'configuration file edited: no value changed');
      return;
    }
    // The `config/changed` event started the run; this is its report, as a console save gets.
    applied(change, await reactions.handle(change));
  };
  const watcher = new ConfigFileWatch({
    projectDir: config.projectDir,
    debounceMs: DEBOUNCE_MS,
    changed: reload,
    unwatchable: (error) =>
      log.warn(
        { error: errorMessage(error) },
        'the project folder cannot be watched: edits of chorus.toml and .env apply at the next start',
      ),
  });
  return {
    start: () => watcher.start(),
    stop: () => watcher.stop(),
    health: () => ({ ...state, last_change: state.last_change && { ...state.last_change } }),
  };
}
