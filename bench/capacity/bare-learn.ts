/**
 * The bare driver's learning rate for bench:capacity, by bench:store's method
 * (bench/store/measure-write.ts): a generated corpus of `n` contexts, then learn_answer from one
 * writer through the store alternating block by block with the bare driver doing the same
 * statements in one transaction per event.
 */
import { CorpusGenerator } from '../store/generate.ts';
import { learnSequential } from '../store/measure-write.ts';
import { DEFAULT_REPLY_SETTINGS } from '../store/run-engine.ts';
import { openPostgresTarget, openSqliteTarget } from '../store/targets.ts';
import { learnInputs } from '../store/workload.ts';
import type { Engine } from '../repeater/fleet.ts';

const EXISTING_LEARN_SHARE = 0.7;

export interface BareLearn {
  /** learn_answer per second through the bare driver, one writer. */
  bare: number;
  /** The same through the store (bench:store's `learn_answer ×1`). */
  store: number;
}

export async function bareLearnRate(
  engine: Engine,
  options: { n: number; learns: number; seed: number; databaseUrl: string },
): Promise<BareLearn> {
  const settings = DEFAULT_REPLY_SETTINGS;
  const now = Math.floor(Date.now() / 1000);
  const generator = new CorpusGenerator({ seed: options.seed, now });
  const target =
    engine === 'sqlite' ? await openSqliteTarget(settings) : await openPostgresTarget(options.databaseUrl, settings);
  try {
    await target.load(generator, options.n, () => undefined);
    const inputs = (run: number) =>
      learnInputs({
        seed: options.seed,
        n: options.n,
        count: options.learns,
        existingShare: EXISTING_LEARN_SHARE,
        newFrom: options.n + run * options.learns,
        now,
        vocabulary: generator.vocabulary,
      });
    const result = await learnSequential(target.store, target.bare, inputs(0), inputs(1));
    return { bare: result.bare.perSecond, store: result.ours.perSecond };
  } finally {
    await target.dispose();
  }
}
