/**
 * How an imported context meets the one already stored (docs/guide/backups.md).
 * Every rule is idempotent, so importing the same file twice changes nothing the second
 * time: an answer (same keywords and group) keeps the larger count and the later time, its
 * messages are the union (stored ones first, in order) capped at IMPORT_MESSAGES_CAP unless more
 * were stored already (a new answer keeps all its messages); a ban (same answer keywords and
 * group) is added once; the context keeps the larger trigger count and the later times.
 */
import type { Answer, Ban, Context } from './corpus.ts';

/** Messages kept per answer after merging into a stored one (never fewer than were stored). */
export const IMPORT_MESSAGES_CAP = 64;

export interface ImportDelta {
  /** The context did not exist. */
  created: boolean;
  answersAdded: number;
  answersUpdated: number;
  messagesAdded: number;
  bansAdded: number;
}

export interface ImportMerge {
  /** The merged context; null when nothing changes. */
  context: Context | null;
  /** Of a stored context: the answers that are new or changed (the only ones to write). */
  changedAnswers: Answer[];
  /** Of a stored context: the bans to add. */
  newBans: Ban[];
  delta: ImportDelta;
}

const answerKey = (answer: Pick<Answer, 'keywords' | 'groupId'>): string => `${answer.groupId}\u0000${answer.keywords}`;
const banKey = (ban: Pick<Ban, 'keywords' | 'groupId'>): string => `${ban.groupId}\u0000${ban.keywords}`;

export function mergeImported(stored: Context | null, incoming: Context): ImportMerge {
  if (stored === null) {
    const messages = incoming.answers.reduce((sum, answer) => sum + answer.messages.length, 0);
    return {
      context: incoming,
      changedAnswers: incoming.answers,
      newBans: incoming.bans,
      delta: {
        created: true,
        answersAdded: incoming.answers.length,
        answersUpdated: 0,
        messagesAdded: messages,
        bansAdded: incoming.bans.length,
      },
    };
  }
  const delta: ImportDelta = { created: false, answersAdded: 0, answersUpdated: 0, messagesAdded: 0, bansAdded: 0 };
  const answers = stored.answers.map((answer) => ({ ...answer, messages: [...answer.messages] }));
  const byKey = new Map(answers.map((answer) => [answerKey(answer), answer]));
  const changed = new Set<Answer>();
  for (const offered of incoming.answers) {
    const existing = byKey.get(answerKey(offered));
    if (!existing) {
      // A new answer keeps every message the file has; the cap bounds unions only.
      const added = { ...offered, messages: [...offered.messages] };
      answers.push(added);
      byKey.set(answerKey(added), added);
      changed.add(added);
      delta.answersAdded++;
      delta.messagesAdded += added.messages.length;
      continue;
    }
    const before = { count: existing.count, time: existing.time, messages: existing.messages.length };
    existing.count = Math.max(existing.count, offered.count);
    existing.time = Math.max(existing.time, offered.time);
    const cap = Math.max(IMPORT_MESSAGES_CAP, existing.messages.length);
    const seen = new Set(existing.messages);
    for (const message of offered.messages) {
      if (existing.messages.length >= cap) break;
      if (seen.has(message)) continue;
      seen.add(message);
      existing.messages.push(message);
    }
    delta.messagesAdded += existing.messages.length - before.messages;
    if (
      existing.count !== before.count ||
      existing.time !== before.time ||
      existing.messages.length !== before.messages
    ) {
      changed.add(existing);
      delta.answersUpdated++;
    }
  }
  const bans = [...stored.bans];
  const banKeys = new Set(bans.map(banKey));
  const newBans: Ban[] = [];
  for (const ban of incoming.bans) {
    if (banKeys.has(banKey(ban))) continue;
    banKeys.add(banKey(ban));
    bans.push(ban);
    newBans.push(ban);
    delta.bansAdded++;
  }
  const context: Context = {
    keywords: stored.keywords,
    time: Math.max(stored.time, incoming.time),
    triggerCount: Math.max(stored.triggerCount, incoming.triggerCount),
    clearTime: Math.max(stored.clearTime, incoming.clearTime),
    answers,
    bans,
  };
  const isChanged =
    delta.answersAdded + delta.answersUpdated + delta.bansAdded > 0 ||
    context.time !== stored.time ||
    context.triggerCount !== stored.triggerCount ||
    context.clearTime !== stored.clearTime;
  return { context: isChanged ? context : null, changedAnswers: [...changed], newBans, delta };
}

/** The lengths the live learning path keeps (passed in: the domain imports nothing). */
export interface TextLimits {
  keywordsMaxChars: number;
  answerMaxChars: number;
}

/** What `limitImported` left out, by kind. */
export interface ImportSkips {
  /** Contexts whose keywords are too long (left out whole). */
  contexts: number;
  /** Answers whose keywords are too long, or every message of which was. */
  answers: number;
  messages: number;
  bans: number;
}

export const noSkips = (): ImportSkips => ({ contexts: 0, answers: 0, messages: 0, bans: 0 });

/**
 * An imported context cut to what live learning would have kept (docs/rules.md#import-limits):
 * a context with over-long keywords is left out whole, an answer with over-long keywords goes, a
 * message longer than an answer may be goes (and its answer with it when none is left), a ban on
 * over-long keywords goes. Lengths are counted as the live path counts them (`.length`). Null
 * when the context goes; `skipped` is added to.
 */
export function limitImported(context: Context, limits: TextLimits, skipped: ImportSkips): Context | null {
  if (context.keywords.length > limits.keywordsMaxChars) {
    skipped.contexts++;
    return null;
  }
  const answers: Answer[] = [];
  for (const answer of context.answers) {
    if (answer.keywords.length > limits.keywordsMaxChars) {
      skipped.answers++;
      continue;
    }
    const messages = answer.messages.filter((message) => message.length <= limits.answerMaxChars);
    skipped.messages += answer.messages.length - messages.length;
    if (messages.length === 0 && answer.messages.length > 0) {
      skipped.answers++;
      continue;
    }
    answers.push(messages.length === answer.messages.length ? answer : { ...answer, messages });
  }
  const bans = context.bans.filter((ban) => ban.keywords.length <= limits.keywordsMaxChars);
  skipped.bans += context.bans.length - bans.length;
  if (answers.length === context.answers.length && bans.length === context.bans.length) return context;
  return { ...context, answers, bans };
}

/**
 * An export without group identities: every answer and ban gets group 0; answers that become the
 * same (same keywords) are one, with their counts added and messages united.
 */
export function anonymiseContext(context: Context): Context {
  const answers = new Map<string, Answer>();
  for (const answer of context.answers) {
    const existing = answers.get(answer.keywords);
    if (!existing) {
      answers.set(answer.keywords, { ...answer, groupId: 0, messages: [...answer.messages] });
      continue;
    }
    existing.count += answer.count;
    existing.time = Math.max(existing.time, answer.time);
    for (const message of answer.messages) if (!existing.messages.includes(message)) existing.messages.push(message);
  }
  const bans = new Map<string, Ban>();
  for (const ban of context.bans) if (!bans.has(ban.keywords)) bans.set(ban.keywords, { ...ban, groupId: 0 });
  return { ...context, answers: [...answers.values()], bans: [...bans.values()] };
}
