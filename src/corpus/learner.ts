import type { LearnBatchResult, LearnInput, LearnOutcome } from '../domain/corpus.ts';
import { EXISTENCE_CACHE } from '../common/limits.ts';
import { LookupCache } from '../common/lookup-cache.ts';
import type { CompositeRepository } from './composite-repository.ts';
import { oneAnswerContext } from './composite-repository.ts';

/**
 * How a learn job is written (docs/rules.md#learn-write). `atomic`: the store's learn_answer upserts in one
 * transaction and says whether the context was new. `check-then-write`: for a store without an
 * atomic learn, an existence check through its own cache (docs/rules.md#cache-exists), then the
 * store's answer upsert for a known context or an insert of a new one.
 */
export type LearnStrategy = 'atomic' | 'check-then-write';

const EXISTS = Object.freeze({ exists: true as const });

export class Learner {
  /** "Does this context exist locally?" for the check-then-write path (docs/rules.md#cache-exists). */
  readonly existence: LookupCache<typeof EXISTS>;

  constructor(
    private readonly corpus: CompositeRepository,
    private readonly strategy: LearnStrategy,
    now?: () => number,
  ) {
    this.existence = new LookupCache({
      ttlMs: EXISTENCE_CACHE.ttlMs,
      max: EXISTENCE_CACHE.max,
      ...(now ? { now } : {}),
    });
  }

  /** Writes one learn event; resolves to whether the guard let it through. */
  async learn(input: LearnInput): Promise<boolean> {
    // A refused message writes nothing, so it must not mark its context as existing either:
    // the next learn of that key would then upsert into a missing context and be lost.
    if (this.corpus.guardRejects(input.message)) return false;
    if (this.strategy === 'atomic') {
      await this.corpus.learnAnswer(input);
    } else if (await this.#exists(input.keywords)) {
      await this.corpus.upsertAnswer(input);
    } else {
      await this.corpus.insert(oneAnswerContext(input));
    }
    this.existence.set(input.keywords, EXISTS);
    return true;
  }

  /**
   * Writes a batch of learn events (docs/rules.md#learn-write); one outcome per event, never a
   * rejection. `atomic`: one unit of work for the batch (CompositeRepository.learnAnswers).
   * `check-then-write` has no batch form: one event at a time, a failure costing only itself, and
   * a written event counts as `existing` (that path does not learn whether it created the context).
   */
  async learnBatch(inputs: readonly LearnInput[]): Promise<LearnBatchResult> {
    if (this.strategy === 'atomic') {
      const result = await this.corpus.learnAnswers(inputs);
      for (const [index, outcome] of result.outcomes.entries()) {
        const input = inputs[index];
        if (input && (outcome === 'created' || outcome === 'existing')) this.existence.set(input.keywords, EXISTS);
      }
      return result;
    }
    const outcomes: LearnOutcome[] = [];
    for (const input of inputs) {
      try {
        outcomes.push((await this.learn(input)) ? 'existing' : 'rejected');
      } catch {
        outcomes.push('failed');
      }
    }
    return { outcomes, retriedPairByPair: false };
  }

  async #exists(keywords: string): Promise<boolean> {
    const found = await this.existence.get(keywords, async () =>
      (await this.corpus.localContextExistsByKeywords(keywords)) ? EXISTS : null,
    );
    return found !== null;
  }
}
