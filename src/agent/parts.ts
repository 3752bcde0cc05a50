// The seams between the agent platform's parts. The chat path (answering with the model) asks
// these for what it puts in a prompt and offers the model; memory, tasks and catchphrases
// implement them. Each has a "nothing" implementation so the chat path works before, and
// without, the others.

import type { ModelTool } from './model.ts';

/** Where a conversation happens: the bot account and its group. */
export interface AgentScope {
  readonly selfId: number;
  readonly groupId: number;
}

/** One line of a conversation as the model may see it: an alias, never a QQ number. */
export interface ExcerptLine {
  /** A nickname or stable alias of the speaker; the bot's own lines use 'bot'. */
  readonly speaker: string;
  readonly text: string;
  readonly time: number;
}

/** A conversation the bot took part in, about the members who consented (memory). */
export interface ConversationExcerpt extends AgentScope {
  /** The QQ numbers of members whose facts may be learned from it (consented only). */
  readonly consentedUserIds: readonly number[];
  /** Speaker alias of each consented member, so facts can be attributed without the number. */
  readonly aliasByUserId: Readonly<Record<number, string>>;
  readonly lines: readonly ExcerptLine[];
}

/** Approved catchphrases of a group, given to the model as style hints (never unapproved ones). */
export interface StyleHintSource {
  approvedPhrases(scope: AgentScope): Promise<readonly string[]>;
}

/** What the bot remembers of members who consented; nothing for the rest. */
export interface MemberMemory {
  /** Facts about this member for a prompt; empty without consent. */
  factsFor(scope: AgentScope, userId: number): Promise<readonly string[]>;
  /** Queue a conversation the bot answered in, for facts to be drawn from later. */
  observe(excerpt: ConversationExcerpt): void;
  /** Whether the member consented (the chat path uses it to decide what to pass to observe). */
  hasConsent(selfId: number, userId: number): Promise<boolean>;
}

/** Who asked, for a tool call: the scope and the member (by QQ number, never sent to the model). */
export interface ToolCallContext extends AgentScope {
  readonly userId: number;
  readonly now: number;
}

/** The tools the model may call. `run` returns the text handed back to the model. */
export interface AgentToolbox {
  tools(scope: AgentScope): readonly ModelTool[];
  run(name: string, argumentsJson: string, context: ToolCallContext): Promise<string>;
}

export const noStyleHints: StyleHintSource = { approvedPhrases: async () => [] };

export const noMemberMemory: MemberMemory = {
  factsFor: async () => [],
  observe: () => {},
  hasConsent: async () => false,
};

export const noTools: AgentToolbox = {
  tools: () => [],
  run: async (name) => `unknown tool ${name}`,
};
