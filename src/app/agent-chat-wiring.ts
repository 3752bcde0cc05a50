// The chat path of the agent platform, wired (docs/agent.md): the model client built from the
// CHORUS_LLM_* settings (none without a base URL, rebuilt when they change), the daily budgets
// seeded from the ledger, and the AgentChat told each decided message by the chat side.
// service.ts calls this once; the console reads `port`.

import type { Clock } from '../common/clock.ts';
import { errorMessage } from '../common/errors.ts';
import type { Log } from '../common/log.ts';
import type { ConfigStore, LlmConfig } from '../config/index.ts';
import { rejectsMessage } from '../domain/guard.ts';
import type { GroupChatMessage } from '../domain/chat.ts';
import { AgentChat } from '../agent/chat/agent-chat.ts';
import type { AgentChatRepeater } from '../agent/chat/chat-repeater.ts';
import { DailyBudget } from '../agent/chat/daily-budget.ts';
import type { LanguageModel } from '../agent/model.ts';
import { OpenAiModel } from '../agent/openai-model.ts';
import type { AgentToolbox, MemberMemory, StyleHintSource } from '../agent/parts.ts';
import type { AgentChatPort } from '../console/deps.ts';
import type { RepeaterDecision } from '../repeater/decision.ts';
import type { KeywordExtractor } from '../repeater/keywords.ts';
import { systemRandom, type RandomSource } from '../repeater/random.ts';
import { AgentChatLedgerStore } from '../store/agent-chat-ledger.ts';
import type { StoreEngine } from '../store/schema.ts';
import { localDay } from './daily-stats-buffer.ts';

export interface AgentChatWiringOptions {
  config: ConfigStore;
  engine: StoreEngine;
  repeater: AgentChatRepeater;
  keywords: KeywordExtractor;
  botIds: () => ReadonlySet<number>;
  clock: Clock;
  log: Log;
  random?: RandomSource;
  /** The seams other parts fill (catchphrases, memory, tools); default: nothing. */
  style?: StyleHintSource;
  memory?: MemberMemory;
  tools?: AgentToolbox;
}

export interface AgentChatWiring {
  /** Told each message the repeater decided (chat-wiring.ts); O(1) unless the model is asked. */
  consider(message: GroupChatMessage, decision: RepeaterDecision): void;
  /** The configured model, or undefined (no CHORUS_LLM_BASE_URL): other parts take it as theirs. */
  model(): LanguageModel | undefined;
  readonly chat: AgentChat;
  readonly port: AgentChatPort;
  stop(deadlineMs: number): Promise<void>;
}

export function wireAgentChat(options: AgentChatWiringOptions): AgentChatWiring {
  const { config, clock, log } = options;
  const ledger = new AgentChatLedgerStore(options.engine);
  const budget = new DailyBudget(localDay);
  const settings = (): LlmConfig => config.current().llm;
  let built: { key: string; model: LanguageModel } | undefined;
  const model = (): LanguageModel | undefined => {
    const llm = settings();
    if (llm.baseUrl === '') return (built = undefined);
    const key = JSON.stringify([
      llm.baseUrl,
      llm.apiKey,
      llm.model,
      llm.backgroundModel,
      llm.temperature,
      llm.timeoutSec,
    ]);
    if (built?.key !== key) {
      const client = new OpenAiModel({
        baseUrl: llm.baseUrl,
        apiKey: llm.apiKey,
        models: { chat: llm.model, background: llm.backgroundModel === '' ? llm.model : llm.backgroundModel },
        temperature: llm.temperature,
        timeoutMs: llm.timeoutSec * 1000,
      });
      built = { key, model: client };
    }
    return built.model;
  };
  const chat = new AgentChat({
    repeater: options.repeater,
    keywords: options.keywords,
    botIds: options.botIds,
    model,
    settings,
    guarded: (text) => rejectsMessage(config.current().guard, text),
    ledger,
    budget,
    ...(options.style ? { style: options.style } : {}),
    ...(options.memory ? { memory: options.memory } : {}),
    ...(options.tools ? { tools: options.tools } : {}),
    clock,
    random: options.random ?? systemRandom,
    log,
  });
  // Today's calls so far (an earlier run today, the fleet's other processes at start) count too.
  if (settings().baseUrl !== '') {
    ledger
      .totalsSince(startOfDay(clock.nowMs()))
      .then((totals) => budget.seed(clock.nowMs(), totals))
      .catch((error: unknown) => log.warn({ error: errorMessage(error) }, 'reading the model ledger failed'));
  }
  const port = agentChatPort(
    config,
    ledger,
    () => chat.inflight,
    () => clock.nowMs(),
  );
  return {
    consider: (message, decision) => chat.consider(message, decision),
    model,
    chat,
    port,
    stop: (deadlineMs) => chat.stop(deadlineMs),
  };
}

/**
 * What the console shows of the model path: the settings, today's totals from the ledger (every
 * process on the database) and this process's calls under way. A console without a chat side
 * (tests, a console-only process) gets it too, with none under way.
 */
export function agentChatPort(
  config: ConfigStore,
  ledger: AgentChatLedgerStore,
  inflight: () => number,
  now: () => number = Date.now,
): AgentChatPort {
  return {
    async overview() {
      const llm = config.current().llm;
      const since = startOfDay(now());
      const [totals, outcomes] = await Promise.all([ledger.totalsSince(since), ledger.outcomesSince(since)]);
      return {
        configured: llm.baseUrl !== '',
        baseUrl: llm.baseUrl,
        model: llm.model,
        backgroundModel: llm.backgroundModel === '' ? llm.model : llm.backgroundModel,
        timeoutSec: llm.timeoutSec,
        concurrency: { limit: llm.concurrency, inflight: inflight() },
        budgets: {
          groupDailyCalls: llm.groupDailyCalls,
          groupDailyTokens: llm.groupDailyTokens,
          memberDailyCalls: llm.memberDailyCalls,
          memberDailyTokens: llm.memberDailyTokens,
        },
        today: { calls: totals.calls, tokens: totals.tokens, outcomes },
      };
    },
    ledger: (query) => ledger.page(query),
  };
}

function startOfDay(nowMs: number): number {
  const date = new Date(nowMs);
  date.setHours(0, 0, 0, 0);
  return date.getTime();
}
