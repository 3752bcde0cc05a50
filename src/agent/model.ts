// The language-model port: what the agent platform asks of a Chat Completions provider.
// Types only, so the chat path, memory, tasks and catchphrases build against one shape while
// the client (an OpenAI-compatible library) and the test stand-in implement it.

/** One message of a conversation sent to the model; member QQ numbers never appear in `content`. */
export type ModelMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string; readonly name?: string }
  | {
      readonly role: 'assistant';
      readonly content: string | null;
      readonly toolCalls?: readonly ModelToolCall[];
    }
  | { readonly role: 'tool'; readonly toolCallId: string; readonly content: string };

/** A tool the model may call: a JSON Schema for its arguments, as Chat Completions expects. */
export interface ModelTool {
  readonly name: string;
  readonly description: string;
  readonly parameters: Readonly<Record<string, unknown>>;
}

export interface ModelToolCall {
  readonly id: string;
  readonly name: string;
  /** The arguments as the model wrote them (JSON text); parse and validate before use. */
  readonly argumentsJson: string;
}

/** Which configured model: `chat` answers members, `background` does slow work (facts, mining). */
export type ModelRole = 'chat' | 'background';

export interface ModelRequest {
  readonly role: ModelRole;
  readonly messages: readonly ModelMessage[];
  readonly tools?: readonly ModelTool[];
  /** Ends the call (the reply deadline, shutdown). */
  readonly signal?: AbortSignal;
}

export interface ModelUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
}

export interface ModelAnswer {
  readonly text: string | null;
  readonly toolCalls: readonly ModelToolCall[];
  readonly usage: ModelUsage;
  readonly model: string;
}

/** Why a call failed, as the ledger and the Why page word it. */
export type ModelFailureCode = 'timeout' | 'unreachable' | 'http_error' | 'bad_answer' | 'aborted';

export class ModelCallError extends Error {
  constructor(
    readonly code: ModelFailureCode,
    detail: string,
    readonly status?: number,
  ) {
    super(detail);
    this.name = 'ModelCallError';
  }
}

/** A configured provider. Absent (undefined) when no base URL is set: the feature is then off. */
export interface LanguageModel {
  /** Throws `ModelCallError`; never logs the API key. */
  chat(request: ModelRequest): Promise<ModelAnswer>;
}
