/**
 * The agent's toolbox (the `AgentToolbox` seam of src/agent/parts.ts; docs/agent-tasks.md#tools):
 * the catalogue offered to the model and the calls it makes. Arguments are the model's JSON text,
 * checked strictly against each tool's schema; anything wrong (bad JSON, an unknown or missing
 * field, a time in the past, a bound reached) comes back as one short `error: ...` line for the
 * model to read and correct, never a throw that would break the chat. What comes back carries no
 * QQ number (for-model.ts).
 */
import { Compile } from 'typebox/compile';
import { errorMessage } from '../../common/errors.ts';
import type { Log } from '../../common/log.ts';
import { describeSchemaErrors, type SchemaError } from '../../common/schema-errors.ts';
import type { Context } from '../../domain/corpus.ts';
import type { ModelTool } from '../model.ts';
import type { AgentScope, AgentToolbox, ToolCallContext } from '../parts.ts';
import type { Reminders } from '../tasks/reminders.ts';
import { TASKS } from '../tasks/limits.ts';
import { TOOL_CATALOGUE, type ToolName } from './catalogue.ts';
import { forModel } from './for-model.ts';
import { describeLocal, parseWhen } from './local-time.ts';

export interface ToolboxDeps {
  reminders: Pick<Reminders, 'create'>;
  /** The corpus lookup the repeater answers from. */
  corpus: { findByKeywordsForReply(keywords: string): Promise<Context | null> };
  /** A phrase turned into corpus keywords as the repeater turns a message into keywords. */
  keywordsOf(text: string): string;
  /** The group's recent topic words, oldest first (the repeater's message window). */
  recentTopics(groupId: number): readonly string[];
  /** Answer keywords banned in the group (its blacklist and the everywhere one). */
  bannedIn(groupId: number): ReadonlySet<string>;
  log: Log;
}

const checks = new Map(TOOL_CATALOGUE.map((tool) => [tool.name, Compile(tool.parameters)]));
const offered: readonly ModelTool[] = TOOL_CATALOGUE.map((tool) => ({
  name: tool.name,
  description: tool.description,
  parameters: tool.parameters as Record<string, unknown>,
}));

export class Toolbox implements AgentToolbox {
  readonly #deps: ToolboxDeps;

  constructor(deps: ToolboxDeps) {
    this.#deps = deps;
  }

  tools(_scope: AgentScope): readonly ModelTool[] {
    return offered;
  }

  async run(name: string, argumentsJson: string, context: ToolCallContext): Promise<string> {
    const check = checks.get(name as ToolName);
    if (!check) return `error: unknown tool ${JSON.stringify(name.slice(0, 40))}`;
    let parsed: unknown;
    try {
      parsed = argumentsJson.trim() === '' ? {} : JSON.parse(argumentsJson);
    } catch {
      return 'error: arguments are not valid JSON';
    }
    if (!check.Check(parsed)) {
      return `error: ${describeSchemaErrors(check.Errors(parsed) as unknown as SchemaError[], 'arguments')}`;
    }
    try {
      return await this.#call(name as ToolName, parsed, context);
    } catch (error) {
      this.#deps.log.warn({ tool: name, error: errorMessage(error) }, 'tool call failed');
      return 'error: the tool failed; try again later';
    }
  }

  /** `args` passed its tool's schema check, so the casts below restate that schema. */
  async #call(name: ToolName, args: unknown, context: ToolCallContext): Promise<string> {
    switch (name) {
      case 'current_time':
        return `now: ${describeLocal(context.now)}`;
      case 'search_group_corpus':
        return this.#search(args as { phrase: string; limit?: number }, context);
      case 'recent_topics':
        return this.#topics(args as { limit?: number }, context);
      case 'create_reminder':
        return this.#remind(args as { when: string | number; text: string }, context);
    }
  }

  async #search(args: { phrase: string; limit?: number }, context: ToolCallContext): Promise<string> {
    const keywords = this.#deps.keywordsOf(args.phrase.trim());
    if (keywords === '') return JSON.stringify({ phrase: forModel(args.phrase), replies: [] });
    const found = await this.#deps.corpus.findByKeywordsForReply(keywords);
    const banned = new Set(this.#deps.bannedIn(context.groupId));
    for (const ban of found?.bans ?? []) if (ban.groupId === context.groupId) banned.add(ban.keywords);
    const replies = (found?.answers ?? [])
      .filter((answer) => answer.groupId === context.groupId && !banned.has(answer.keywords))
      .sort((a, b) => b.count - a.count || b.time - a.time)
      .map((answer) => ({ text: forModel(answer.messages.at(-1) ?? answer.keywords), count: answer.count }))
      .filter((reply) => reply.text !== '')
      .slice(0, args.limit ?? 5);
    return JSON.stringify({ phrase: forModel(args.phrase), replies });
  }

  #topics(args: { limit?: number }, context: ToolCallContext): string {
    const counts = new Map<string, number>();
    for (const word of this.#deps.recentTopics(context.groupId)) {
      const clean = forModel(word);
      if (clean === '' || clean.includes('***') || clean.startsWith('[')) continue;
      counts.set(clean, (counts.get(clean) ?? 0) + 1);
    }
    const topics = [...counts]
      .sort((a, b) => b[1] - a[1])
      .slice(0, args.limit ?? 8)
      .map(([word, count]) => ({ word, count }));
    return JSON.stringify({ topics });
  }

  async #remind(args: { when: string | number; text: string }, context: ToolCallContext): Promise<string> {
    const text = args.text.trim();
    if (text === '') return 'error: arguments.text: blank';
    // The reminder is sent as chat text: a CQ code in it would be a mention or a picture the model chose.
    if (/\[CQ:/i.test(text)) return 'error: arguments.text: must be plain text (no CQ codes)';
    const dueAt = parseWhen(args.when, context.now);
    if (dueAt === null)
      return 'error: arguments.when: expected an ISO 8601 time like 2026-05-01T09:30 or minutes from now';
    if (dueAt < context.now + TASKS.minAheadMs) return 'error: arguments.when: must be at least 1 minute from now';
    if (dueAt > context.now + TASKS.maxAheadMs) return 'error: arguments.when: must be within 30 days';
    const member = { selfId: context.selfId, groupId: context.groupId, userId: context.userId, name: '' };
    const outcome = await this.#deps.reminders.create(member, text, dueAt);
    if (!outcome.ok) {
      return outcome.reason === 'member_full'
        ? `error: this member already has ${TASKS.perMember} open reminders; they can cancel one with 「取消提醒 编号」`
        : `error: this group already has ${TASKS.perGroup} open reminders`;
    }
    return `ok: reminder #${outcome.task.id} set for ${describeLocal(dueAt)}; the member can cancel it with 「取消提醒 ${outcome.task.id}」`;
  }
}
