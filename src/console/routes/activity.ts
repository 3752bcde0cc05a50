/**
 * The activity log (docs/rules.md#activity-log): every change to what the bot says and where,
 * filtered and paged (read level); lifting a ban at any time and undoing an entry within the undo
 * window (write level). An unban and an undo are entries of their own.
 */
import Type from 'typebox';
import { ACTIVITY_KINDS, EVERYWHERE_GROUP, type ActivityKind } from '../../domain/activity.ts';
import type { ActivityEntry } from '../../store/activity-log.ts';
import { ModerationError } from '../../store/moderation-store.ts';
import { requestActor } from '../activity.ts';
import type { ConsoleApp, RouteContext } from '../context.ts';
import { badRequest, conflict, invalidField, notFound, unavailable } from '../errors.ts';
import { MODERATION } from '../limits.ts';
import { CACHE_KEYS } from './corpus.ts';

const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const Seconds = Type.Integer({ minimum: 0, maximum: 1e11, description: 'Unix seconds.' });

/** The kinds whose entry a console unban can lift. */
const BAN_KINDS: ReadonlySet<ActivityKind> = new Set(['ban_group', 'ban_all', 'chat_ban']);

const ActivityQuery = Type.Object({
  kind: Type.Optional(
    Type.String({ maxLength: 400, description: `Comma-separated kinds: ${ACTIVITY_KINDS.join(', ')}.` }),
  ),
  group_id: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
  actor: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: "A member's QQ number, or text of a name or address." }),
  ),
  since: Type.Optional(Seconds),
  until: Type.Optional(Seconds),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: MODERATION.maxOffset, default: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MODERATION.maxLimit, default: MODERATION.defaultLimit })),
});

export const ActivityItem = Type.Object({
  id: Type.Integer(),
  time: Type.Integer({ description: 'Unix seconds.' }),
  kind: Type.Enum([...ACTIVITY_KINDS]),
  actor: Type.Object({
    kind: Type.Enum(['console', 'chat', 'hub', 'system']),
    level: Type.String({ description: 'Console: the session level (read, write).' }),
    address: Type.String({ description: 'Console: the client address.' }),
    user_id: Type.Integer({ description: "Chat: the member's QQ number (0 otherwise)." }),
    name: Type.String({ description: "Chat: the member's nickname; hub or system: what acted." }),
  }),
  scope: Type.Enum(['group', 'everywhere']),
  group_id: Type.Integer({ description: `The group; ${EVERYWHERE_GROUP} or 0 when everywhere.` }),
  context_id: Type.Integer({ description: '0 when not about a context.' }),
  answer_id: Type.Integer({ description: 'The answer an unban names; 0 when none.' }),
  context_keywords: Type.String(),
  answer_keywords: Type.String(),
  params: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
    description: 'Parameters of the kind, worded by the console (e.g. seconds, strike, via, entry_id).',
  }),
  undone_at: Type.Integer({ description: 'Unix seconds; 0 while not undone.' }),
  undone_by: Type.String(),
  undo_until: Type.Integer({ description: 'Unix seconds: undo is possible until then; 0: this entry has no undo.' }),
  can_unban: Type.Boolean({
    description: 'Whether POST /corpus/answers/{answer_id}/unban applies to this entry (a ban not undone).',
  }),
});

const ActivityPage = Type.Object({
  items: Type.Array(ActivityItem),
  offset: Type.Integer(),
  limit: Type.Integer(),
  has_more: Type.Boolean(),
});

const UnbanBody = Type.Object(
  {
    scope: Type.Enum(['group', 'everywhere']),
    group_id: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
  },
  { additionalProperties: false },
);
const Done = Type.Object({ entry: ActivityItem });

