import { keywordsHash } from '../../src/domain/keywords-hash.ts';
import { intBetween, mulberry32, seedFor } from '../lib/rng.ts';
import {
  answerCount,
  answerIndex,
  answersPerContext,
  answerVocabulary,
  BAN_REASONS,
  clearTime,
  contextKeywords,
  contextTime,
  GROUP_COUNT,
  groupId,
  messagesPerAnswer,
  messageText,
  triggerCount,
  type ShapeOptions,
  type VocabularyEntry,
} from './shape.ts';

/** Receives generated rows with their ids, in insertion order (parents before children). */
export interface RowSink {
  /** `answerCountSum` is the sum of the answers' counts (kept on the row for hot keywords). */
  context(
    id: number,
    keywords: string,
    hash: string,
    time: number,
    triggers: number,
    clearTime: number,
    answerCountSum: number,
  ): void;
  answer(
    id: number,
    contextId: number,
    keywords: string,
    hash: string,
    group: number,
    count: number,
    time: number,
  ): void;
  message(id: number, answerId: number, text: string): void;
  ban(id: number, contextId: number, keywords: string, group: number, reason: string, time: number): void;
}

export interface CorpusTotals {
  contexts: number;
  answers: number;
  messages: number;
  bans: number;
}

/**
 * Generates the corpus chunk by chunk with explicit ids (context id = key index + 1), so loading
 * needs no RETURNING round trips. Each context draws from its own seeded stream: the corpus does
 * not depend on the chunk size.
 */
export class CorpusGenerator {
  readonly totals: CorpusTotals = { contexts: 0, answers: 0, messages: 0, bans: 0 };
  readonly #options: ShapeOptions;
  readonly #vocabulary: VocabularyEntry[];
  #nextAnswerId = 1;
  #nextMessageId = 1;
  #nextBanId = 1;

  constructor(options: ShapeOptions) {
    this.#options = options;
    this.#vocabulary = answerVocabulary(options.seed);
  }

  get vocabulary(): readonly VocabularyEntry[] {
    return this.#vocabulary;
  }

  /** Generate contexts with key indexes [from, to). */
  generate(from: number, to: number, sink: RowSink): void {
    const options = this.#options;
    const chosen = new Set<number>();
    const picks: { word: VocabularyEntry; group: number; count: number }[] = [];
    for (let index = from; index < to; index++) {
      const random = mulberry32(seedFor(options.seed ^ 0x27d4eb2f, index));
      const contextId = index + 1;
      const keywords = contextKeywords(options.seed, index);

      const answers = answersPerContext(random);
      chosen.clear();
      picks.length = 0;
      let learned = 0;
      for (let slot = 0; slot < answers; slot++) {
        // (group, answer keywords) is unique per context: draw again on a repeat.
        let group = 0;
        let word = 0;
        do {
          group = Math.floor(random() * GROUP_COUNT);
          word = answerIndex(random);
        } while (chosen.has(word * GROUP_COUNT + group));
        chosen.add(word * GROUP_COUNT + group);
        const entry = this.#vocabulary[word];
        if (!entry) continue;
        const count = answerCount(random);
        picks.push({ word: entry, group, count });
        learned += count;
      }

      // Every learn event counts once on the context and once on an answer: a context with
      // hundreds of answers was triggered at least as often.
      const triggers = Math.max(triggerCount(random), learned);
      const time = contextTime(random, triggers, options);
      sink.context(contextId, keywords, keywordsHash(keywords), time, triggers, clearTime(random, options), learned);
      this.totals.contexts++;

      for (const { word, group, count } of picks) {
        const answerId = this.#nextAnswerId++;
        const answerTime = time - intBetween(random, 0, 3600);
        sink.answer(answerId, contextId, word.keywords, word.hash, groupId(group), count, answerTime);
        this.totals.answers++;
        const messages = messagesPerAnswer(random, count);
        for (let message = 0; message < messages; message++) {
          sink.message(this.#nextMessageId++, answerId, messageText(random, word.keywords));
        }
        this.totals.messages += messages;
      }

      if (random() < 0.01) {
        const bans = intBetween(random, 1, 3);
        for (let ban = 0; ban < bans; ban++) {
          const entry = this.#vocabulary[answerIndex(random)];
          if (!entry) continue;
          const reason = BAN_REASONS[ban % BAN_REASONS.length] ?? 'manual';
          sink.ban(
            this.#nextBanId++,
            contextId,
            entry.keywords,
            groupId(Math.floor(random() * GROUP_COUNT)),
            reason,
            time,
          );
          this.totals.bans++;
        }
      }
    }
  }
}
