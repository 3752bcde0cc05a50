/**
 * What the hub stores and serves, cleaned: contributions and hot-word snapshots turned into rows,
 * and rows into hot words, each through the de-identification rule shared with the bot
 * (src/domain/deidentify.ts), counting what it keeps back.
 */
import {
  communityAnswer,
  communityLabel,
  shareableText,
  withheldKeywords,
  type WithheldSink,
} from '../domain/deidentify.ts';
import { LOCAL_HOT_KEYWORDS } from '../common/limits.ts';
import { stripNul } from '../common/text.ts';
import { keywordsHash } from '../domain/keywords-hash.ts';
import { badRequest } from './errors.ts';
import type { Contribution, HotCandidate, HotItemInput, Policy } from './hub-store.ts';
import { COUNT_MAX, HOT } from './limits.ts';
import { contributionTime, type AnswerInput } from './merge.ts';
import type { EnrollResponse, HotResponse, HotSnapshotBody, InsertBody, UpsertAnswerBody } from './schemas.ts';

/** A hot-word answer text: longer than 120 characters (code points) becomes the first 117 and '…'. */
export function hotMessage(text: string): string {
  const { messageMaxChars, messageCutChars } = LOCAL_HOT_KEYWORDS;
  if (text.length <= messageMaxChars) return text;
  const chars = [...text];
  return chars.length <= messageMaxChars ? text : `${chars.slice(0, messageCutChars).join('')}…`;
}

/** Keywords as stored: NUL removed; blank ones are a 400 naming the field. */
function storedKeywords(value: string, field: string): string {
  const keywords = stripNul(value);
  if (keywords.trim() === '') throw badRequest(`${field}: must not be blank`);
  return keywords;
}

export function upsertOf(body: UpsertAnswerBody, now: number, withhold: WithheldSink): Contribution | null {
  const keywords = storedKeywords(body.keywords, 'body.keywords');
  const answerKeywords = storedKeywords(body.answer_keywords, 'body.answer_keywords');
  const reason = withheldKeywords(keywords) ?? withheldKeywords(answerKeywords);
  if (reason !== null) {
    withhold(reason);
    return null;
  }
  let message: string | null = null;
  if (typeof body.message === 'string') {
    const shared = shareableText(body.message);
    if (shared.ok) message = shared.text;
    else withhold(shared.reason);
  }
  return {
    op: 'upsert_answer',
    keywords,
    hash: keywordsHash(keywords),
    answerKeywords,
    answerHash: keywordsHash(answerKeywords),
    time: contributionTime(body.answer_time, now),
    message,
    appendOnExisting: body.append_on_existing ?? true,
  };
}

export function insertOf(body: InsertBody, now: number, withhold: WithheldSink): Contribution | null {
  const context = body.context;
  const keywords = storedKeywords(context.keywords, 'body.context.keywords');
  const reason = withheldKeywords(keywords);
  if (reason !== null) {
    withhold(reason);
    return null;
  }
  const time = contributionTime(context.time, now);
  const answers: AnswerInput[] = [];
  (context.answers ?? []).forEach((answer, index) => {
    const answerKeywords = storedKeywords(answer.keywords, `body.context.answers.${index}.keywords`);
    const shared = communityAnswer(
      { keywords: answerKeywords, groupId: 0, count: 0, time: 0, messages: answer.messages ?? [] },
      withhold,
      true,
    );
    if (!shared) return;
    answers.push({
      keywords: answerKeywords,
      hash: keywordsHash(answerKeywords),
      count: answer.count ?? 1,
      time: contributionTime(answer.time ?? context.time, now),
      messages: shared.messages,
    });
  });
  return { op: 'insert', keywords, hash: keywordsHash(keywords), time, answers };
}

/** Snapshot items as stored: labels cleaned (empty ones skipped), scores whole, 0..COUNT_MAX, one per label. */
export function hotItems(items: HotSnapshotBody['items'], withhold: WithheldSink): HotItemInput[] {
  const byHash = new Map<string, HotItemInput>();
  for (const item of items) {
    const label = communityLabel(item.keywords, withhold);
    if (label === null) continue;
    const score = Math.min(COUNT_MAX, Math.max(0, Math.trunc(Number.isFinite(item.score) ? item.score : 0)));
    const hash = keywordsHash(label);
    const seen = byHash.get(hash);
    if (seen) seen.score = Math.min(COUNT_MAX, seen.score + score);
    else byHash.set(hash, { keywords: label, hash, score });
  }
  return [...byHash.values()];
}

/** Wire items: labels cleaned (empty ones dropped); with answers, up to 3 displayable ones, else dropped. */
export function hotItemsOf(
  candidates: readonly HotCandidate[],
  withAnswers: boolean,
  withhold: WithheldSink,
): HotResponse['items'] {
  const items: HotResponse['items'] = [];
  for (const candidate of candidates) {
    const label = communityLabel(candidate.keywords, withhold);
    if (label === null) continue;
    if (!withAnswers) {
      items.push({ keywords: label, score: candidate.score, answers: [] });
      continue;
    }
    const answers: HotResponse['items'][number]['answers'] = [];
    for (const answer of candidate.answers) {
      if (answers.length >= HOT.answersPerItem) break;
      const shared = communityAnswer({ ...answer, groupId: 0, time: 0 }, withhold, true);
      const text = shared ? (shared.messages[0] ?? communityLabel(shared.keywords)) : null;
      if (!shared || text === null || text === undefined) continue;
      answers.push({ answer_keywords: shared.keywords, message: hotMessage(text), count: answer.count });
    }
    if (answers.length > 0) items.push({ keywords: label, score: candidate.score, answers });
  }
  return items;
}

/** A deployment's policy as enrollment answers it (the origin's names and their aliases). */
export function wirePolicy(policy: Policy): EnrollResponse['policy'] {
  return {
    read: policy.read,
    contribute: policy.contribute,
    merge_strategy: 'local_first',
    read_per_minute: policy.readPerMinute,
    contributions_per_day: policy.contributionsPerDay,
    read_rpm: policy.readPerMinute,
    contribute_per_day: policy.contributionsPerDay,
  };
}
