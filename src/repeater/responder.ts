/**
 * The classic reply algorithm (docs/rules.md#rep-reply), as pure functions over a context snapshot
 * and the group's recent state. Randomness comes in through a RandomSource; nothing here does I/O.
 */
import type { Answer, Context } from '../domain/corpus.ts';
import { leadingNickname, SPLIT_COMMA, stripNickname } from './cq-text.ts';
import type { MessageText } from './keywords.ts';
import { REPLIES } from './limits.ts';
import { pickOne, weightedIndex, type RandomSource } from './random.ts';

/** Where a candidate's evidence came from: this group, two other groups, or the community pool. */
export type CandidateOrigin = 'group' | 'cross-group' | 'community';

/** One answer the bot may say, after merging answers with the same keywords. */
export interface ReplyCandidate {
  readonly keywords: string;
  readonly count: number;
  /** Occurrences of its keyword tokens among the group's recent topics. */
  readonly topical: number;
  readonly messages: readonly string[];
  readonly origin: CandidateOrigin;
}

/** What a lookup found for one message: the candidates, frozen (it may be cached and shared). */
export interface ReplyBundle {
  /** The answer count drawn for this lookup (pickThreshold): answers seen fewer times were not ready. */
  readonly threshold: number;
  readonly contextKeywords: string;
  readonly candidates: readonly ReplyCandidate[];
}

/** The outcome of the repeat rule (docs/rules.md#rep-reply). */
export type RepeatVerdict = 'echo' | 'already' | 'not-a-repeat';

/**
 * Humans said `raw` `threshold - 1` times in a row just before this message: the bot joins once.
 * It joins only if it has spoken in the group since start and its latest reply was not this.
 */
export function repeatVerdict(
  raw: string,
  humanTail: readonly string[],
  threshold: number,
  latestReply: string | undefined,
): RepeatVerdict {
  if (threshold < 2) return 'not-a-repeat';
  const need = threshold - 1;
  if (humanTail.length < need) return 'not-a-repeat';
  for (let index = humanTail.length - need; index < humanTail.length; index++) {
    if (humanTail[index] !== raw) return 'not-a-repeat';
  }
  return latestReply !== undefined && latestReply !== raw ? 'echo' : 'already';
}

/** docs/rules.md#rep-reply: messages too short or too odd to be worth a database lookup. */
export function shouldSkipLookup(text: MessageText, toMe: boolean): boolean {
  const plainChars = charCount(text.plainText.trim());
  const tagCount = text.tags.length;
  if (text.isPlainText) {
    if (toMe) return false;
    if (tagCount === 0) return plainChars > 0 && plainChars <= 4;
    if (tagCount === 1) return plainChars > 0 && plainChars <= 2;
    return false;
  }
  if (plainChars === 0) return true;
  if (tagCount !== 0) return false;
  return charCount(text.keywords) >= REPLIES.rawKeyMaxChars;
}

/**
 * docs/rules.md#rep-reply: the count an answer needs, drawn from [T - n + 1 .. T] with the n weights, one lower
 * when the message had the full two keywords.
 */
export function pickThreshold(
  answerThreshold: number,
  weights: readonly number[],
  keywordCount: number,
  random: RandomSource,
): number {
  const index = weightedIndex(weights, random);
  const lowest = answerThreshold - weights.length + 1;
  const threshold = lowest + Math.max(0, index);
  return keywordCount >= 2 ? threshold - 1 : threshold;
}

export interface CandidateInput {
  groupId: number;
  /** The current message's keywords (an answer equal to them is never used). */
  keywords: string;
  isImage: boolean;
  toMe: boolean;
  nicknames: readonly string[];
  threshold: number;
  crossGroupThreshold: number;
  /** Whether another group's answers count here (its group config `share`); absent: all do. */
  shared?: (groupId: number) => boolean;
  banned: ReadonlySet<string>;
  recentReplyKeywords: ReadonlySet<string>;
  recentRaws: ReadonlySet<string>;
  topicCount: (token: string) => number;
}

/**
 * docs/rules.md#rep-reply: filter the answers, apply the group rules and merge by answer keywords. Answers of
 * other groups need `crossGroupThreshold` groups agreeing; community answers (group 0) stand on
 * their own once their count reaches the threshold (docs/rules.md#community-evidence). Snapshots
 * may be frozen and shared: they are copied, never changed.
 */
export function selectCandidates(context: Context, input: CandidateInput): ReplyCandidate[] {
  const chosen: { answer: Answer; origin: CandidateOrigin }[] = [];
  const seenElsewhere = new Map<string, number>();
  const parked = new Map<string, Answer>();
  for (const answer of context.answers) {
    if (!usable(answer, input)) continue;
    if (answer.groupId === input.groupId) {
      chosen.push({ answer, origin: 'group' });
      continue;
    }
    if (answer.groupId !== 0 && input.shared?.(answer.groupId) === false) continue;
    const sample = answer.messages[0] as string;
    if (sample.includes('[CQ:at,qq=')) continue;
    const seen = (seenElsewhere.get(answer.keywords) ?? 0) + 1;
    seenElsewhere.set(answer.keywords, seen);
    if (answer.groupId === 0) {
      chosen.push({ answer, origin: 'community' });
    } else if (seen < input.crossGroupThreshold) {
      parked.set(answer.keywords, answer);
      continue;
    } else {
      chosen.push({ answer, origin: 'cross-group' });
    }
    // Enough groups agree: the answer that was waiting for company joins in.
    const waiting = seen >= input.crossGroupThreshold ? parked.get(answer.keywords) : undefined;
    if (waiting) {
      chosen.push({ answer: waiting, origin: 'cross-group' });
      parked.delete(answer.keywords);
    }
  }
  return merge(chosen, input);
}

