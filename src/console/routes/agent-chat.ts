/**
 * The agent platform's chat routes (docs/agent.md): the overview (is a model configured, today's
 * calls and tokens, the budgets and bounds) and the ledger of model calls, newest first. The model
 * settings are the `language_model` common-config section (routes/config.ts).
 */
import Type from 'typebox';
import type { ConsoleApp, RouteContext } from '../context.ts';
import type { AgentChatPort } from '../deps.ts';
import { unavailable } from '../errors.ts';

const tags = ['agent-platform'];

const Overview = Type.Object({
  configured: Type.Boolean({ description: 'Whether CHORUS_LLM_BASE_URL is set (false: the whole feature is off).' }),
  base_url: Type.String({ description: 'The provider base URL ("" when off); the API key is never shown.' }),
  model: Type.String(),
  background_model: Type.String(),
  timeout_sec: Type.Integer({ description: 'The reply deadline.' }),
  concurrency: Type.Object({
    limit: Type.Integer(),
    inflight: Type.Integer({ description: 'Calls under way in this process.' }),
  }),
  budgets: Type.Object(
    {
      group_daily_calls: Type.Integer(),
      group_daily_tokens: Type.Integer(),
      member_daily_calls: Type.Integer(),
      member_daily_tokens: Type.Integer(),
    },
    { description: 'Per day (local time); 0: no limit.' },
  ),
  today: Type.Object({
    calls: Type.Integer({ description: 'Calls made to the provider today, every process on this database.' }),
    tokens: Type.Integer(),
    outcomes: Type.Record(Type.String(), Type.Integer(), {
      description:
        'Ledger rows today by outcome: ok, timeout, unreachable, http_error, bad_answer, aborted, over_budget, busy.',
    }),
  }),
});

const LedgerQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  before: Type.Optional(Type.Integer({ minimum: 1, description: "The previous page's `next_before`." })),
  group_id: Type.Optional(Type.Integer({ minimum: 1, description: 'Only this group.' })),
});

const LedgerRow = Type.Object({
  id: Type.Integer(),
  at: Type.Integer({ description: 'Unix ms of the end of the call.' }),
  self_id: Type.Integer(),
  group_id: Type.Integer(),
  user_id: Type.Integer({ description: 'The member who caused it (kept locally, never sent to the model); 0: none.' }),
  role: Type.String({ enum: ['chat', 'background'] }),
  model: Type.String(),
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  latency_ms: Type.Integer(),
  outcome: Type.String({
    description:
      '`ok`, a failure (`timeout`, `unreachable`, `http_error`, `bad_answer`, `aborted`), or not called: `over_budget`, `busy`.',
  }),
});

const Ledger = Type.Object({ items: Type.Array(LedgerRow), next_before: Type.Union([Type.Integer(), Type.Null()]) });

export function agentChatRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const port = (): AgentChatPort => {
    if (!ctx.deps.agentChat)
      throw unavailable('agent_chat_elsewhere', {}, 'the chat side does not run in this process');
    return ctx.deps.agentChat;
  };

  api.get(
    '/llm/agent-platform/overview',
    {
      schema: {
        tags,
        summary: 'The language model: configured or not, the bounds, and today’s calls and tokens',
        response: { 200: Overview },
      },
    },
    async () => {
      const o = await port().overview();
      return {
        configured: o.configured,
        base_url: o.baseUrl,
        model: o.model,
        background_model: o.backgroundModel,
        timeout_sec: o.timeoutSec,
        concurrency: o.concurrency,
        budgets: {
          group_daily_calls: o.budgets.groupDailyCalls,
          group_daily_tokens: o.budgets.groupDailyTokens,
          member_daily_calls: o.budgets.memberDailyCalls,
          member_daily_tokens: o.budgets.memberDailyTokens,
        },
        today: o.today,
      };
    },
  );

  api.get(
    '/llm/agent-platform/ledger',
    {
      schema: {
        tags,
        summary:
          'Every language-model call (and every call refused by a budget or the concurrency limit), newest first',
        querystring: LedgerQuery,
        response: { 200: Ledger },
      },
    },
    async (request) => {
      const { limit = 50, before, group_id: groupId } = request.query;
      const rows = await port().ledger({
        limit: limit + 1,
        ...(before !== undefined ? { beforeId: before } : {}),
        ...(groupId !== undefined ? { groupId } : {}),
      });
      const page = rows.slice(0, limit);
      return {
        items: page.map((row) => ({
          id: row.id,
          at: row.at,
          self_id: row.selfId,
          group_id: row.groupId,
          user_id: row.userId,
          role: row.role,
          model: row.model,
          prompt_tokens: row.promptTokens,
          completion_tokens: row.completionTokens,
          latency_ms: row.latencyMs,
          outcome: row.outcome,
        })),
        next_before: rows.length > limit ? (page.at(-1)?.id ?? null) : null,
      };
    },
  );
}
