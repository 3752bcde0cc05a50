/**
 * The one table of configuration reactions (docs/rules.md#cfg-events). Each part that follows a
 * setting declares a reaction next to itself: the sections and keys it follows, its step name, and
 * what to run. The composition root hands every part's reactions to one `ConfigReactions`, which
 * orders them by `REACTION_STEPS`, runs the ones a change concerns once each, and reports every
 * step; a failing step is reported and the others still run.
 */
import { errorMessage } from '../common/errors.ts';
import type { Log } from '../common/log.ts';
import type { ConfigChange } from './config-store.ts';
import { SECTIONS, type ConfigKey, type SectionId } from './sections/index.ts';

/**
 * Every reaction's step name, in the order they run. The first five are the corpus save order of
 * docs/rules.md#cfg-events; the rest follow.
 */
export const REACTION_STEPS = [
  'invalidate_find_cache',
  'restart_prefetch',
  'clear_reply_caches',
  'reregister_backfill',
  'rebuild_shared_repository',
  'sync_community_jobs',
  'apply_remote_budget',
  'reschedule_cleanup',
  'apply_repeater_settings',
  'restart_maintenance',
  'apply_onebot',
  'apply_logging',
] as const;
export type ReactionStep = (typeof REACTION_STEPS)[number];

/** A save reports writing and reloading first (ConfigStore does both), then every reaction. */
export const SAVE_STEPS = ['write_settings', 'reload_config', ...REACTION_STEPS] as const;
export type SaveStep = (typeof SAVE_STEPS)[number];

export interface StepReport {
  step: SaveStep;
  ok: boolean;
  /** True when the step did not concern this change. */
  skipped?: boolean;
  detail?: string;
}

/** What a step may say about itself. */
export interface ReactionOutcome {
  detail?: string;
}

export interface ConfigReaction {
  step: ReactionStep;
  /** Runs when a key of one of these sections changed… */
  sections?: readonly SectionId[];
  /** …or one of these keys. */
  keys?: readonly ConfigKey[];
  run(change: ConfigChange): ReactionOutcome | void | Promise<ReactionOutcome | void>;
}

const SECTION_OF: ReadonlyMap<string, SectionId> = new Map(
  SECTIONS.flatMap((section) => section.fields.map((field) => [field.env, section.id] as const)),
);

/** The one matching rule: a changed key concerns a reaction through its section or by name. */
export function concerns(reaction: Pick<ConfigReaction, 'sections' | 'keys'>, changedKeys: readonly string[]): boolean {
  return changedKeys.some((key) => {
    const section = SECTION_OF.get(key);
    return (
      (section !== undefined && reaction.sections?.includes(section) === true) ||
      reaction.keys?.includes(key as ConfigKey) === true
    );
  });
}

const NO_CHANGE = 'no relevant change';

export class ConfigReactions {
  readonly #table: readonly ConfigReaction[];
  readonly #runs = new WeakMap<ConfigChange, Promise<StepReport[]>>();
  readonly #inFlight = new Set<Promise<StepReport[]>>();

  constructor(
    table: readonly ConfigReaction[],
    private readonly log: Log,
  ) {
    const seen = new Set<ReactionStep>();
    for (const reaction of table) {
      if (seen.has(reaction.step)) throw new Error(`two configuration reactions named ${reaction.step}`);
      seen.add(reaction.step);
    }
    this.#table = [...table].sort((a, b) => REACTION_STEPS.indexOf(a.step) - REACTION_STEPS.indexOf(b.step));
  }

  /** The steps of the table, in the order they run. */
  get steps(): readonly ReactionStep[] {
    return this.#table.map((reaction) => reaction.step);
  }

  /**
   * Runs the reactions `change` concerns, in order, waiting for each; never rejects. The same
   * change runs once: a later call (the console's save after the `config/changed` event) gets the
   * report of that run. A step that answers synchronously runs synchronously, so the steps before
   * the first asynchronous one have run when the event returns.
   */
  handle(change: ConfigChange): Promise<StepReport[]> {
    let run = this.#runs.get(change);
    if (run === undefined) {
      const started = this.#run(change);
      run = started;
      this.#runs.set(change, started);
      this.#inFlight.add(started);
      void started.finally(() => this.#inFlight.delete(started));
    }
    return run;
  }

  /** Resolves when no run is going (a shutdown waits so no step restarts a part it stopped). */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
  }

  /** The report when nothing changed: every step skipped. */
  unchanged(): StepReport[] {
    return this.#table.map(({ step }) => ({ step, ok: true, skipped: true, detail: NO_CHANGE }));
  }

  /** Follows `source`'s changes with this table; returns the function that stops following. */
  follow(source: ConfigChangeSource): () => void {
    const listener = (change: ConfigChange) => void this.handle(change);
    source.on('config/changed', listener);
    return () => source.off('config/changed', listener);
  }

  async #run(change: ConfigChange): Promise<StepReport[]> {
    const reports: StepReport[] = [];
    for (const reaction of this.#table) {
      if (!concerns(reaction, change.changedKeys)) {
        reports.push({ step: reaction.step, ok: true, skipped: true, detail: NO_CHANGE });
        continue;
      }
      try {
        const result = reaction.run(change);
        const outcome = result instanceof Promise ? await result : result;
        reports.push({ step: reaction.step, ok: true, ...(outcome?.detail ? { detail: outcome.detail } : {}) });
        this.log.info({ step: reaction.step }, 'configuration applied');
      } catch (error) {
        const detail = errorMessage(error);
        reports.push({ step: reaction.step, ok: false, detail });
        this.log.warn({ step: reaction.step, err: { message: detail } }, 'configuration step failed');
      }
    }
    return reports;
  }
}

/** Where changes come from (ConfigStore, or a test's configuration). */
export interface ConfigChangeSource {
  on(event: 'config/changed', listener: (change: ConfigChange) => void): unknown;
  off(event: 'config/changed', listener: (change: ConfigChange) => void): unknown;
}
