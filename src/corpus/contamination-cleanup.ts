/**
 * The contamination cleanup round (docs/rules.md#cleanup; phrases from configuration, docs/rules.md#guard):
 * removes from the local store what the guard would refuse today but learned before it knew. The
 * schedule (daily, primary process only) belongs to the caller.
 */
import type { GuardRule } from '../domain/guard.ts';
import type { PollutedMessagesDeleted, PollutedMessagesOptions } from '../store/corpus-store.ts';

/** The store's cleanup (CorpusStore.deletePollutedMessages). */
export interface PollutedMessageCleaner {
  deletePollutedMessages(options: PollutedMessagesOptions): Promise<PollutedMessagesDeleted>;
}

export type ContaminationCleanupResult = PollutedMessagesDeleted;

export interface ContaminationCleanupOptions {
  /** LLM_CORPUS_CLEANUP_MAX_DELETE_PER_ROUND: answer messages, and separately log rows, per round. */
  maxDeletePerRound: number;
}

/**
 * One round: deletes answer messages (and group log rows) containing a polluting phrase and no
 * exempt phrase, at most `maxDeletePerRound` of each, and the answers left without messages.
 * Does nothing when the guard is disabled or has no phrase.
 */
export async function runContaminationCleanup(
  store: PollutedMessageCleaner,
  rule: GuardRule,
  options: ContaminationCleanupOptions,
): Promise<ContaminationCleanupResult> {
  const phrases = rule.phrases.filter((phrase) => phrase !== '');
  if (!rule.enabled || phrases.length === 0 || options.maxDeletePerRound < 1) {
    return { answerMessages: 0, emptyAnswers: 0, logMessages: 0 };
  }
  return store.deletePollutedMessages({
    phrases,
    exempt: rule.exempt.filter((phrase) => phrase !== ''),
    maxDelete: options.maxDeletePerRound,
  });
}
