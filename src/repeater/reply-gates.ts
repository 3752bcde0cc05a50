/**
 * The reply rules a message meets before its corpus lookup (docs/rules.md#rep-reply), in their
 * order, shared by the reply path (repeater.ts) and "try a sentence" (try-sentence.ts) so both say
 * the same thing. Pure: what the rules read is passed in.
 */
import { CORPUS_TEXT_LIMITS } from '../common/limits.ts';
import type { GroupConfig } from '../domain/chat-controls.ts';
import { cooldownCause, silencedCause } from './decision-causes.ts';
import { skipped, type Verdict } from './decision.ts';
import { leadingNickname, mentionsAccount } from './cq-text.ts';
import { replyBlocked } from './group-controls.ts';
import type { MessageText } from './keywords.ts';
import { shouldSkipLookup } from './responder.ts';

export interface SpeakerFacts {
  selfId: number;
  plainText: string;
  mentionsSelf: boolean;
  nicknames: readonly string[];
  group: GroupConfig;
  nowSec: number;
  /** What is left of the bot's cool-down in the group. */
  quietMs: number;
}

/** Addressed, switched off, silenced, cooling down, one character: why the bot may not speak now. */
export function speakerGate(text: MessageText, facts: SpeakerFacts): Verdict | null {
  const addressed =
    facts.mentionsSelf ||
    mentionsAccount(text.rawMessage, facts.selfId) ||
    leadingNickname(facts.plainText, facts.nicknames) !== undefined;
  if (addressed) return skipped('addressed');
  const blocked = replyBlocked(facts.group, facts.nowSec);
  if (blocked) return skipped(blocked, blocked === 'silenced' ? silencedCause(facts.group) : undefined);
  if (facts.quietMs > 0) return skipped('cooldown', cooldownCause(facts.quietMs));
  // A one-character text is never worth an answer; a text-less message (a picture) may be repeated.
  if ([...facts.plainText.trim()].length === 1) return skipped('too-short');
  return null;
}

/** No text, no keywords, too long, not worth a lookup: why the corpus is not asked. */
export function lookupGate(text: MessageText): Verdict | null {
  if (!text.isPlainText && text.plainText.trim() === '') return skipped('no-text');
  if (text.keywords.trim() === '') return skipped('no-keywords');
  if (text.keywords.length > CORPUS_TEXT_LIMITS.keywordsMaxChars) {
    return skipped('too-long', { code: 'too-long', params: { max: CORPUS_TEXT_LIMITS.keywordsMaxChars } });
  }
  if (shouldSkipLookup(text, false)) return skipped('skip-rule');
  return null;
}
