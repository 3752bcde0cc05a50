/**
 * What a saved corpus configuration sets in motion, in this order (docs/rules.md#cfg-events): [write settings; clear the config cache — both done by the save itself], then
 * invalidate the whole find cache if remote-find or performance items changed; restart the
 * prefetch workers if remote find changed; clear the reply-performance and snapshot caches if
 * performance changed; re-register the backfill job if backfill changed; rebuild the shared
 * community repository. Every step is reported (`{step, ok, detail?}`); a failing step does not
 * stop the later ones and is never swallowed.
 *
 * `SaveReactions.handle` is the service's `config/changed` reaction for these keys, memoised per
 * change, so the console's save route receives the report of the very run the event started
 * instead of running the steps a second time.
 */
import {
  backfillSection,
  corpusSection,
  performanceSection,
  type ConfigChange,
  type ConfigKey,
} from '../config/index.ts';
import type { Log } from '../shared/log.ts';
import { errorMessage } from '../shared/errors.ts';

export const SAVE_STEPS = [
  'write_settings',
  'reload_config',
  'invalidate_find_cache',
  'restart_prefetch',
  'clear_reply_caches',
  'reregister_backfill',
  'rebuild_shared_repository',
  'apply_onebot',
] as const;
export type SaveStep = (typeof SAVE_STEPS)[number];

export interface StepReport {
  step: SaveStep;
  ok: boolean;
  /** True when the step did not apply to this change. */
  skipped?: boolean;
  detail?: string;
}

/** What a step may say about itself ("not running" for parts that do not exist yet). */
export interface ControlOutcome {
  detail?: string;
}

type Outcome = ControlOutcome | void;

/**
 * The corpus parts a configuration save touches, implemented by the composition root
 * (src/app/corpus-control.ts) from the running corpus and its community side; a part that does not
 * run in this process answers `{detail: 'not running'}`.
 */
export interface CorpusControl {
  invalidateFindCache(): Outcome | Promise<Outcome>;
  restartPrefetch(): Outcome | Promise<Outcome>;
  /** Applies the new reply settings: the reply-performance and snapshot caches start empty. */
  clearReplyCaches(): Outcome | Promise<Outcome>;
  reregisterBackfill(): Outcome | Promise<Outcome>;
  rebuildSharedRepository(): Outcome | Promise<Outcome>;
  /** Reports what the OneBot endpoint did with its new settings (applied as the config changed). */
  applyOnebot(): Outcome | Promise<Outcome>;
}

const REMOTE_FIND_KEY: ConfigKey = 'CHORUS_CORPUS_REMOTE_FIND_ENABLED';
const PERFORMANCE_KEYS: ReadonlySet<string> = new Set(performanceSection.fields.map((f) => f.env));
const BACKFILL_KEYS: ReadonlySet<string> = new Set(backfillSection.fields.map((f) => f.env));
const CORPUS_KEYS: ReadonlySet<string> = new Set([
  ...corpusSection.fields.map((f) => f.env),
  ...PERFORMANCE_KEYS,
  ...BACKFILL_KEYS,
]);

type ReactionStep = Exclude<SaveStep, 'write_settings' | 'reload_config'>;

interface Plan {
  step: ReactionStep;
  applies: (keys: ReadonlySet<string>) => boolean;
  run: (control: CorpusControl) => Outcome | Promise<Outcome>;
}

const PLAN: readonly Plan[] = [
  {
    step: 'invalidate_find_cache',
    applies: (keys) => keys.has(REMOTE_FIND_KEY) || [...keys].some((key) => PERFORMANCE_KEYS.has(key)),
    run: (control) => control.invalidateFindCache(),
  },
  {
    step: 'restart_prefetch',
    applies: (keys) => keys.has(REMOTE_FIND_KEY),
    run: (control) => control.restartPrefetch(),
  },
  {
    step: 'clear_reply_caches',
    applies: (keys) => [...keys].some((key) => PERFORMANCE_KEYS.has(key)),
    run: (control) => control.clearReplyCaches(),
  },
  {
    step: 'reregister_backfill',
    applies: (keys) => [...keys].some((key) => BACKFILL_KEYS.has(key)),
    run: (control) => control.reregisterBackfill(),
  },
  {
    step: 'rebuild_shared_repository',
    applies: (keys) => [...keys].some((key) => CORPUS_KEYS.has(key)),
    run: (control) => control.rebuildSharedRepository(),
  },
  {
    step: 'apply_onebot',
    applies: (keys) => [...keys].some((key) => key.startsWith('CHORUS_ONEBOT_')),
    run: (control) => control.applyOnebot(),
  },
];

export class SaveReactions {
  readonly #runs = new WeakMap<ConfigChange, Promise<StepReport[]>>();

  constructor(
    private readonly control: CorpusControl,
    private readonly log: Log,
  ) {}

  /** Runs the reactions to `change` once; later calls for the same change get the same report. */
  handle(change: ConfigChange): Promise<StepReport[]> {
    let run = this.#runs.get(change);
    if (run === undefined) {
      run = this.#run(new Set(change.changedKeys));
      this.#runs.set(change, run);
    }
    return run;
  }

  /** The report when nothing changed: every reaction skipped. */
  static unchanged(): StepReport[] {
    return PLAN.map(({ step }) => ({ step, ok: true, skipped: true, detail: 'no relevant change' }));
  }

  async #run(keys: ReadonlySet<string>): Promise<StepReport[]> {
    const reports: StepReport[] = [];
    for (const plan of PLAN) {
      if (!plan.applies(keys)) {
        reports.push({ step: plan.step, ok: true, skipped: true, detail: 'no relevant change' });
        continue;
      }
      try {
        const outcome = await plan.run(this.control);
        reports.push({ step: plan.step, ok: true, ...(outcome?.detail ? { detail: outcome.detail } : {}) });
        this.log.info({ step: plan.step }, 'configuration applied');
      } catch (error) {
        const detail = errorMessage(error);
        reports.push({ step: plan.step, ok: false, detail });
        this.log.warn({ step: plan.step, err: { message: detail } }, 'configuration step failed');
      }
    }
    return reports;
  }
}
