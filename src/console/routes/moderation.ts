/**
 * Corpus moderation routes (README.md "Run it"; docs/rules.md#corpus-writes): search, context
 * detail, ban an answer in one group or everywhere, delete an answer or a context, the moderation
 * log and undo. Writes need write credentials; each logs who (credential kind and client
 * address), when and what, and drops the bot's caches for the key at once
 * (ConsoleDeps.moderation.changed).
 */
import Type from 'typebox';
import { GLOBAL_BAN_GROUP } from '../../repeater/limits.ts';
import type { ContextView } from '../../store/corpus-browse.ts';
import { answerGroups, Context, toContext } from '../corpus-views.ts';
import { ModerationError, type ModerationEntry as StoredEntry } from '../../store/moderation-store.ts';
import { requestActor } from '../activity.ts';
import type { ConsoleApp, RouteContext } from '../context.ts';
import { badRequest, conflict, invalidField, notFound, unavailable } from '../errors.ts';
import { MODERATION } from '../limits.ts';
import { CACHE_KEYS } from './corpus.ts';

const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const GroupId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

const SearchQuery = Type.Object({
  q: Type.String({
    minLength: 1,
    maxLength: 200,
    description:
      'What people say, keywords or answer text. Unless `in` is answer, the text is also turned into keywords as ' +
      'the bot turns a message into keywords, and the context stored under them comes first.',
  }),
  in: Type.Optional(Type.Enum(['all', 'keywords', 'answer'], { default: 'all' })),
  match: Type.Optional(Type.Enum(['prefix', 'substring'], { default: 'substring' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: MODERATION.maxOffset, default: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MODERATION.maxLimit, default: MODERATION.defaultLimit })),
});

const Entry = Type.Object({
  id: Type.Integer(),
  time: Type.Integer({ description: 'Unix seconds.' }),
  actor: Type.String({ description: 'Credential kind and client address.' }),
  action: Type.Enum(['ban_group', 'ban_all', 'delete_answer', 'delete_context']),
  context_id: Type.Integer(),
  context_keywords: Type.String(),
  answer_keywords: Type.String(),
  group_id: Type.Integer(),
  undone_at: Type.Integer({ description: 'Unix seconds; 0 while not undone.' }),
  undone_by: Type.String(),
  undo_until: Type.Integer({ description: 'Unix seconds: undo is possible until then.' }),
});
const Page = <T extends Parameters<typeof Type.Array>[0]>(item: T) =>
  Type.Object({ items: Type.Array(item), offset: Type.Integer(), limit: Type.Integer(), has_more: Type.Boolean() });

const SearchPage = Type.Object({
  items: Type.Array(Context),
  offset: Type.Integer(),
  limit: Type.Integer(),
  has_more: Type.Boolean(),
  partial: Type.Boolean({
    description:
      'A substring search (or a very common prefix) scans the corpus and stops after 1.5 s: true when it stopped before the end, so more matches may exist. A longer text narrows the search.',
  }),
  sentence_keywords: Type.String({ description: "`q` turned into keywords as the bot would ('' for `in=answer`)." }),
  keywords_match: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The context stored under `sentence_keywords` (listed first on the first page), or null.',
  }),
});

const BrowseQuery = Type.Object({
  order: Type.Optional(Type.Enum(['newest', 'most_sent', 'most_banned'], { default: 'newest' })),
  group_id: Type.Optional(GroupId),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: MODERATION.maxOffset, default: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MODERATION.maxLimit, default: MODERATION.defaultLimit })),
});
const BrowsePage = Type.Object({
  items: Type.Array(Context),
  offset: Type.Integer(),
  limit: Type.Integer(),
  has_more: Type.Boolean(),
});

const BanBody = Type.Object(
  {
    scope: Type.Enum(['group', 'everywhere']),
    group_id: Type.Optional(GroupId),
    reason: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
const LogQuery = Type.Object({
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: MODERATION.maxOffset, default: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MODERATION.maxLimit, default: MODERATION.defaultLimit })),
});
const Done = Type.Object({ entry: Entry });

