import { SQLITE_PRESSURE_WINDOW_MS } from '../../src/common/limits.ts';
import type { ReplySettings } from '../../src/store/corpus-store.ts';
import type { BenchOptions, EngineChoice } from './args.ts';
import { CorpusGenerator } from './generate.ts';
import { bulkWork } from './measure-bulk.ts';
import { contextExists, replyUncached, replyWarm } from './measure-read.ts';
import { learnThroughWorker } from './measure-batch.ts';
import { learnConcurrent, learnSequential } from './measure-write.ts';
import type { EngineResult } from './report.ts';
import { dailyCleanup } from './shape.ts';
import { openPostgresTarget, openSqliteTarget, type Target } from './targets.ts';
import { learnInputs, lookupKeys } from './workload.ts';

/** The performance section's defaults (src/config/sections/performance.ts). */
export const DEFAULT_REPLY_SETTINGS: ReplySettings = {
  replyMessagesCap: 16,
  replyAnswersCap: 128,
  replySnapshotSec: 5,
  replySnapshotMax: 20_000,
  replyQueryTimeoutSec: 2,
};

const EXISTING_LOOKUP_SHARE = 0.8;
const EXISTING_LEARN_SHARE = 0.7;
const WARM_KEYS = 5_000;
const BATCH_EVENTS = 4_000;

export interface RunHooks {
  log(line: string): void;
  /** Called with the target's disposer while it is open, so an interrupt can still clean up. */
  own(dispose: (() => Promise<void>) | undefined): void;
}

export async function runEngine(engine: EngineChoice, options: BenchOptions, hooks: RunHooks): Promise<EngineResult> {
  const settings = DEFAULT_REPLY_SETTINGS;
  const engineStarted = performance.now();
  const log = (line: string) =>
    hooks.log(`[${((performance.now() - engineStarted) / 1000).toFixed(1)} s] ${engine}: ${line}`);
  const { n, seed } = options;
  const now = Math.floor(Date.now() / 1000);
  const generator = new CorpusGenerator({ seed, now });
  const target: Target =
    engine === 'sqlite' ? await openSqliteTarget(settings) : await openPostgresTarget(options.databaseUrl, settings);
  hooks.own(target.dispose);
  try {
    const { store, bare } = target;
    let lastStep = -1;
    const loadStarted = performance.now();
    await target.load(generator, n, (done) => {
      const step = Math.floor((10 * done) / n);
      if (step === lastStep) return;
      lastStep = step;
      log(`loaded ${done}/${n} contexts in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`);
    });
    const load = { ms: performance.now() - loadStarted, totals: { ...generator.totals } };
    log(`database ${((await target.sizeBytes()) / 2 ** 20).toFixed(0)} MiB`);

    const warmup = Math.min(1000, Math.ceil(options.lookups / 10));
    const keys = lookupKeys({ seed, sample: 0, n, count: options.lookups, existingShare: EXISTING_LOOKUP_SHARE });
    log(`reply lookups, uncached`);
    const reply = await replyUncached(store, bare, keys, warmup);
    log(`reply lookups, warm cache`);
    const warm = await replyWarm(store, settings, [...new Set(keys)].slice(0, WARM_KEYS), options.lookups);
    log(`context_exists`);
    const existsKeys = lookupKeys({ seed, sample: 1, n, count: options.lookups, existingShare: EXISTING_LOOKUP_SHARE });
    const exists = await contextExists(store, bare, existsKeys, warmup);

    const learnSet = (run: number) =>
      learnInputs({
        seed,
        n,
        count: options.learns,
        existingShare: EXISTING_LEARN_SHARE,
        newFrom: n + run * options.learns,
        now,
        vocabulary: generator.vocabulary,
      });
    log(`learn_answer`);
    const sequential = await learnSequential(store, bare, learnSet(0), learnSet(1));
    const learn8 = await learnConcurrent(store, learnSet(2), 8);
    log(`learn batches through the learn worker`);
    // At least BATCH_EVENTS events (several full batches even with --quick), in fresh sets of keys.
    const batchSets = Math.max(1, Math.ceil(BATCH_EVENTS / options.learns));
    const batchInputs = Array.from({ length: batchSets }, (_, index) => learnSet(3 + index)).flat();
    // The worker waits while pressure is high: let the writers' busy time of the last second age out.
    await new Promise((resolve) => setTimeout(resolve, SQLITE_PRESSURE_WINDOW_MS + 100));
    const learnBatch = await learnThroughWorker(store, batchInputs);

    log(`delete_expired and find_for_cleanup`);
    const bulk = await bulkWork(store, bare, dailyCleanup({ seed, now }));
    return { engine, n, load, reply, warm, exists, learn1: sequential.ours, learn8, learnBatch, learnBare: sequential.bare, bulk };
  } finally {
    hooks.own(undefined);
    await target.dispose();
  }
}
