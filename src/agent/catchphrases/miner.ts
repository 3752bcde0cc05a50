/**
 * Mining a group's own voice (docs/agent-catchphrases.md): the answers the group says most
 * often, after many different phrases, become catchphrase candidates. A candidate is plain text
 * of a bounded length; commands to other bots, pictures and other CQ codes, anything banned in
 * the group or everywhere, anything the learning guard rejects and anything that looks like a QQ
 * number are left out. The community's answers are mined only when the operator chose to
 * (`CHORUS_AGENT_CATCHPHRASES_SHARED`). Candidates are only proposed: nothing mined reaches the
 * model before the console approves it (style-hints.ts).
 */
import { rejectsMessage, type GuardRule } from '../../domain/guard.ts';
import type { FrequentAnswer, FrequentAnswerQuery } from '../../store/agent-catchphrases-corpus.ts';
import type { MinedPhrase, OfferResult } from '../../store/agent-catchphrases-store.ts';

/** The bounds of one group's mining; each costs at most one bounded read of the corpus per source. */
export interface MiningRules {
  /** Shortest and longest phrase, in characters (code points). */
  minChars: number;
  maxChars: number;
  /** Times the group must have said it. */
  minCount: number;
  /** After at least this many different phrases (a catchphrase is said to many things). */
  minContexts: number;
  /** The group's newest answers looked at. */
  scanRows: number;
  /** Answer keywords read per source, most said first. */
  top: number;
  /** New candidates per run, and candidates waiting per group beyond which none are added. */
  perRun: number;
  maxPending: number;
}

export const MINING_RULES: MiningRules = {
  minChars: 2,
  maxChars: 24,
  minCount: 3,
  minContexts: 2,
  scanRows: 20_000,
  top: 200,
  perRun: 20,
  maxPending: 60,
};

/** Why a frequent answer was not proposed (the mining report counts them). */
export type SkipReason = 'picture' | 'command' | 'length' | 'number' | 'banned' | 'guard' | 'rare';

/** The corpus reads mining needs (src/store/agent-catchphrases-corpus.ts). */
export interface MiningCorpus {
  frequentAnswers(groupId: number, source: 'local' | 'shared', query: FrequentAnswerQuery): Promise<FrequentAnswer[]>;
  bannedKeywords(groupId: number): Promise<Set<string>>;
}

/** Where candidates go (src/store/agent-catchphrases-store.ts). */
export interface CandidateBook {
  offer(groupId: number, phrases: readonly MinedPhrase[], maxNew: number, now: number): Promise<OfferResult>;
  pendingCount(groupId: number): Promise<number>;
}

export interface MinerOptions {
  corpus: MiningCorpus;
  book: CandidateBook;
  /** Commands to some bot (the repeater's `isCommand`), never a line of ours. */
  isCommand: (text: string) => boolean;
  /** The learning guard as configured now. */
  guard: () => GuardRule;
  /** Whether the community's answers are mined too (the operator's choice, default off). */
  useShared: () => boolean;
  nowSec: () => number;
  rules?: Partial<MiningRules>;
}

export interface MiningReport {
  groupId: number;
  /** Frequent answers looked at. */
  examined: number;
  /** Phrases that passed every rule. */
  eligible: number;
  added: number;
  refreshed: number;
  skipped: Record<SkipReason, number>;
  /** Whether the community's answers were mined too. */
  shared: boolean;
}

/** Five or more digits in a row: a QQ number (or a phone number) never becomes a style hint. */
const LONG_NUMBER = /\d{5,}/;

export class CatchphraseMiner {
  readonly rules: MiningRules;
  readonly #options: MinerOptions;

  constructor(options: MinerOptions) {
    this.#options = options;
    this.rules = { ...MINING_RULES, ...options.rules };
  }

  async mine(groupId: number): Promise<MiningReport> {
    const { corpus, book } = this.#options;
    const rules = this.rules;
    const shared = this.#options.useShared();
    const query: FrequentAnswerQuery = {
      scanRows: rules.scanRows,
      minCount: rules.minCount,
      top: rules.top,
      messages: 3,
    };
    const banned = await corpus.bannedKeywords(groupId);
    const sources: ('local' | 'shared')[] = shared ? ['local', 'shared'] : ['local'];
    const report: MiningReport = {
      groupId,
      examined: 0,
      eligible: 0,
      added: 0,
      refreshed: 0,
      skipped: { picture: 0, command: 0, length: 0, number: 0, banned: 0, guard: 0, rare: 0 },
      shared,
    };
    const phrases: MinedPhrase[] = [];
    for (const source of sources) {
      for (const answer of await corpus.frequentAnswers(groupId, source, query)) {
        report.examined++;
        const verdict = this.#judge(answer, banned);
        if (typeof verdict !== 'string') {
          phrases.push({ text: verdict.text, count: answer.count, contexts: answer.contexts, source });
        } else {
          report.skipped[verdict]++;
        }
      }
    }
    report.eligible = phrases.length;
    const room = Math.max(0, Math.min(rules.perRun, rules.maxPending - (await book.pendingCount(groupId))));
    const offered = await book.offer(groupId, phrases, room, this.#options.nowSec());
    report.added = offered.added;
    report.refreshed = offered.refreshed;
    return report;
  }

  /** The phrase to propose for a frequent answer, or why none is. */
  #judge(answer: FrequentAnswer, banned: ReadonlySet<string>): { text: string } | SkipReason {
    if (banned.has(answer.keywords)) return 'banned';
    if (answer.contexts < this.rules.minContexts) return 'rare';
    let reason: SkipReason = 'picture';
    // The newest message that passes; the reason reported is the first message's.
    for (const [index, message] of answer.messages.entries()) {
      const verdict = this.judgeText(message);
      if (typeof verdict !== 'string') return verdict;
      if (index === 0) reason = verdict;
    }
    return reason;
  }

  /** Whether one message text may be a catchphrase: its trimmed text, or why not. */
  judgeText(message: string): { text: string } | Exclude<SkipReason, 'banned' | 'rare'> {
    const text = message.trim();
    if (text.includes('[CQ:') || text.includes('\n') || text === '') return 'picture';
    if (this.#options.isCommand(text)) return 'command';
    const length = [...text].length;
    if (length < this.rules.minChars || length > this.rules.maxChars) return 'length';
    if (LONG_NUMBER.test(text)) return 'number';
    if (rejectsMessage(this.#options.guard(), text)) return 'guard';
    return { text };
  }
}