/**
 * What keeps one answer from being said here, in the order the reply filter tests it, or null when
 * it may be said (the Why page and the try route report the same words, src/repeater/weigh.ts).
 */
export type AnswerHold =
  | 'below-threshold'
  | 'banned'
  | 'said-recently'
  | 'same-as-message'
  | 'no-sample'
  | 'not-an-image'
  | 'nickname'
  | 'unfit'
  | 'just-said-here';

export function answerHold(answer: Answer, input: CandidateInput): AnswerHold | null {
  if (answer.count < input.threshold) return 'below-threshold';
  const keywords = answer.keywords;
  if (input.banned.has(keywords)) return 'banned';
  if (input.recentReplyKeywords.has(keywords)) return 'said-recently';
  if (keywords === input.keywords) return 'same-as-message';
  const sample = answer.messages[0];
  if (sample === undefined) return 'no-sample';
  if (input.isImage && !sample.includes('[CQ:')) return 'not-an-image';
  if (
    leadingNickname(sample, input.nicknames) !== undefined &&
    (!input.toMe || charCount(sample) <= REPLIES.nicknameSampleMinChars)
  ) {
    return 'nickname';
  }
  if (sample.startsWith('[CQ:xml') || sample.includes('\n')) return 'unfit';
  if (answer.count < REPLIES.staleAnswerCount && input.recentRaws.has(sample)) return 'just-said-here';
  return null;
}

function usable(answer: Answer, input: CandidateInput): boolean {
  return answerHold(answer, input) === null;
}

const ORIGIN_RANK: Record<CandidateOrigin, number> = { group: 0, 'cross-group': 1, community: 2 };

function merge(chosen: { answer: Answer; origin: CandidateOrigin }[], input: CandidateInput): ReplyCandidate[] {
  const byKeywords = new Map<string, { count: number; messages: string[]; origin: CandidateOrigin }>();
  for (const { answer, origin } of chosen) {
    const merged = byKeywords.get(answer.keywords);
    if (!merged) {
      byKeywords.set(answer.keywords, { count: answer.count, messages: [...answer.messages], origin });
      continue;
    }
    merged.count += answer.count;
    merged.messages.push(...answer.messages);
    if (ORIGIN_RANK[origin] < ORIGIN_RANK[merged.origin]) merged.origin = origin;
  }
  const candidates: ReplyCandidate[] = [];
  for (const [keywords, merged] of byKeywords) {
    let topical = 0;
    if (!keywords.includes('[CQ:')) {
      for (const token of keywords.split(' ')) if (token !== '') topical += input.topicCount(token);
    }
    candidates.push(
      Object.freeze({
        keywords,
        count: merged.count,
        topical,
        messages: Object.freeze(merged.messages),
        origin: merged.origin,
      }),
    );
  }
  return candidates;
}

/** What the bot will say: the answer, its origin, and the texts to send in order. */
export interface ReplyChoice {
  readonly answerKeywords: string;
  readonly origin: CandidateOrigin;
  readonly texts: readonly string[];
}

export interface ChoiceInput {
  random: RandomSource;
  nicknames: readonly string[];
  splitProbability: number;
  /** Answer keywords the bot used lately (skipped). */
  recentReplyKeywords: ReadonlySet<string>;
  /** Texts the bot said lately (not said again). */
  recentTexts: ReadonlySet<string>;
}

/**
 * docs/rules.md#rep-reply: a weighted answer (count capped at 10, recent topics weigh heavily), a random text of it
 * not said lately, without a leading nickname; sometimes split at full-width commas.
 */
export function chooseReply(candidates: readonly ReplyCandidate[], input: ChoiceInput): ReplyChoice | null {
  const open = candidates.filter((candidate) => !input.recentReplyKeywords.has(candidate.keywords));
  const weights = open.map(
    (candidate) => Math.min(candidate.count, REPLIES.weightCountCap) + candidate.topical * REPLIES.topicsImportance,
  );
  const chosen = open[weightedIndex(weights, input.random)];
  if (!chosen) return null;
  const texts = [...new Set(chosen.messages)].filter((text) => !input.recentTexts.has(text));
  const picked = pickOne(texts, input.random);
  if (picked === undefined) return null;
  const text = stripNickname(picked, input.nicknames);
  if (text.trim() === '') return null;
  return { answerKeywords: chosen.keywords, origin: chosen.origin, texts: split(text, input) };
}

function split(text: string, input: ChoiceInput): string[] {
  const commas = text.split(SPLIT_COMMA).length - 1;
  if (commas < 1 || commas > REPLIES.splitMaxCommas || text.includes('[CQ:')) return [text];
  if (input.random.next() >= input.splitProbability) return [text];
  const parts = text.split(SPLIT_COMMA).filter((part) => part.trim() !== '');
  return parts.length > 0 ? parts : [text];
}

function charCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
