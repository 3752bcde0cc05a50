import type { LearnInput } from '../../src/domain/corpus.ts';
import { mulberry32 } from '../lib/rng.ts';
import type { VocabularyEntry } from './shape.ts';
import { answerIndex, contextKeywords, GROUP_COUNT, groupId, MISSING_BASE, messageText } from './shape.ts';

/** What a bot asks for: most keys were learned before, some never were. */
export function lookupKeys(options: {
  /** The corpus's seed (names the keys). */
  seed: number;
  /** Seed of this sample of keys. */
  sample: number;
  n: number;
  count: number;
  existingShare: number;
}): string[] {
  const random = mulberry32(options.seed ^ Math.imul(options.sample + 1, 0x1b873593));
  const keys: string[] = [];
  for (let i = 0; i < options.count; i++) {
    const index =
      random() < options.existingShare
        ? Math.floor(random() * options.n)
        : MISSING_BASE + Math.floor(random() * MISSING_BASE);
    keys.push(contextKeywords(options.seed, index));
  }
  return keys;
}

/**
 * Learn events: `existingShare` of them on keys of the corpus, the rest on new keys taken in order
 * from `newFrom` (each event set gets its own range, so runs compared with each other create the
 * same number of contexts). Answers are drawn like the corpus's, so popular ones repeat.
 */
export function learnInputs(options: {
  seed: number;
  n: number;
  count: number;
  existingShare: number;
  newFrom: number;
  now: number;
  vocabulary: readonly VocabularyEntry[];
}): LearnInput[] {
  const random = mulberry32(options.seed ^ options.newFrom ^ 0x68e31da4);
  const inputs: LearnInput[] = [];
  let nextNew = options.newFrom;
  for (let i = 0; i < options.count; i++) {
    const index = random() < options.existingShare ? Math.floor(random() * options.n) : nextNew++;
    const answer = options.vocabulary[answerIndex(random)] ?? { keywords: '好', hash: '' };
    inputs.push({
      keywords: contextKeywords(options.seed, index),
      groupId: groupId(Math.floor(random() * GROUP_COUNT)),
      answerKeywords: answer.keywords,
      answerTime: options.now + i,
      message: messageText(random, answer.keywords),
      appendOnExisting: random() < 0.5,
    });
  }
  return inputs;
}
