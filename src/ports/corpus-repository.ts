import type { Answer, Ban, BanReplyTarget, Context, LearnBatchResult, LearnInput } from '../domain/corpus.ts';

/**
 * Every operation of the corpus (docs/rules.md#store-ops; semantics in docs/rules.md#store-ops).
 * The local store implements it on SQLite and PostgreSQL; the composite (src/corpus) implements it
 * over several sources, so callers cannot tell how many sources exist.
 */
export interface CorpusRepository {
  /** Full load: every answer with every message, and every ban. */
  findByKeywords(keywords: string): Promise<Context | null>;
  /**
   * The bounded snapshot for replies: top answers by count then time, newest messages each,
   * caps tightened for very short keys. A context without answers comes back with `answers: []`.
   */
  findByKeywordsForReply(keywords: string): Promise<Context | null>;
  contextExistsByKeywords(keywords: string): Promise<boolean>;
  /** Create or overwrite a whole context (its answers and bans are replaced). */
  save(context: Context): Promise<void>;
  /** Create a whole context; a concurrent insert of the same key makes this a no-op. */
  insert(context: Context): Promise<void>;
  /** Delete contexts with `time < expiration AND triggerCount < threshold`; returns how many. */
  deleteExpired(expiration: number, threshold: number): Promise<number>;
  /** Contexts with `triggerCount > triggerThreshold OR clearTime < expiration`, fully loaded. */
  findForCleanup(triggerThreshold: number, expiration: number): Promise<Context[]>;
  /** The same as pages, so a caller can work through a large corpus in bounded memory. */
  iterateForCleanup(triggerThreshold: number, expiration: number): AsyncIterable<Context[]>;
  /** Count one more `answerKeywords` after `keywords`; a missing context makes it a no-op. */
  upsertAnswer(input: LearnInput): Promise<void>;
  /** Atomic learn: creates the context when missing; resolves to whether it was created. */
  learnAnswer(input: LearnInput): Promise<boolean>;
  /**
   * Many learn_answer pairs as one unit of work (docs/rules.md#learn-write), each with exactly its
   * own semantics, in order; one outcome per pair. A failed batch is retried pair by pair, so one
   * bad pair costs only itself. Never rejects: a pair that could not be written is `failed`.
   */
  learnAnswers(inputs: readonly LearnInput[]): Promise<LearnBatchResult>;
  /** Replace the answer list (kept answers updated, others deleted) and set clearTime. */
  replaceAnswers(keywords: string, answers: Answer[], clearTime: number): Promise<void>;
  appendBan(keywords: string, ban: Ban): Promise<void>;
  /** The answer of `groupId` having exactly this message text, newest first. */
  findBanReplyTarget(groupId: number, replyMessage: string): Promise<BanReplyTarget | null>;
  listAnswersForGroupSince(groupId: number, cutoffTime: number): Promise<Answer[]>;
}

/**
 * A reply lookup's answer and whether it is whole: `complete: false` when a source it asks could
 * not answer now (skipped under pressure or for want of a permit, failed, too slow), so what it
 * holds may lack that source's answers. Nothing may cache an incomplete answer
 * (docs/rules.md#transient-not-miss).
 */
export interface ReplyLookup {
  context: Context | null;
  complete: boolean;
}

/** The reply lookup that says whether its answer is whole (the composite; the repeater asks it). */
export interface ReplyLookupSource {
  lookupForReply(keywords: string): Promise<ReplyLookup>;
}
