/**
 * The agent platform's member memory (docs/agent-memory.md): person facts (list, add, correct,
 * delete), consent, and the observation queue. Every route here is at the write level, reads
 * too: they return what members said about themselves with their QQ numbers
 * (docs/rules.md#console-read-level). Every change lands in the activity log.
 */
import Type from 'typebox';
import type { AgentMemoryPort, Consent, Observation, PersonFact } from '../../agent/memory/memory-admin.ts';
import { recordConsole } from '../activity.ts';
import type { ConsoleApp, RouteContext } from '../context.ts';
import { conflict, notFound, unavailable } from '../errors.ts';

const tags = ['agent-platform'];
const Qq = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const Content = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '\\S',
  description: 'The fact, one short sentence.',
});
const Limit = Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: 'Default 50.' }));

const Fact = Type.Object({
  id: Type.Integer(),
  bot_id: Type.Integer({ description: 'The bot account that keeps the fact.' }),
  group_id: Type.Integer({ description: 'Where it was learned; 0: any group of the account.' }),
  user_id: Type.Integer({ description: 'The member it is about.' }),
  content: Type.String(),
  source: Type.Union([Type.Literal('manual'), Type.Literal('model')]),
  confidence: Type.Number(),
  created_at: Type.Integer({ description: 'Unix seconds.' }),
  updated_at: Type.Integer({ description: 'Unix seconds.' }),
  corrected: Type.Boolean(),
  consented: Type.Boolean({ description: "Whether the member's consent stands (facts go when it is withdrawn)." }),
});
const ConsentItem = Type.Object({
  bot_id: Type.Integer(),
  user_id: Type.Integer(),
  platform: Type.String(),
  granted: Type.Boolean(),
  scopes: Type.Array(Type.String()),
  updated_at: Type.Integer({ description: 'Unix seconds.' }),
});
const Status = Type.Union([Type.Literal('pending'), Type.Literal('done'), Type.Literal('failed')]);
const ObservationItem = Type.Object({
  id: Type.Integer(),
  bot_id: Type.Integer(),
  group_id: Type.Integer(),
  status: Status,
  attempts: Type.Integer(),
  error: Type.String(),
  user_ids: Type.Array(Type.Integer(), { description: 'The consented members it is about.' }),
  aliases: Type.Record(Type.String(), Type.String(), { description: 'Alias of each consented member, by QQ number.' }),
  lines: Type.Array(Type.Object({ speaker: Type.String(), text: Type.String(), time: Type.Integer() })),
  created_at: Type.Integer(),
  updated_at: Type.Integer(),
});

function factBody(fact: PersonFact, consented: boolean) {
  return {
    id: fact.id,
    bot_id: fact.selfId,
    group_id: fact.groupId,
    user_id: fact.userId,
    content: fact.content,
    source: fact.source,
    confidence: fact.confidence,
    created_at: fact.createdAt,
    updated_at: fact.updatedAt,
    corrected: fact.corrected,
    consented,
  };
}

function consentBody(consent: Consent) {
  return {
    bot_id: consent.selfId,
    user_id: consent.userId,
    platform: consent.platform,
    granted: consent.granted,
    scopes: [...consent.scopes],
    updated_at: consent.updatedAt,
  };
}

function observationBody(observation: Observation) {
  return {
    id: observation.id,
    bot_id: observation.selfId,
    group_id: observation.groupId,
    status: observation.status,
    attempts: observation.attempts,
    error: observation.error,
    user_ids: [...observation.userIds],
    aliases: { ...observation.excerpt.aliases },
    lines: observation.excerpt.lines.map((line) => ({ ...line })),
    created_at: observation.createdAt,
    updated_at: observation.updatedAt,
  };
}

const factMissing = (id: number) => notFound('agent_memory_fact_not_found', { id }, `no person fact ${id}`);