export function activityRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const { deps } = ctx;
  const log = () => {
    if (!deps.activity)
      throw unavailable('activity_elsewhere', {}, 'the activity log is not available in this process');
    return deps.activity;
  };
  const moderation = () => {
    if (!deps.moderation)
      throw unavailable('moderation_elsewhere', {}, 'corpus moderation is not available in this process');
    return deps.moderation;
  };
  const nowSec = () => Math.floor(deps.clock.nowMs() / 1000);
  const write = { auth: 'write' as const };

  api.get(
    '/activity',
    {
      config: { members: true },
      schema: {
        tags: ['activity'],
        summary: 'Every change to what the bot says and where, newest first, filtered and paged',
        querystring: ActivityQuery,
        response: { 200: ActivityPage },
      },
    },
    async (request) => {
      const { offset = 0, limit = MODERATION.defaultLimit, since, until } = request.query;
      const kinds = parseKinds(request.query.kind);
      if (since !== undefined && until !== undefined && until < since) {
        throw invalidField('query.until', 'order', 'query.until: must not be before since');
      }
      const page = await log().list({
        ...(kinds.length > 0 ? { kinds } : {}),
        ...(request.query.group_id !== undefined ? { groupId: request.query.group_id } : {}),
        ...(request.query.actor !== undefined ? { actor: request.query.actor } : {}),
        ...(since !== undefined ? { since } : {}),
        ...(until !== undefined ? { until } : {}),
        offset,
        limit,
      });
      return { items: page.items.map(toItem), offset, limit, has_more: page.hasMore };
    },
  );

  api.post(
    '/corpus/answers/:id/unban',
    {
      config: write,
      schema: {
        tags: ['corpus'],
        summary: 'Lift the bans of an answer after its context, in one group or everywhere, at any time (undoable)',
        description:
          'scope group lifts the bans in group_id and takes the answer off that group’s blacklist; scope everywhere ' +
          'lifts every ban of the answer after its context and takes it off every blacklist. 409 when there is none.',
        params: Type.Object({ id: Id }),
        body: UnbanBody,
        response: { 200: Done },
      },
    },
    async (request) => {
      const everywhere = request.body.scope === 'everywhere';
      const groupId = request.body.group_id;
      if (!everywhere && groupId === undefined)
        throw invalidField('body.group_id', 'required', 'body.group_id: required when scope is group');
      if (!everywhere && groupId === EVERYWHERE_GROUP)
        throw badRequest('use_scope_everywhere', { field: 'body.group_id' }, 'body.group_id: use scope everywhere');
      try {
        const done = await moderation().unban(
          request.params.id,
          everywhere ? null : groupId!,
          requestActor(request),
          nowSec(),
        );
        moderation().changed(done.keywords);
        moderation().listsChanged?.({ keywords: done.answerKeywords, lifted: done.listGroups, restored: [] });
        ctx.cache.invalidate(CACHE_KEYS.localHot);
        return { entry: toItem(done.entry) };
      } catch (error) {
        throw mapped(error);
      }
    },
  );

  api.post(
    '/activity/:id/undo',
    {
      config: write,
      schema: {
        tags: ['activity'],
        summary: `Undo an entry that keeps what it changed (console moderation, unbans; within ${MODERATION.undoWindowSec / 3600} h)`,
        description: '409 when the entry has no undo, is already undone or too old.',
        params: Type.Object({ id: Id }),
        response: { 200: Done },
      },
    },
    async (request) => {
      try {
        const done = await moderation().undo(
          request.params.id,
          requestActor(request),
          nowSec(),
          MODERATION.undoWindowSec,
        );
        moderation().changed(done.keywords);
        if (done.listGroups.length > 0) {
          moderation().listsChanged?.({ keywords: done.entry.answerKeywords, lifted: [], restored: done.listGroups });
        }
        ctx.cache.invalidate(CACHE_KEYS.localHot);
        const undone = await log().get(request.params.id);
        if (!undone)
          throw notFound('no_activity_entry', { id: request.params.id }, `id: no activity entry ${request.params.id}`);
        return { entry: toItem(undone) };
      } catch (error) {
        throw mapped(error);
      }
    },
  );
}

function parseKinds(text: string | undefined): ActivityKind[] {
  if (text === undefined || text.trim() === '') return [];
  const known = new Set<string>(ACTIVITY_KINDS);
  const kinds = text.split(',').map((each) => each.trim());
  for (const kind of kinds)
    if (!known.has(kind))
      throw invalidField('query.kind', 'unknown_kind', `query.kind: unknown kind "${kind.slice(0, 40)}"`);
  return kinds as ActivityKind[];
}

function mapped(error: unknown): unknown {
  if (error instanceof ModerationError) {
    return error.reason === 'not_found'
      ? notFound('moderation_not_found', {}, error.message)
      : conflict('moderation_refused', { reason: error.reason }, error.message);
  }
  return error;
}

export function toItem(entry: ActivityEntry) {
  return {
    id: entry.id,
    time: entry.time,
    kind: entry.kind,
    actor: {
      kind: entry.actor.kind,
      level: entry.actor.level,
      address: entry.actor.address,
      user_id: entry.actor.userId,
      name: entry.actor.name,
    },
    scope: entry.scope,
    group_id: entry.groupId,
    context_id: entry.contextId,
    answer_id: entry.answerId,
    context_keywords: entry.contextKeywords,
    answer_keywords: entry.answerKeywords,
    params: entry.params,
    undone_at: entry.undoneAt,
    undone_by: entry.undoneBy,
    undo_until: entry.undoable && entry.undoneAt === 0 ? entry.time + MODERATION.undoWindowSec : 0,
    // An undone ban has nothing left to lift.
    can_unban: BAN_KINDS.has(entry.kind) && entry.answerId > 0 && entry.undoneAt === 0,
  };
}
