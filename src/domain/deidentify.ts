/**
 * What may leave the deployment for the community (docs/guide/community.md):
 * plain short phrases only. Every CQ segment goes (mentions, replies, images, faces, cards,
 * forwards, pokes: whatever their spelling, a segment left unterminated included), NUL goes,
 * whitespace collapses; a text that is then empty, longer than 100 characters, or holds a number
 * of five or more digits that is not one digit repeated (a QQ, group or phone number, its digits
 * counted across single spaces, dashes and dots, so `138 1234 5678` is one; `666 666` is fine) is
 * withheld. Keywords are the key of a context and cannot be rewritten: keywords holding a
 * CQ segment or such a number are withheld whole. Every answer goes out with group 0 and no bans.
 *
 * The bot applies this to every upload (mirror, backfill, hot snapshot); the hub applies it again
 * to what it stores and serves, so a client that does not is cleaned all the same.
 */
import type { Answer, Context, LearnInput } from './corpus.ts';

/** The group id every community upload carries: no group or user number leaves the deployment. */
export const COMMUNITY_GROUP_ID = 0;

export const SHARE_LIMITS = { maxChars: 100, digitRun: 5 } as const;

export type WithheldReason = 'cq-keywords' | 'number' | 'empty' | 'too-long';
export const WITHHELD_REASONS: readonly WithheldReason[] = ['cq-keywords', 'number', 'empty', 'too-long'];

export type Shareable = { ok: true; text: string } | { ok: false; reason: WithheldReason };

/** `[CQ:` up to the next `]`, or to the end of the text when the segment is not closed. */
const ANY_SEGMENT = /\[CQ:[^\]]*(?:\]|$)/gi;
const WHITESPACE = /\s+/g;
const NUL = /\u0000/g;
/** ASCII and full-width digits. */
const DIGIT = '[0-9\\uFF10-\\uFF19]';
/**
 * What may stand between two digits of one number: a single space, dash or dot, ASCII or
 * full-width (`138 1234 5678`, `139-8765-4321`, `138.1234.5678`). Two in a row end the number.
 */
const SEPARATOR = '[\\s.\\-\\u2010-\\u2014\\uFF0D\\uFF0E]';
/** Digits with at most one separator between two of them; linear: every step takes a digit. */
const NUMBER = new RegExp(`${DIGIT}(?:${SEPARATOR}?${DIGIT})*`, 'g');
const NOT_DIGIT = /[^0-9\uFF10-\uFF19]/g;

function asciiDigits(run: string): string {
  return run.replace(/[\uFF10-\uFF19]/g, (digit) => String(digit.charCodeAt(0) - 0xff10));
}

/**
 * True when the text holds a number of 5+ digits, counted across single separators, that is not
 * one digit repeated (`666 666` is fine).
 */
export function holdsNumber(text: string): boolean {
  for (const match of text.matchAll(NUMBER)) {
    const digits = asciiDigits(match[0].replace(NOT_DIGIT, ''));
    if (digits.length >= SHARE_LIMITS.digitRun && !/^(\d)\1*$/.test(digits)) return true;
  }
  return false;
}

/** The text as the community may see it, or why it is withheld. */
export function shareableText(raw: string): Shareable {
  const text = raw.replace(NUL, '').replace(ANY_SEGMENT, '').replace(WHITESPACE, ' ').trim();
  if (text === '') return { ok: false, reason: 'empty' };
  if ([...text].length > SHARE_LIMITS.maxChars) return { ok: false, reason: 'too-long' };
  if (holdsNumber(text)) return { ok: false, reason: 'number' };
  return { ok: true, text };
}

/** Why keywords may not be shared, or null when they may (they are sent as they are). */
export function withheldKeywords(keywords: string): WithheldReason | null {
  if (/\[CQ:/i.test(keywords)) return 'cq-keywords';
  if (holdsNumber(keywords)) return 'number';
  if (keywords.replace(NUL, '').trim() === '') return 'empty';
  return null;
}

/** Counts withheld items per reason (the caller's counters). */
export type WithheldSink = (reason: WithheldReason) => void;

/**
 * An answer as the community may see it: shareable keywords, cleaned distinct messages, group 0.
 * An answer left without messages is withheld unless `keepWithoutMessages` (the hub keeps counts
 * of answers whose texts it does not hold).
 */
export function communityAnswer(answer: Answer, withheld: WithheldSink, keepWithoutMessages = false): Answer | null {
  const keywordsReason = withheldKeywords(answer.keywords);
  if (keywordsReason) {
    withheld(keywordsReason);
    return null;
  }
  const messages = new Set<string>();
  for (const message of answer.messages) {
    const shared = shareableText(message);
    if (shared.ok) messages.add(shared.text);
    else withheld(shared.reason);
  }
  if (messages.size === 0 && !keepWithoutMessages) return null;
  return { ...answer, groupId: COMMUNITY_GROUP_ID, messages: [...messages] };
}

/** A context as the community may see it, or null when nothing of it may leave. */
export function communityContext(context: Context, withheld: WithheldSink = () => undefined): Context | null {
  const keywordsReason = withheldKeywords(context.keywords);
  if (keywordsReason) {
    withheld(keywordsReason);
    return null;
  }
  const answers = context.answers.flatMap((answer) => communityAnswer(answer, withheld) ?? []);
  if (answers.length === 0) return null;
  return { ...context, answers, bans: [] };
}

/** A learn event as the community may see it (group 0, the message cleaned), or null. */
export function communityLearnInput(input: LearnInput, withheld: WithheldSink = () => undefined): LearnInput | null {
  const keywordsReason = withheldKeywords(input.keywords) ?? withheldKeywords(input.answerKeywords);
  if (keywordsReason) {
    withheld(keywordsReason);
    return null;
  }
  const message = shareableText(input.message);
  if (!message.ok) {
    withheld(message.reason);
    return null;
  }
  return { ...input, groupId: COMMUNITY_GROUP_ID, message: message.text };
}

/** A hot-word label as the community may see it, or null. */
export function communityLabel(keywords: string, withheld: WithheldSink = () => undefined): string | null {
  const reason = withheldKeywords(keywords);
  if (reason) {
    withheld(reason);
    return null;
  }
  const label = shareableText(keywords);
  if (!label.ok) {
    withheld(label.reason);
    return null;
  }
  return label.text;
}

/** Per-reason counters as `{ withheld_number: n, … }` for a status snapshot. */
export function withheldCounters(): { counts: Record<string, number>; sink: WithheldSink } {
  const counts: Record<string, number> = {};
  for (const reason of WITHHELD_REASONS) counts[`withheld_${reason.replace('-', '_')}`] = 0;
  return {
    counts,
    sink: (reason) => {
      const key = `withheld_${reason.replace('-', '_')}`;
      counts[key] = (counts[key] ?? 0) + 1;
    },
  };
}