export function agentMemoryRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const memory = (): AgentMemoryPort => {
    if (!ctx.deps.agentMemory) throw unavailable('agent_memory_unavailable', {}, 'the agent memory does not run here');
    return ctx.deps.agentMemory;
  };
  const record = ctx.deps;

  api.get(
    '/llm/agent-platform/person-facts',
    {
      config: { auth: 'write' },
      schema: {
        tags,
        summary: "What a bot account remembers of members, newest first, with each member's consent",
        description: 'Write level: facts name members by QQ number (docs/rules.md#console-read-level).',
        querystring: Type.Object(
          {
            bot_id: Qq,
            group_id: Type.Optional(Type.Integer({ minimum: 0 })),
            user_id: Type.Optional(Qq),
            limit: Limit,
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ items: Type.Array(Fact), count: Type.Integer() }) },
      },
    },
    async (request) => {
      const { bot_id, group_id, user_id, limit } = request.query;
      const found = await memory().listFacts({
        selfId: bot_id,
        ...(group_id !== undefined ? { groupId: group_id } : {}),
        ...(user_id !== undefined ? { userId: user_id } : {}),
        limit: limit ?? 50,
      });
      const items = found.map(({ fact, consented }) => factBody(fact, consented));
      return { items, count: items.length };
    },
  );

  api.post(
    '/llm/agent-platform/person-facts',
    {
      config: { auth: 'write' },
      schema: {
        tags,
        summary: 'Add a fact about a member by hand; 409 agent_memory_no_consent unless the member consented',
        body: Type.Object(
          { bot_id: Qq, user_id: Qq, group_id: Type.Optional(Type.Integer({ minimum: 0 })), content: Content },
          { additionalProperties: false },
        ),
        response: { 200: Fact },
      },
    },
    async (request) => {
      const { bot_id, user_id, content } = request.body;
      const groupId = request.body.group_id ?? 0;
      const fact = await memory().addFact({ selfId: bot_id, userId: user_id, groupId, content: content.trim() });
      if (!fact)
        throw conflict(
          'agent_memory_no_consent',
          { user: user_id, bot: bot_id },
          `member ${user_id} has not consented to be remembered by ${bot_id}`,
        );
      await recordConsole(record, request, {
        kind: 'memory_fact_add',
        groupId: groupId === 0 ? null : groupId,
        params: { bot_id, user_id, fact_id: fact.id },
      });
      return factBody(fact, true);
    },
  );

  api.post(
    '/llm/agent-platform/person-facts/correct',
    {
      config: { auth: 'write' },
      schema: {
        tags,
        summary: "Replace a fact's text (it becomes a manual, corrected fact)",
        body: Type.Object({ fact_id: Id, content: Content }, { additionalProperties: false }),
        response: { 200: Fact },
      },
    },
    async (request) => {
      const { fact_id, content } = request.body;
      const changed = await memory().correctFact(fact_id, content.trim());
      if (!changed) throw factMissing(fact_id);
      const { after, before } = changed;
      await recordConsole(record, request, {
        kind: 'memory_fact_correct',
        groupId: after.groupId === 0 ? null : after.groupId,
        params: { bot_id: after.selfId, user_id: after.userId, fact_id, before: before.content.slice(0, 200) },
      });
      const consent = await memory().consents(after.userId, after.selfId);
      return factBody(after, consent[0]?.granted === true);
    },
  );

  api.post(
    '/llm/agent-platform/person-facts/delete',
    {
      config: { auth: 'write' },
      schema: {
        tags,
        summary: 'Delete one fact',
        body: Type.Object({ fact_id: Id }, { additionalProperties: false }),
        response: { 200: Type.Object({ deleted: Type.Literal(true), id: Type.Integer() }) },
      },
    },
    async (request) => {
      const { fact_id } = request.body;
      const fact = await memory().deleteFact(fact_id);
      if (!fact) throw factMissing(fact_id);
      await recordConsole(record, request, {
        kind: 'memory_fact_delete',
        groupId: fact.groupId === 0 ? null : fact.groupId,
        params: { bot_id: fact.selfId, user_id: fact.userId, fact_id, content: fact.content.slice(0, 200) },
      });
      return { deleted: true as const, id: fact_id };
    },
  );

  api.get(
    '/llm/agent-platform/consent',
    {
      config: { auth: 'write' },
      schema: {
        tags,
        summary: "A member's consent with each bot account (or one)",
        querystring: Type.Object({ user_id: Qq, bot_id: Type.Optional(Qq) }, { additionalProperties: false }),
        response: { 200: Type.Object({ items: Type.Array(ConsentItem), count: Type.Integer() }) },
      },
    },
    async (request) => {
      const items = (await memory().consents(request.query.user_id, request.query.bot_id)).map(consentBody);
      return { items, count: items.length };
    },
  );

  api.post(
    '/llm/agent-platform/consent',
    {
      config: { auth: 'write' },
      schema: {
        tags,
        summary: "Grant or withdraw a member's consent; withdrawing deletes every fact about them (as 忘记我)",
        body: Type.Object({ bot_id: Qq, user_id: Qq, granted: Type.Boolean() }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            granted: Type.Boolean(),
            was_granted: Type.Boolean(),
            facts_deleted: Type.Integer(),
            observations_deleted: Type.Integer(),
          }),
        },
      },
    },
    async (request) => {
      const { bot_id, user_id, granted } = request.body;
      const { before, forgotten } = await memory().setConsent(bot_id, user_id, granted);
      const facts = forgotten?.facts ?? 0;
      await recordConsole(record, request, {
        kind: 'memory_consent',
        groupId: null,
        params: { bot_id, user_id, granted, facts },
      });
      return { granted, was_granted: before, facts_deleted: facts, observations_deleted: forgotten?.observations ?? 0 };
    },
  );

  api.get(
    '/llm/agent-platform/observations',
    {
      config: { auth: 'write' },
      schema: {
        tags,
        summary: 'Conversation excerpts waiting to be turned into facts (or done, failed), newest first',
        description:
          "Excerpts name speakers by alias; other members' numbers never appear in them. `queue_size` counts every " +
          "pending observation; `counters` are this process's since start (dropped ones included).",
        querystring: Type.Object(
          {
            bot_id: Type.Optional(Qq),
            group_id: Type.Optional(Qq),
            status: Type.Optional(Status),
            limit: Limit,
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            items: Type.Array(ObservationItem),
            count: Type.Integer(),
            queue_size: Type.Integer(),
            worker_enabled: Type.Boolean({ description: 'False: no background model, observations wait.' }),
            counters: Type.Record(Type.String(), Type.Integer()),
          }),
        },
      },
    },
    async (request) => {
      const { bot_id, group_id, status, limit } = request.query;
      const found = await memory().observations({
        ...(bot_id !== undefined ? { selfId: bot_id } : {}),
        ...(group_id !== undefined ? { groupId: group_id } : {}),
        ...(status !== undefined ? { status } : {}),
        limit: limit ?? 50,
      });
      const overview = await memory().overview();
      return {
        items: found.map(observationBody),
        count: found.length,
        queue_size: overview.queueSize,
        worker_enabled: overview.workerEnabled,
        counters: { ...overview.counters },
      };
    },
  );
}
