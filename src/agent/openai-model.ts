// The language-model client: `LanguageModel` over any OpenAI-compatible Chat Completions
// endpoint, through the `openai` library (retries off: a member waits for one try at most).
// Errors become `ModelCallError` codes; the API key never reaches a log line or an error detail.

import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import {
  ModelCallError,
  type LanguageModel,
  type ModelAnswer,
  type ModelMessage,
  type ModelRequest,
  type ModelRole,
  type ModelToolCall,
} from './model.ts';

export interface OpenAiModelOptions {
  /** e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1. */
  readonly baseUrl: string;
  /** '' for a local model that needs none. */
  readonly apiKey: string;
  readonly models: Readonly<Record<ModelRole, string>>;
  readonly temperature: number;
  /** Every call ends by then at the latest (the reply deadline). */
  readonly timeoutMs: number;
  /** Streamed answers (stream_options.include_usage) or one JSON answer. */
  readonly stream?: boolean;
}

/** Some local servers refuse a request without any Authorization header; they ignore this one. */
const NO_KEY = 'no-key';

export class OpenAiModel implements LanguageModel {
  readonly #client: OpenAI;
  readonly #options: OpenAiModelOptions;

  constructor(options: OpenAiModelOptions) {
    this.#options = options;
    this.#client = new OpenAI({
      baseURL: options.baseUrl,
      apiKey: options.apiKey === '' ? NO_KEY : options.apiKey,
      maxRetries: 0,
      // The deadline below ends the call; the library's own is a second line.
      timeout: options.timeoutMs + 1000,
    });
  }

  async chat(request: ModelRequest): Promise<ModelAnswer> {
    const deadline = AbortSignal.timeout(this.#options.timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, deadline]) : deadline;
    const model = this.#options.models[request.role];
    const body: ChatCompletionCreateParamsBase = {
      model,
      messages: request.messages.map(toWire),
      temperature: this.#options.temperature,
      ...(request.tools && request.tools.length > 0 ? { tools: request.tools.map(toolToWire) } : {}),
    };
    try {
      return this.#options.stream ? await this.#streamed(body, signal) : await this.#plain(body, signal);
    } catch (error) {
      throw this.#failure(error, deadline.aborted);
    }
  }

  async #plain(body: ChatCompletionCreateParamsBase, signal: AbortSignal): Promise<ModelAnswer> {
    const completion = await this.#client.chat.completions.create({ ...body, stream: false }, { signal });
    const message = completion.choices[0]?.message;
    if (!message) throw new ModelCallError('bad_answer', 'the answer held no choice');
    const toolCalls: ModelToolCall[] = [];
    for (const call of message.tool_calls ?? []) {
      if (call.type === 'function')
        toolCalls.push({ id: call.id, name: call.function.name, argumentsJson: call.function.arguments });
    }
    return {
      text: message.content ?? null,
      toolCalls,
      usage: {
        promptTokens: completion.usage?.prompt_tokens ?? 0,
        completionTokens: completion.usage?.completion_tokens ?? 0,
      },
      model: completion.model || body.model,
    };
  }

  async #streamed(body: ChatCompletionCreateParamsBase, signal: AbortSignal): Promise<ModelAnswer> {
    const stream = await this.#client.chat.completions.create(
      { ...body, stream: true, stream_options: { include_usage: true } },
      { signal },
    );
    let text: string | null = null;
    let model = body.model;
    let usage = { promptTokens: 0, completionTokens: 0 };
    const calls = new Map<number, { id: string; name: string; argumentsJson: string }>();
    let chunks = 0;
    for await (const chunk of stream as AsyncIterable<ChatCompletionChunk>) {
      chunks++;
      if (chunk.model) model = chunk.model;
      if (chunk.usage) {
        usage = { promptTokens: chunk.usage.prompt_tokens, completionTokens: chunk.usage.completion_tokens };
      }
      const delta = chunk.choices[0]?.delta;
      if (!delta) continue;
      if (typeof delta.content === 'string') text = (text ?? '') + delta.content;
      for (const part of delta.tool_calls ?? []) {
        const call = calls.get(part.index) ?? { id: '', name: '', argumentsJson: '' };
        if (part.id) call.id = part.id;
        if (part.function?.name) call.name += part.function.name;
        if (part.function?.arguments) call.argumentsJson += part.function.arguments;
        calls.set(part.index, call);
      }
    }
    if (chunks === 0) throw new ModelCallError('bad_answer', 'the stream ended without a chunk');
    const toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
    return { text, toolCalls, usage, model };
  }

  /** A code for the ledger and the Why page, and a detail that never holds the key. */
  #failure(error: unknown, pastDeadline: boolean): ModelCallError {
    if (error instanceof ModelCallError) return error;
    if (pastDeadline) return new ModelCallError('timeout', `no answer within ${this.#options.timeoutMs} ms`);
    if (error instanceof APIConnectionTimeoutError) return new ModelCallError('timeout', 'the provider timed out');
    if (error instanceof APIUserAbortError) return new ModelCallError('aborted', 'the call was ended');
    if (error instanceof APIConnectionError) {
      return new ModelCallError('unreachable', this.#redact(`cannot reach the provider: ${causeOf(error)}`));
    }
    if (error instanceof APIError) {
      const status = error.status;
      if (status === undefined) return new ModelCallError('bad_answer', this.#redact(error.message));
      return new ModelCallError('http_error', this.#redact(`HTTP ${status}: ${error.message}`), status);
    }
    if (error instanceof Error && error.name === 'AbortError')
      return new ModelCallError('aborted', 'the call was ended');
    const detail = error instanceof Error ? error.message : String(error);
    return new ModelCallError('bad_answer', this.#redact(detail));
  }

  #redact(text: string): string {
    const key = this.#options.apiKey;
    const clipped = text.length > 300 ? `${text.slice(0, 300)}…` : text;
    return key.length >= 4 ? clipped.split(key).join('***') : clipped;
  }
}

function causeOf(error: APIConnectionError): string {
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? cause.message : error.message;
}

function toWire(message: ModelMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return message.name === undefined
        ? { role: 'user', content: message.content }
        : { role: 'user', content: message.content, name: message.name };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.toolCalls && message.toolCalls.length > 0
          ? {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: call.argumentsJson },
              })),
            }
          : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

function toolToWire(tool: { name: string; description: string; parameters: Readonly<Record<string, unknown>> }) {
  const wire: ChatCompletionTool = {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: { ...tool.parameters } },
  };
  return wire;
}
