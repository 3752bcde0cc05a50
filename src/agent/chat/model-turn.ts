// One model answer with its tool rounds (docs/agent.md#the-flow): call, run the tools the model
// asked for, call again, at most MAX_TOOL_ROUNDS times, then the final text. Every call is told to
// `onCall` (the ledger and the budget) whatever its outcome.

import { ModelCallError, type LanguageModel, type ModelAnswer, type ModelMessage, type ModelTool } from '../model.ts';
import type { AgentToolbox, ToolCallContext } from '../parts.ts';
import { stripNumbers } from './speaker-aliases.ts';

/** Tool rounds per answer at most: the model then has to answer with what it has. */
export const MAX_TOOL_ROUNDS = 3;
/** Longest tool result handed back to the model (characters). */
const TOOL_RESULT_MAX = 2000;

export interface CallRecord {
  readonly model: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly latencyMs: number;
  /** 'ok' or a ModelFailureCode. */
  readonly outcome: string;
}

export interface TurnRequest {
  readonly model: LanguageModel;
  readonly messages: readonly ModelMessage[];
  readonly tools: readonly ModelTool[];
  readonly toolbox: AgentToolbox;
  readonly context: ToolCallContext;
  readonly signal: AbortSignal;
  readonly now: () => number;
  readonly onCall: (call: CallRecord) => void;
}

/** The final text (null: none), or throws the ModelCallError of the call that failed. */
export async function modelTurn(request: TurnRequest): Promise<string | null> {
  const messages = [...request.messages];
  for (let round = 0; ; round++) {
    const offer = round < MAX_TOOL_ROUNDS && request.tools.length > 0;
    const started = request.now();
    let answer: ModelAnswer;
    try {
      answer = await request.model.chat({
        role: 'chat',
        messages,
        ...(offer ? { tools: request.tools } : {}),
        signal: request.signal,
      });
    } catch (error) {
      let failure =
        error instanceof ModelCallError ? error : new ModelCallError('bad_answer', 'the model client failed');
      // The reply deadline ended it (the caller's timeout signal): a timeout, not an abort.
      const reason: unknown = request.signal.reason;
      if (failure.code === 'aborted' && reason instanceof DOMException && reason.name === 'TimeoutError') {
        failure = new ModelCallError('timeout', 'no answer before the reply deadline');
      }
      request.onCall({
        model: '',
        promptTokens: 0,
        completionTokens: 0,
        latencyMs: request.now() - started,
        outcome: failure.code,
      });
      throw failure;
    }
    request.onCall({
      model: answer.model,
      promptTokens: answer.usage.promptTokens,
      completionTokens: answer.usage.completionTokens,
      latencyMs: request.now() - started,
      outcome: 'ok',
    });
    if (!offer || answer.toolCalls.length === 0) return answer.text;
    messages.push({ role: 'assistant', content: answer.text, toolCalls: answer.toolCalls });
    for (const call of answer.toolCalls) {
      let result: string;
      try {
        result = await request.toolbox.run(call.name, call.argumentsJson, request.context);
      } catch (error) {
        result = `tool failed: ${error instanceof Error ? error.message : String(error)}`;
      }
      // A tool's text may hold a member's number: it is stripped like every other line sent.
      messages.push({ role: 'tool', toolCallId: call.id, content: stripNumbers(result.slice(0, TOOL_RESULT_MAX)) });
    }
  }
}
