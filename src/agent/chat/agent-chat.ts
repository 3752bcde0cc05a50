// The chat path of the agent platform (docs/agent.md#the-flow): after the repeater decided a
// message and had no answer, and the bot was addressed (or, in a group set to `silence`, at a low
// rate in place of silence), the model is asked, beside the reply path and never before it. The
// answer passes the guard and the group's bans and is said through the repeater, so 「不可以」
// bans it like any reply. Every outcome is a decision on the Why page and every call a ledger row.

import type { Clock } from '../../common/clock.ts';
import { errorMessage } from '../../common/errors.ts';
import type { Log } from '../../common/log.ts';
import { TaskSet } from '../../common/task-set.ts';
import type { LlmConfig } from '../../config/index.ts';
import type { GroupChatMessage } from '../../domain/chat.ts';
import type { RepeaterDecision } from '../../repeater/decision.ts';
import { stripNickname } from '../../repeater/cq-text.ts';
import { describeText, type KeywordExtractor } from '../../repeater/keywords.ts';
import { GLOBAL_BAN_GROUP } from '../../repeater/limits.ts';
import type { RandomSource } from '../../repeater/random.ts';
import type { LedgerEntry } from '../../store/agent-chat-ledger.ts';
import { ModelCallError, type LanguageModel } from '../model.ts';
import {
  noMemberMemory,
  noStyleHints,
  noTools,
  type AgentToolbox,
  type MemberMemory,
  type StyleHintSource,
} from '../parts.ts';
import { chatPrompt, sayable } from './chat-prompt.ts';
import type { AgentChatRepeater } from './chat-repeater.ts';
import type { DailyBudget, BudgetSpent } from './daily-budget.ts';
import { modelTurn } from './model-turn.ts';
import { SpeakerAliases } from './speaker-aliases.ts';

/** Recent lines of the group given to the model. */
export const PROMPT_LINES = 12;
/** The configured "unavailable" line is said at most once per group in this time. */
const UNAVAILABLE_LINE_EVERY_MS = 10 * 60_000;
/** Repeater misses a `silence` group may fill: the corpus had nothing (not a cool-down or a gate). */
const SILENCE_MISSES: ReadonlySet<string> = new Set(['no-context', 'no-candidate', 'cached-miss', 'nothing-new']);

export interface AgentChatOptions {
  readonly repeater: AgentChatRepeater;
  readonly keywords: KeywordExtractor;
  readonly botIds: () => ReadonlySet<number>;
  /** The configured model; undefined: the feature is off and nothing is done. */
  readonly model: () => LanguageModel | undefined;
  readonly settings: () => LlmConfig;
  /** True: the text contains a phrase the contamination guard rejects. */
  readonly guarded: (text: string) => boolean;
  readonly ledger: { add(entry: LedgerEntry): Promise<void> };
  readonly budget: DailyBudget;
  readonly style?: StyleHintSource;
  readonly memory?: MemberMemory;
  readonly tools?: AgentToolbox;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly log: Log;
}

export class AgentChat {
  readonly aliases = new SpeakerAliases();
  readonly #options: AgentChatOptions;
  readonly #tasks: TaskSet;
  readonly #stop = new AbortController();
  readonly #lineSaidAt = new Map<number, number>();
  #inflight = 0;

  constructor(options: AgentChatOptions) {
    this.#options = options;
    this.#tasks = new TaskSet((label, error) => options.log.warn({ error: errorMessage(error) }, `${label} failed`));
  }

  /** Calls under way now. */
  get inflight(): number {
    return this.#inflight;
  }

