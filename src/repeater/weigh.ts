/**
 * Why each known answer of a context could or could not be said in a group, judged with the same
 * rules and in the same order as the reply filter (responder.ts `answerHold`, `selectCandidates`),
 * and the one cause that kept a lookup without a ready answer silent. Used when a lookup found no
 * candidate (a database round trip was paid already) and by the console's "try a sentence"; never
 * for a message that is answered.
 */
import type { Answer, Context } from '../domain/corpus.ts';
import type { DecisionCause } from './decision.ts';
import { GLOBAL_BAN_GROUP } from './limits.ts';
import { answerHold, type AnswerHold, type CandidateInput, type CandidateOrigin } from './responder.ts';

export type AnswerVerdictNow = 'ready' | AnswerHold | 'not-shared' | 'mentions-someone' | 'needs-more-groups';

export interface WeighedAnswer {
  readonly answerKeywords: string;
  /** The first text learned for it (CQ-coded). */
  readonly sample: string;
  readonly groupId: number;
  readonly count: number;
  readonly origin: CandidateOrigin;
  readonly verdict: AnswerVerdictNow;
}

/** The answers of `context`, most seen first, each with its verdict in the group of `input`. */
export function weighAnswers(context: Context, input: CandidateInput, limit = 20): WeighedAnswer[] {
  // Other groups' answers count once enough groups agree (selectCandidates); count them first.
  const agreeing = new Map<string, number>();
  for (const answer of context.answers) {
    if (answer.groupId === input.groupId || answer.groupId === 0) continue;
    if (answerHold(answer, input) !== null || !sharedHere(answer, input)) continue;
    agreeing.set(answer.keywords, (agreeing.get(answer.keywords) ?? 0) + 1);
  }
  return [...context.answers]
    .sort((a, b) => b.count - a.count)
    .slice(0, limit)
    .map((answer) => ({
      answerKeywords: answer.keywords,
      sample: answer.messages[0] ?? '',
      groupId: answer.groupId,
      count: answer.count,
      origin: originOf(answer, input.groupId),
      verdict: verdictOf(answer, input, agreeing),
    }));
}

function originOf(answer: Answer, groupId: number): CandidateOrigin {
  return answer.groupId === groupId ? 'group' : answer.groupId === 0 ? 'community' : 'cross-group';
}

function sharedHere(answer: Answer, input: CandidateInput): boolean {
  return input.shared?.(answer.groupId) !== false && !(answer.messages[0] ?? '').includes('[CQ:at,qq=');
}

function verdictOf(answer: Answer, input: CandidateInput, agreeing: Map<string, number>): AnswerVerdictNow {
  const hold = answerHold(answer, input);
  if (hold) return hold;
  if (answer.groupId === input.groupId) return 'ready';
  if (answer.groupId !== 0 && input.shared?.(answer.groupId) === false) return 'not-shared';
  if ((answer.messages[0] ?? '').includes('[CQ:at,qq=')) return 'mentions-someone';
  if (answer.groupId !== 0 && (agreeing.get(answer.keywords) ?? 0) < input.crossGroupThreshold) {
    return 'needs-more-groups';
  }
  return 'ready';
}

export interface CauseFacts {
  /** Unix seconds now. */
  nowSec: number;
  /** When the bot last said these answer keywords in the group (unix seconds), if it did lately. */
  saidAt(answerKeywords: string): number | null;
  /** Whether the answer keywords are banned everywhere (the global blacklist). */
  bannedEverywhere(answerKeywords: string): boolean;
}

/**
 * The one cause of a lookup that found answers but none ready: what held back the answer seen most
 * (the one closest to being said), with its figures. No answers at all: `no-context`-like `no-answer`.
 */
export function noCandidateCause(context: Context, input: CandidateInput, facts: CauseFacts): DecisionCause {
  const weighed = weighAnswers(context, input, 50);
  const top = weighed.find((answer) => answer.verdict !== 'ready') ?? weighed[0];
  if (!top) return { code: 'no-answer', params: { keywords: context.keywords } };
  const answer = top.sample || top.answerKeywords;
  const others = weighed.length - 1;
  switch (top.verdict) {
    case 'below-threshold':
      return { code: 'below-threshold', params: { answer, count: top.count, threshold: input.threshold, others } };
    case 'banned':
      return banCause(context, input.groupId, top.answerKeywords, answer, facts);
    case 'said-recently': {
      const at = facts.saidAt(top.answerKeywords);
      const minutes = at === null ? 0 : Math.max(0, Math.round((facts.nowSec - at) / 60));
      return { code: 'said-recently', params: { answer, minutes } };
    }
    case 'needs-more-groups': {
      const groups = weighed.filter((a) => a.answerKeywords === top.answerKeywords && a.groupId !== 0).length;
      return { code: 'needs-more-groups', params: { answer, groups, needed: input.crossGroupThreshold } };
    }
    default:
      return { code: top.verdict === 'ready' ? 'nothing-new' : top.verdict, params: { answer, count: top.count } };
  }
}

function banCause(
  context: Context,
  groupId: number,
  answerKeywords: string,
  answer: string,
  facts: CauseFacts,
): DecisionCause {
  const bans = context.bans.filter((ban) => ban.keywords === answerKeywords);
  const here = bans.find((ban) => ban.groupId === groupId);
  const global = bans.find((ban) => ban.groupId === GLOBAL_BAN_GROUP);
  if (global || (!here && facts.bannedEverywhere(answerKeywords))) {
    return { code: 'banned-everywhere', params: withBan({ answer }, global) };
  }
  if (here || bans.length === 0) return { code: 'banned-here', params: withBan({ answer }, here) };
  // Banned in enough other groups to count here too (docs/rules.md#bans).
  return { code: 'banned-elsewhere', params: { answer, groups: new Set(bans.map((b) => b.groupId)).size } };
}

/** `by`: the member's QQ number, `recall by <operator>` or a console note; `at`: unix seconds. */
function withBan(params: Record<string, string | number>, ban: { reason: string; time: number } | undefined) {
  return ban ? { ...params, by: ban.reason, at: ban.time } : params;
}