export function moderationRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const { deps } = ctx;
  const port = () => {
    if (!deps.moderation)
      throw unavailable('moderation_elsewhere', {}, 'corpus moderation is not available in this process');
    return deps.moderation;
  };
  const nowSec = () => Math.floor(deps.clock.nowMs() / 1000);
  const entry = (stored: StoredEntry) => toEntry(stored, MODERATION.undoWindowSec);
  const actor = requestActor;
  const write = { auth: 'write' as const };
  /** The views with each answer's state, judged against its group's answer threshold. */
  const withStatus = async (views: readonly ContextView[]) => {
    const configured = deps.settings.current().repeater.answerThreshold;
    const groups = answerGroups(views);
    const own = await Promise.all(groups.map(async (id) => (await deps.chatControls.getGroup(id)).answerThreshold));
    const thresholds = new Map(groups.map((id, index) => [id, own[index] ?? configured]));
    const input = { thresholdIn: (id: number) => thresholds.get(id) ?? configured, nowSec: nowSec() };
    return views.map((view) => toContext(view, input));
  };

  api.get(
    '/corpus/search',
    {
      config: { members: true },
      schema: {
        tags: ['corpus'],
        summary: 'Search contexts by trigger keywords or answer text (prefix or substring), paged',
        querystring: SearchQuery,
        response: { 200: SearchPage },
      },
    },
    async (request) => {
      const { q, offset = 0, limit = MODERATION.defaultLimit } = request.query;
      if (q.trim() === '') throw invalidField('query.q', 'blank', 'query.q: must not be blank');
      const field = request.query.in ?? 'all';
      const text = q.trim();
      const keywords = field === 'answer' ? '' : port().keywordsOf(text);
      const page = await port().search(
        { text, field, match: request.query.match ?? 'substring', offset, limit },
        keywords,
      );
      return {
        items: await withStatus(page.items),
        offset,
        limit,
        has_more: page.hasMore,
        partial: page.partial,
        sentence_keywords: keywords,
        keywords_match: page.keywordsMatch,
      };
    },
  );

  api.get(
    '/corpus/browse',
    {
      config: { members: true },
      schema: {
        tags: ['corpus'],
        summary: 'Browse contexts without a search text: newest learned, most sent or most banned, paged',
        description:
          'group_id: that group only (its newest answers, what the bot sent there, its bans and the bans ' +
          'everywhere); absent: everywhere.',
        querystring: BrowseQuery,
        response: { 200: BrowsePage },
      },
    },
    async (request) => {
      const { offset = 0, limit = MODERATION.defaultLimit } = request.query;
      const page = await port().browse({
        order: request.query.order ?? 'newest',
        groupId: request.query.group_id ?? null,
        offset,
        limit,
      });
      return { items: await withStatus(page.items), offset, limit, has_more: page.hasMore };
    },
  );

  api.get(
    '/corpus/contexts/:id',
    {
      config: { members: true },
      schema: {
        tags: ['corpus'],
        summary: 'One context with all its answers (up to 50 newest messages each) and bans',
        params: Type.Object({ id: Id }),
        response: { 200: Context },
      },
    },
    async (request) => {
      const [view] = await withStatus(await port().contexts([request.params.id]));
      if (!view) throw notFound('no_context', { id: request.params.id }, `id: no context ${request.params.id}`);
      return view;
    },
  );

  api.post(
    '/corpus/answers/:id/ban',
    {
      config: write,
      schema: {
        tags: ['corpus'],
        summary: 'Ban an answer after its context, in one group or everywhere (undoable)',
        description: 'scope group bans in group_id, default the group the answer was learned in.',
        params: Type.Object({ id: Id }),
        body: BanBody,
        response: { 200: Done },
      },
    },
    async (request) => {
      const { scope, reason = '' } = request.body;
      const everywhere = scope === 'everywhere';
      let groupId = everywhere ? GLOBAL_BAN_GROUP : request.body.group_id;
      if (!everywhere && groupId === undefined) {
        const learnedIn = await port().answerGroup(request.params.id);
        if (learnedIn === null)
          throw notFound('no_answer', { id: request.params.id }, `id: no answer ${request.params.id}`);
        if (learnedIn === 0)
          throw invalidField(
            'body.group_id',
            'required',
            'body.group_id: required for a community answer (learned in no group)',
          );
        groupId = learnedIn;
      }
      if (!everywhere && groupId === GLOBAL_BAN_GROUP)
        throw badRequest('use_scope_everywhere', { field: 'body.group_id' }, 'body.group_id: use scope everywhere');
      const done = await run(() =>
        port().ban(request.params.id, groupId!, everywhere ? 'ban_all' : 'ban_group', reason, actor(request), nowSec()),
      );
      return { entry: entry(done) };
    },
  );

  api.delete(
    '/corpus/answers/:id',
    {
      config: write,
      schema: {
        tags: ['corpus'],
        summary: 'Delete an answer with its messages (undoable)',
        params: Type.Object({ id: Id }),
        response: { 200: Done },
      },
    },
    async (request) => ({
      entry: entry(await run(() => port().deleteAnswer(request.params.id, actor(request), nowSec()))),
    }),
  );

  api.delete(
    '/corpus/contexts/:id',
    {
      config: write,
      schema: {
        tags: ['corpus'],
        summary: 'Delete a context with its answers, messages and bans (undoable)',
        params: Type.Object({ id: Id }),
        response: { 200: Done },
      },
    },
    async (request) => ({
      entry: entry(await run(() => port().deleteContext(request.params.id, actor(request), nowSec()))),
    }),
  );

  api.get(
    '/corpus/moderation',
    {
      config: { members: true },
      schema: {
        tags: ['corpus'],
        summary: 'The moderation log, newest first',
        querystring: LogQuery,
        response: { 200: Page(Entry) },
      },
    },
    async (request) => {
      const { offset = 0, limit = MODERATION.defaultLimit } = request.query;
      const page = await port().log(offset, limit);
      return { items: page.items.map(entry), offset, limit, has_more: page.hasMore };
    },
  );

  api.post(
    '/corpus/moderation/:id/undo',
    {
      config: write,
      schema: {
        tags: ['corpus'],
        summary: `Undo a moderation action (within ${MODERATION.undoWindowSec / 3600} h)`,
        description: '409 when already undone or too old.',
        params: Type.Object({ id: Id }),
        response: { 200: Done },
      },
    },
    async (request) => ({
      entry: entry(await run(() => port().undo(request.params.id, actor(request), nowSec(), MODERATION.undoWindowSec))),
    }),
  );

  /** Runs a write, maps the store's refusals to 404/409, and drops the caches for the key. */
  async function run(
    action: () => Promise<{ entry: StoredEntry; keywords: string; listGroups?: number[] }>,
  ): Promise<StoredEntry> {
    try {
      const done = await action();
      port().changed(done.keywords);
      // An undone unban put the answer back on blacklists: the chat side reloads them.
      if (done.listGroups && done.listGroups.length > 0) {
        port().listsChanged?.({ keywords: done.entry.answerKeywords, lifted: [], restored: done.listGroups });
      }
      ctx.cache.invalidate(CACHE_KEYS.localHot);
      return done.entry;
    } catch (error) {
      if (error instanceof ModerationError) {
        throw error.reason === 'not_found'
          ? notFound('moderation_not_found', {}, error.message)
          : conflict('moderation_refused', { reason: error.reason }, error.message);
      }
      throw error;
    }
  }
}

function toEntry(stored: StoredEntry, windowSec: number) {
  return {
    id: stored.id,
    time: stored.time,
    actor: stored.actor,
    action: stored.action,
    context_id: stored.contextId,
    context_keywords: stored.contextKeywords,
    answer_keywords: stored.answerKeywords,
    group_id: stored.groupId,
    undone_at: stored.undoneAt,
    undone_by: stored.undoneBy,
    undo_until: stored.time + windowSec,
  };
}
