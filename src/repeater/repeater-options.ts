/**
 * What the repeater is given (src/repeater/repeater.ts): its settings and the ports it talks to,
 * and the per-account settings and usage hooks the composition root wires in.
 */
import type { ActivityRecorder } from '../domain/activity.ts';
import type { MemberCommandHandler } from './member-command.ts';
import type { EnqueueOutcome, LearnRequest } from '../corpus/learning-queue.ts';
import type { ChatActions } from '../ports/chat.ts';
import type { CorpusRepository, ReplyLookupSource } from '../ports/corpus-repository.ts';
import type { BlacklistRepository, GroupMessageLog } from '../ports/group-log.ts';
import type { PoolPressure } from '../ports/pool-pressure.ts';
import type { Clock } from '../common/clock.ts';
import type { Log } from '../common/log.ts';
import type { RepeaterDecision } from './decision.ts';
import type { ClaimVerdict } from './fleet-claim.ts';
import type { ChatControls } from './group-controls.ts';
import type { KeywordExtractor } from './keywords.ts';
import type { RandomSource } from './random.ts';
import type { RepeaterSettings } from './settings.ts';

/**
 * The corpus operations the repeater uses (the composite in production). It never learns here. The
 * reply lookup says whether its answer is whole, so an answer missing a remote part is never
 * remembered as a miss (docs/rules.md#transient-not-miss).
 */
export type ReplyCorpus = Pick<CorpusRepository, 'appendBan' | 'findBanReplyTarget'> & ReplyLookupSource;

/** Where learning goes: `CorpusRuntime.learning` (the only way to learn). */
export interface LearningSink {
  enqueue(request: LearnRequest): EnqueueOutcome;
}

export interface RepeaterOptions {
  settings: RepeaterSettings;
  keywords: KeywordExtractor;
  corpus: ReplyCorpus;
  learning: LearningSink;
  /** The store's pool pressure: reply lookups are skipped at or above 0.55. */
  pressure: PoolPressure;
  chat: ChatActions;
  messageLog: GroupMessageLog;
  blacklists: BlacklistRepository;
  /** The bot accounts connected to this process (their messages are never learned or counted). */
  botIds: () => ReadonlySet<number>;
  clock: Clock;
  random?: RandomSource;
  log: Log;
  /** Waits before sends; tests pass an immediate one. */
  sleep?: (ms: number) => Promise<void>;
  /** Told every decision (demo output, benchmark, metrics). */
  onDecision?: (decision: RepeaterDecision) => void;
  /** Per-account settings (console bot-configs), read from memory on every message. */
  account?: (selfId: number) => AccountSettings;
  /** Told each corpus answer that was sent (the console's "where used"); never awaited. */
  onAnswerSent?: (sent: AnswerSent) => void;
  /** Per-group and per-user controls (console group-configs / user-configs), read from memory. */
  controls?: ChatControls;
  /**
   * The fleet claim on a message's fingerprint, when several processes share the database
   * (docs/rules.md#fleet-claims); resolves within a small bound and never rejects. Undefined:
   * no claim is needed now (no other process), and the message is handled here at once.
   */
  claim?: (key: string, groupId: number) => Promise<ClaimVerdict> | undefined;
  /** Told after each ban is written: the composition root tells the other processes. */
  onBanned?: (groupId: number, contextKeywords: string) => void;
  /** Where chat bans and group commands are recorded (docs/rules.md#activity-log); default none. */
  activity?: ActivityRecorder;
  /** 「记住我」/「忘记我」 (the agent memory, docs/agent-memory.md); absent: not recognised. */
  memberCommands?: MemberCommandHandler;
}

export interface AnswerSent {
  groupId: number;
  contextKeywords: string;
  answerKeywords: string;
  /** Unix seconds. */
  time: number;
}

export interface AccountSettings {
  /** False: the account neither learns from nor answers messages. */
  enabled: boolean;
  /** Names this account answers to, besides the repeater's nicknames. */
  nicknames: readonly string[];
  /** An answer whose sending failed is banned in that group. */
  banFailedSends: boolean;
  /** Bot admins: treated as group admins (they may silence the bot). */
  admins: ReadonlySet<number>;
}

/** The settings of an account nobody configured: on, no extra nicknames, no admins. */
export const EVERY_ACCOUNT: AccountSettings = {
  enabled: true,
  nicknames: [],
  banFailedSends: false,
  admins: new Set(),
};

/** The nicknames the bot answers to in one account: the global ones, then the account's own. */
export function withAccountNicknames(global: readonly string[], account: AccountSettings): readonly string[] {
  return account.nicknames.length === 0 ? global : [...global, ...account.nicknames];
}