  /**
   * Told every message after the repeater decided it. Synchronous and O(1) unless the model is to
   * be asked; the call itself runs as a task of its own.
   */
  consider(message: GroupChatMessage, decision: RepeaterDecision): void {
    const model = this.#options.model();
    if (model === undefined) return;
    if (decision.outcome !== 'skipped' || decision.reason === 'self') return;
    this.aliases.observe(message.groupId, message.userId, message.senderName);
    const { repeater } = this.#options;
    const group = repeater.controls.group(message.groupId);
    const mode = group.agentChat ?? 'addressed';
    if (mode === 'off') return;
    const addressed = decision.reason === 'addressed';
    const fill =
      !addressed &&
      mode === 'silence' &&
      SILENCE_MISSES.has(decision.reason) &&
      this.#options.random.next() < this.#options.settings().silenceRate;
    if (!addressed && !fill) return;
    // The repeater's "addressed" comes before its silence and switch-off rules: they apply here.
    const nowSec = Math.floor(this.#options.clock.nowMs() / 1000);
    if (!group.reply || group.silenceUntil > nowSec || !repeater.accountOf(message.selfId).enabled) return;
    this.#tasks.run('agent chat', () => this.#answer(model, message, decision));
  }

  /** Ends the calls under way and waits for them (until the deadline). */
  async stop(deadlineMs: number): Promise<void> {
    this.#stop.abort();
    await this.#tasks.drain(deadlineMs);
  }

  /** Resolves once the answers under way are done (tests). */
  async idle(deadlineMs = 10_000): Promise<void> {
    await this.#tasks.drain(deadlineMs);
  }

  async #answer(model: LanguageModel, message: GroupChatMessage, decision: RepeaterDecision): Promise<void> {
    const { clock, settings: current } = this.#options;
    const settings = current();
    const { groupId, userId } = message;
    const spent = this.#options.budget.check(clock.nowMs(), groupId, userId, {
      groupCalls: settings.groupDailyCalls,
      groupTokens: settings.groupDailyTokens,
      memberCalls: settings.memberDailyCalls,
      memberTokens: settings.memberDailyTokens,
    });
    if (spent) return this.#refused(message, decision, 'over_budget', budgetCause(spent));
    if (this.#inflight >= settings.concurrency) {
      return this.#refused(message, decision, 'busy', { code: 'agent-busy', params: { limit: settings.concurrency } });
    }
    this.#inflight++;
    const started = clock.monotonicMs();
    try {
      const signal = AbortSignal.any([this.#stop.signal, AbortSignal.timeout(settings.timeoutSec * 1000)]);
      const text = await this.#ask(model, message, signal);
      const latencyMs = Math.round(clock.monotonicMs() - started);
      this.#say(message, decision, text, latencyMs);
    } catch (error) {
      if (!(error instanceof ModelCallError)) throw error;
      const params = { failure: error.code, ...(error.status !== undefined ? { status: error.status } : {}) };
      this.#record(message, decision, 'skipped', { code: 'agent-model-down', params });
      this.#unavailableLine(message, decision);
    } finally {
      this.#inflight--;
    }
  }

  async #ask(model: LanguageModel, message: GroupChatMessage, signal: AbortSignal): Promise<string | null> {
    const { repeater, botIds, clock } = this.#options;
    const { groupId, selfId, userId } = message;
    const bots = botIds();
    const scope = { selfId, groupId };
    const nicknames = repeater.nicknamesOf(selfId);
    const lines = this.aliases.lines(groupId, repeater.window.recent(groupId, PROMPT_LINES + 1), bots);
    // The message itself is the question, not a line of history.
    if (lines.length > 0) lines.pop();
    const own = new RegExp(`\\[(?:CQ:at,qq=|at:qq=)${selfId}[^\\]]*\\]`, 'g');
    const question = this.aliases.textFor(groupId, stripNickname(message.rawMessage.replace(own, ''), nicknames), bots);
    const [styleHints, facts] = await Promise.all([
      (this.#options.style ?? noStyleHints).approvedPhrases(scope),
      (this.#options.memory ?? noMemberMemory).factsFor(scope, userId),
    ]);
    const toolbox = this.#options.tools ?? noTools;
    return modelTurn({
      model,
      messages: chatPrompt({
        botName: nicknames[0] ?? '',
        lines,
        asker: this.aliases.aliasOf(groupId, userId, bots),
        question,
        styleHints,
        facts,
      }),
      tools: toolbox.tools(scope),
      toolbox,
      context: { ...scope, userId, now: clock.nowMs() },
      signal,
      now: () => clock.monotonicMs(),
      onCall: (call) => {
        const tokens = call.promptTokens + call.completionTokens;
        this.#options.budget.charge(clock.nowMs(), groupId, userId, tokens);
        this.#ledger(message, { ...call, model: call.model || this.#options.settings().model });
      },
    });
  }

  /** The guard, the group's bans, then said through the repeater (recorded, so 「不可以」 finds it). */
  #say(message: GroupChatMessage, decision: RepeaterDecision, raw: string | null, latencyMs: number): void {
    const { repeater } = this.#options;
    const { groupId, selfId } = message;
    const text = sayable(raw, repeater.nicknamesOf(selfId)[0] ?? '');
    if (text === '') return this.#record(message, decision, 'skipped', { code: 'agent-empty' });
    if (this.#options.guarded(text)) return this.#record(message, decision, 'skipped', { code: 'agent-guarded' });
    const keywords = describeText(text, text, this.#options.keywords).keywords;
    if (this.#banned(groupId, keywords)) {
      return this.#record(message, decision, 'skipped', { code: 'agent-banned', params: { answer: text } });
    }
    repeater.say(groupId, selfId, [{ rawMessage: text, keywords }], decision.keywords, null);
    this.#record(
      message,
      decision,
      'replied',
      { code: 'agent-chat', params: { answer: text, latency_ms: latencyMs } },
      [text],
    );
    this.#observe(message, text);
  }

  /** Banned after any context in this group (either strike), or everywhere: a model never says it here. */
  #banned(groupId: number, keywords: string): boolean {
    const here = this.#options.repeater.bans.lists(groupId);
    const everywhere = this.#options.repeater.bans.lists(GLOBAL_BAN_GROUP).active;
    return here.active.includes(keywords) || here.reserve.includes(keywords) || everywhere.includes(keywords);
  }

  #refused(message: GroupChatMessage, decision: RepeaterDecision, outcome: string, cause: Cause): void {
    this.#ledger(message, { model: '', promptTokens: 0, completionTokens: 0, latencyMs: 0, outcome });
    this.#record(message, decision, 'skipped', cause);
    this.#unavailableLine(message, decision);
  }

  /** The configured line, when there is one, at most once per group in UNAVAILABLE_LINE_EVERY_MS. */
  #unavailableLine(message: GroupChatMessage, decision: RepeaterDecision): void {
    const line = this.#options.settings().unavailableLine.trim();
    if (line === '' || this.#options.guarded(line)) return;
    const now = this.#options.clock.monotonicMs();
    const last = this.#lineSaidAt.get(message.groupId);
    if (last !== undefined && now - last < UNAVAILABLE_LINE_EVERY_MS) return;
    this.#lineSaidAt.set(message.groupId, now);
    const keywords = describeText(line, line, this.#options.keywords).keywords;
    if (this.#banned(message.groupId, keywords)) return;
    this.#options.repeater.say(
      message.groupId,
      message.selfId,
      [{ rawMessage: line, keywords }],
      decision.keywords,
      null,
    );
  }

  /** A conversation the bot answered in, for memory: only about members who consented. */
  #observe(message: GroupChatMessage, said: string): void {
    const memory = this.#options.memory;
    if (!memory || memory === noMemberMemory) return;
    const { groupId, selfId } = message;
    const bots = this.#options.botIds();
    const recent = this.#options.repeater.window.recent(groupId, PROMPT_LINES);
    this.#tasks.run('agent observe', async () => {
      const members = [...new Set(recent.map((m) => m.userId).filter((id) => !bots.has(id)))];
      const consented = (
        await Promise.all(members.map(async (id) => ((await memory.hasConsent(selfId, id)) ? id : null)))
      ).filter((id): id is number => id !== null);
      if (consented.length === 0) return;
      const aliasByUserId: Record<number, string> = {};
      for (const id of consented) aliasByUserId[id] = this.aliases.aliasOf(groupId, id, bots);
      const lines = [
        ...this.aliases.lines(groupId, recent, bots),
        { speaker: 'bot', text: said, time: Math.floor(this.#options.clock.nowMs() / 1000) },
      ];
      memory.observe({ selfId, groupId, consentedUserIds: consented, aliasByUserId, lines });
    });
  }

  #ledger(message: GroupChatMessage, call: Omit<LedgerEntry, 'at' | 'selfId' | 'groupId' | 'userId' | 'role'>): void {
    const entry: LedgerEntry = {
      at: this.#options.clock.nowMs(),
      selfId: message.selfId,
      groupId: message.groupId,
      userId: message.userId,
      role: 'chat',
      ...call,
    };
    this.#tasks.run('agent ledger', () => this.#options.ledger.add(entry));
  }

  #record(
    message: GroupChatMessage,
    decision: RepeaterDecision,
    outcome: 'replied' | 'skipped',
    cause: Cause,
    texts: readonly string[] = [],
  ): void {
    this.#options.repeater.record({
      ...decision,
      outcome,
      reason: outcome === 'replied' ? 'agent-chat' : 'agent-chat-skipped',
      texts,
      answerKeywords: null,
      cache: null,
      threshold: null,
      learn: 'not-offered',
      latencyMs: 0,
      cause,
      rawMessage: message.rawMessage,
      senderName: message.senderName,
    });
  }
}

type Cause = { code: string; params?: Record<string, string | number> };

function budgetCause(spent: BudgetSpent): Cause {
  return { code: 'agent-over-budget', params: { scope: spent.scope, kind: spent.kind, limit: spent.limit } };
}
