/**
 * The group's own voice in the console (docs/agent-catchphrases.md): catchphrases mined from each
 * group's corpus, listed by account, group and status (read level); approving or rejecting one,
 * undoing that, and mining a group now (write level). An approve or reject, and its undo, are
 * activity entries; only approved phrases reach the model as style hints.
 */
import Type from 'typebox';
import type { CatchphrasesPort } from '../../agent/catchphrases/port.ts';
import { CATCHPHRASE_STATUSES, CatchphraseError, type Catchphrase } from '../../store/agent-catchphrases-store.ts';
import { requestActor } from '../activity.ts';
import type { ConsoleApp, RouteContext } from '../context.ts';
import { conflict, notFound, unavailable } from '../errors.ts';

const tags = ['agent-platform'];
const PREFIX = '/llm/agent-platform/catchphrases';
const Qq = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
export const CATCHPHRASE_PAGE = { defaultLimit: 50, maxLimit: 200, maxOffset: 100_000 } as const;

const ListQuery = Type.Object({
  bot_id: Type.Optional(
    Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: '0: phrases of any account.' }),
  ),
  group_id: Type.Optional(Qq),
  status: Type.Optional(Type.Enum([...CATCHPHRASE_STATUSES])),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: CATCHPHRASE_PAGE.maxOffset, default: 0 })),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: CATCHPHRASE_PAGE.maxLimit, default: CATCHPHRASE_PAGE.defaultLimit }),
  ),
});

const Item = Type.Object({
  id: Type.Integer(),
  bot_id: Type.Integer({ description: 'The account it is for; 0: any account in the group.' }),
  group_id: Type.Integer(),
  text: Type.String(),
  status: Type.Enum([...CATCHPHRASE_STATUSES]),
  count: Type.Integer({ description: 'How often the group said it when last mined.' }),
  contexts: Type.Integer({ description: 'After how many different phrases it was said.' }),
  source: Type.Enum(['local', 'shared'], { description: "shared: the community's answers (operator's choice)." }),
  created_at: Type.Integer({ description: 'Unix seconds.' }),
  mined_at: Type.Integer({ description: 'Unix seconds of the latest mining that found it.' }),
  resolved_at: Type.Integer({ description: 'Unix seconds of the latest approve or reject; 0 while a candidate.' }),
  resolved_by: Type.String(),
  activity_id: Type.Integer({
    description: 'The activity entry of the latest approve or reject; 0 while a candidate.',
  }),
});

const Page = Type.Object({
  items: Type.Array(Item),
  count: Type.Integer({ description: 'Items on this page.' }),
  total: Type.Integer({ description: 'Phrases matching the whole filter.' }),
  counts: Type.Object(
    {
      candidate: Type.Integer(),
      active: Type.Integer(),
      rejected: Type.Integer(),
      all: Type.Integer(),
    },
    { description: 'Per status, for the filter without its status.' },
  ),
});

const ResolveBody = Type.Object(
  {
    entry_id: Id,
    action: Type.Enum(['approve', 'reject']),
  },
  { additionalProperties: false },
);
const UndoBody = Type.Object({ entry_id: Id }, { additionalProperties: false });
const MineBody = Type.Object({ group_id: Qq }, { additionalProperties: false });

const MineReport = Type.Object({
  group_id: Type.Integer(),
  examined: Type.Integer({ description: 'Frequent answers looked at.' }),
  eligible: Type.Integer({ description: 'Phrases that passed every rule.' }),
  added: Type.Integer({ description: 'New candidates.' }),
  refreshed: Type.Integer({ description: 'Known phrases (any status) whose figures were refreshed.' }),
  shared: Type.Boolean({ description: "Whether the community's answers were mined too." }),
  skipped: Type.Record(Type.String(), Type.Integer(), {
    description: 'Why frequent answers were left out: picture, command, length, number, banned, guard, rare.',
  }),
});

export function agentCatchphraseRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const port = (): CatchphrasesPort => {
    if (!ctx.deps.agentCatchphrases)
      throw unavailable('agent_catchphrases_elsewhere', {}, 'catchphrases are not available in this process');
    return ctx.deps.agentCatchphrases;
  };
  const nowSec = () => Math.floor(ctx.deps.clock.nowMs() / 1000);
  const write = { auth: 'write' as const };

  api.get(
    PREFIX,
    {
      schema: {
        tags,
        summary: "Catchphrases mined from the groups' corpus, most said first, with counts per status",
        querystring: ListQuery,
        response: { 200: Page },
      },
    },
    async (request) => {
      const { bot_id, group_id, status, offset = 0, limit = CATCHPHRASE_PAGE.defaultLimit } = request.query;
      const page = await port().list({
        ...(bot_id !== undefined ? { selfId: bot_id } : {}),
        ...(group_id !== undefined ? { groupId: group_id } : {}),
        ...(status !== undefined ? { status } : {}),
        offset,
        limit,
      });
      return { items: page.items.map(toItem), count: page.items.length, total: page.total, counts: page.counts };
    },
  );

  api.post(
    `${PREFIX}/resolve`,
    {
      config: write,
      schema: {
        tags,
        summary:
          'Approve a catchphrase (the model gets it as a style hint for its group) or reject it (never proposed again)',
        description:
          'Recorded in the activity log and undoable (POST .../catchphrases/undo); 404 when there is no such phrase.',
        body: ResolveBody,
        response: { 200: Item },
      },
    },
    async (request) => {
      const done = await mapped(() =>
        port().resolve(request.body.entry_id, request.body.action, requestActor(request), nowSec()),
      );
      return toItem(done.entry);
    },
  );

  api.post(
    `${PREFIX}/undo`,
    {
      config: write,
      schema: {
        tags,
        summary: 'Undo the latest approve or reject of a catchphrase: it is a candidate again (not used)',
        description: '409 when the phrase is a candidate already; 404 when there is no such phrase.',
        body: UndoBody,
        response: { 200: Item },
      },
    },
    async (request) => {
      const done = await mapped(() => port().undo(request.body.entry_id, requestActor(request), nowSec()));
      return toItem(done.entry);
    },
  );

  api.post(
    `${PREFIX}/mine`,
    {
      config: write,
      schema: {
        tags,
        summary: "Mine a group's corpus for catchphrase candidates now (bounded; joins a mining under way)",
        body: MineBody,
        response: { 200: MineReport },
      },
    },
    async (request) => {
      const report = await port().mine(request.body.group_id);
      return {
        group_id: report.groupId,
        examined: report.examined,
        eligible: report.eligible,
        added: report.added,
        refreshed: report.refreshed,
        shared: report.shared,
        skipped: { ...report.skipped },
      };
    },
  );
}

async function mapped<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof CatchphraseError) {
      throw error.reason === 'not_found'
        ? notFound('agent_catchphrase_not_found', { field: 'body.entry_id' }, error.message)
        : conflict('agent_catchphrase_not_resolved', { field: 'body.entry_id' }, error.message);
    }
    throw error;
  }
}

function toItem(entry: Catchphrase) {
  return {
    id: entry.id,
    bot_id: entry.selfId,
    group_id: entry.groupId,
    text: entry.text,
    status: entry.status,
    count: entry.count,
    contexts: entry.contexts,
    source: entry.source,
    created_at: entry.createdAt,
    mined_at: entry.minedAt,
    resolved_at: entry.resolvedAt,
    resolved_by: entry.resolvedBy,
    activity_id: entry.activityId,
  };
}
