import { TransientLookupError } from '../common/errors.ts';
import { POOL_PRESSURE } from '../common/limits.ts';
import type { Context } from '../domain/corpus.ts';
import type { ReplyLookupSource } from '../ports/corpus-repository.ts';
import type { DecisionCause, DecisionReason } from './decision.ts';
import type { MessageText } from './keywords.ts';
import { selectCandidates, type CandidateInput, type ReplyBundle } from './responder.ts';

/** Why a lookup found no bundle, and the threshold it drew: read by the decision after the lookup. */
export interface LookupOutcome {
  missReason: DecisionReason;
  missCause?: DecisionCause;
  /** The answer count drawn by this message's lookup (a cached bundle carries its own). */
  drawn: number | null;
}

export interface ReplyLookupDeps {
  pressure(): number;
  corpus: ReplyLookupSource;
  /** Draws this message's answer threshold (pickThreshold). */
  drawThreshold(): number;
  /** What the reply filter weighs the context's answers against. */
  input(context: Context, threshold: number): CandidateInput;
  /** The one cause that held every answer back (decision-causes.ts). */
  missCause(context: Context, input: CandidateInput): DecisionCause;
  /** Keeps a miss's cause for a cached miss of the same message (decision-causes.ts MissCauses). */
  remember(cause: DecisionCause): void;
}

/**
 * The bundle cache's loader for one message (docs/rules.md#rep-reply): the context and the
 * answers ready in this group, or a miss with its reason and cause written to `outcome`. Whole
 * answers only are cacheable: one missing a remote part (skipped, failed, too slow) is used now
 * and asked again next time (docs/rules.md#transient-not-miss).
 */
export async function lookupBundle(
  text: MessageText,
  deps: ReplyLookupDeps,
  outcome: LookupOutcome,
): Promise<{ value: ReplyBundle | null; cacheable: boolean }> {
  if (deps.pressure() >= POOL_PRESSURE.replySkip) {
    outcome.missReason = 'pressure';
    return { value: null, cacheable: false };
  }
  let context;
  let cacheable = true;
  try {
    ({ context, complete: cacheable } = await deps.corpus.lookupForReply(text.keywords));
  } catch (error) {
    // The database could not answer now: unanswered this time, asked again next time.
    if (!(error instanceof TransientLookupError)) throw error;
    outcome.missReason =
      error.reason === 'pressure' ? 'pressure' : error.reason === 'timeout' ? 'timeout' : 'pool-timeout';
    return { value: null, cacheable: false };
  }
  if (!context) {
    outcome.missReason = 'no-context';
    outcome.missCause = { code: 'no-context', params: { keywords: text.keywords } };
    deps.remember(outcome.missCause);
    return { value: null, cacheable };
  }
  const threshold = deps.drawThreshold();
  outcome.drawn = threshold;
  const input = deps.input(context, threshold);
  const candidates = selectCandidates(context, input);
  if (candidates.length === 0) {
    outcome.missCause = deps.missCause(context, input);
    deps.remember(outcome.missCause);
    return { value: null, cacheable };
  }
  return {
    value: Object.freeze({ contextKeywords: context.keywords, candidates: Object.freeze(candidates), threshold }),
    cacheable,
  };
}
