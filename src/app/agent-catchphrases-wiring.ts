/**
 * The group's own voice, built for `chorus serve` (docs/agent-catchphrases.md): the store of
 * catchphrases, the miner over the group's corpus (with the repeater's command test, the guard
 * and the operator's choice about the community's answers), the daily mining in the primary
 * group, the console's port, and the style hints the model's prompt reads.
 */
import type { Clock } from '../common/clock.ts';
import type { Log } from '../common/log.ts';
import type { LifecycleScope } from '../common/lifecycle.ts';
import type { ConfigStore } from '../config/index.ts';
import { CatchphraseMiner } from '../agent/catchphrases/miner.ts';
import { CatchphraseMiningJob, MINING_JOB } from '../agent/catchphrases/mining-job.ts';
import type { CatchphrasesPort } from '../agent/catchphrases/port.ts';
import { CatchphraseHints } from '../agent/catchphrases/style-hints.ts';
import { errorMessage } from '../common/errors.ts';
import { isCommand } from '../repeater/bot-suspects.ts';
import { RepeaterMaintenance } from '../repeater/index.ts';
import { CatchphraseCorpus } from '../store/agent-catchphrases-corpus.ts';
import { CatchphraseStore } from '../store/agent-catchphrases-store.ts';
import type { LocalStore } from '../store/open-store.ts';
import { localDay } from './daily-stats-buffer.ts';

/** The daily mining starts this long after the maintenance hour, once the day's cleanup is done. */
const AFTER_MAINTENANCE_MS = 30 * 60_000;

export interface CatchphrasesWiring {
  /** The prompt's style hints (src/agent/parts.ts StyleHintSource): approved phrases only. */
  readonly hints: CatchphraseHints;
  /** The console routes' port (src/console/routes/agent-catchphrases.ts). */
  readonly port: CatchphrasesPort;
  readonly job: CatchphraseMiningJob;
}

export interface CatchphrasesWiringOptions {
  store: Pick<LocalStore, 'engine'>;
  config: Pick<ConfigStore, 'current'>;
  /** The singleton jobs' group (src/app/service.ts): the daily mining runs on the primary only. */
  primary: LifecycleScope;
  clock: Clock;
  log: Log;
}

export function wireCatchphrases(options: CatchphrasesWiringOptions): CatchphrasesWiring {
  const { config, clock, log } = options;
  const parts = catchphraseParts(options);
  const job = options.primary.add(
    new CatchphraseMiningJob({
      miner: parts.miner,
      groups: () =>
        parts.corpus.activeGroups(localDay(clock.nowMs() - MINING_JOB.activeDays * 86_400_000), MINING_JOB.maxGroups),
      nextDelayMs: () =>
        RepeaterMaintenance.delayUntilHour(clock.nowMs(), config.current().repeater.maintenanceHour) +
        AFTER_MAINTENANCE_MS,
      log,
    }),
  );
  return { hints: parts.hints, port: portOver(parts, (groupId) => job.mineNow(groupId)), job };
}

/**
 * The console's port in a process built without the chat side (the console alone, tests): the
 * same store and miner, mining when asked, no daily round.
 */
export function standaloneCatchphrases(options: Omit<CatchphrasesWiringOptions, 'primary'>): CatchphrasesPort {
  const parts = catchphraseParts(options);
  return portOver(parts, (groupId) => parts.miner.mine(groupId));
}

function catchphraseParts(options: Omit<CatchphrasesWiringOptions, 'primary'>) {
  const { config, clock, log } = options;
  const book = new CatchphraseStore(options.store.engine);
  const corpus = new CatchphraseCorpus(options.store.engine);
  const hints = new CatchphraseHints({
    book,
    nowMs: () => clock.monotonicMs(),
    onError: (error) => log.warn({ error: errorMessage(error) }, 'reading approved catchphrases failed'),
  });
  const miner = new CatchphraseMiner({
    corpus,
    book,
    isCommand,
    guard: () => config.current().guard,
    useShared: () => config.current().agent_catchphrases.shared,
    nowSec: () => Math.floor(clock.nowMs() / 1000),
  });
  return { book, corpus, hints, miner };
}

/** Resolving or undoing a phrase here drops its group's cached hints at once. */
function portOver(parts: ReturnType<typeof catchphraseParts>, mine: CatchphrasesPort['mine']): CatchphrasesPort {
  const { book, hints } = parts;
  return {
    list: (filter) => book.list(filter),
    resolve: async (id, action, actor, now) => {
      const done = await book.resolve(id, action, actor, now);
      hints.forget(done.entry.groupId);
      return done;
    },
    undo: async (id, actor, now) => {
      const done = await book.undo(id, actor, now);
      hints.forget(done.entry.groupId);
      return done;
    },
    mine,
  };
}
