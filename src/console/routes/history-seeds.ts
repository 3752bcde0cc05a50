/**
 * Learning from a group's history (docs/guide/groups.md#learning-from-history): start a seed
 * back to a depth, cancel it, and list each group's latest seed with its progress for the 群组
 * page. Starting is a write; the activity log records who started which group and how deep.
 */
import Type from 'typebox';
import { JobBusyError } from '../../ops/jobs/index.ts';
import { HISTORY_SEED } from '../../repeater/index.ts';
import { requestActor } from '../activity.ts';
import type { ConsoleApp, RouteContext } from '../context.ts';
import type { HistorySeedsPort } from '../deps.ts';
import { conflict, unavailable } from '../errors.ts';
import { JobStarted, JobStatus } from '../job-schemas.ts';

const tags = ['group-configs'];
const Qq = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const Params = Type.Object({ group_id: Qq });

const SeedBody = Type.Object(
  {
    depth: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: HISTORY_SEED.maxDepth,
        description: `How many of the newest messages to read back and learn from; default ${HISTORY_SEED.defaultDepth}.`,
      }),
    ),
  },
  { additionalProperties: false },
);

const SeedList = Type.Object({
  items: Type.Array(Type.Object({ group_id: Type.Integer(), job: JobStatus })),
  default_depth: Type.Integer(),
  max_depth: Type.Integer(),
});

export function historySeedRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const seeds = (): HistorySeedsPort => {
    if (!ctx.deps.historySeeds)
      throw unavailable('history_seed_elsewhere', {}, 'the chat side does not run in this process');
    return ctx.deps.historySeeds;
  };

  api.get(
    '/history-seeds',
    {
      schema: {
        tags,
        summary: "Each group's latest history seed since start, with its progress or result",
        description:
          'A result counts the messages read (`fetched`), `learned` and `skipped` (by reason in `skipped_by`); a ' +
          'failed seed has `text.code` history_seed.unsupported when the implementation lacks get_group_msg_history.',
        response: { 200: SeedList },
      },
    },
    () => ({
      items: (ctx.deps.historySeeds?.list() ?? []).map(({ groupId, job }) => ({
        group_id: groupId,
        job: job.snapshot(),
      })),
      default_depth: HISTORY_SEED.defaultDepth,
      max_depth: HISTORY_SEED.maxDepth,
    }),
  );

  api.post(
    '/group-configs/:group_id/history-seed',
    {
      config: { auth: 'write' },
      schema: {
        tags,
        summary:
          "Learn from the group's history: read its newest messages back to `depth` and learn them in order, " +
          'sending nothing; 409 while a seed of the group runs',
        params: Params,
        body: SeedBody,
        response: { 200: JobStarted },
      },
    },
    (request) => {
      const depth = request.body.depth ?? HISTORY_SEED.defaultDepth;
      const groupId = request.params.group_id;
      try {
        const job = seeds().start({ groupId, depth, actor: requestActor(request) });
        return { job_id: job.id, action: 'history-seed' };
      } catch (error) {
        if (error instanceof JobBusyError)
          throw conflict('history_seed_running', { group: groupId }, `a history seed of group ${groupId} is running`);
        throw error;
      }
    },
  );

  api.delete(
    '/group-configs/:group_id/history-seed',
    {
      config: { auth: 'write' },
      schema: {
        tags,
        summary: "Cancel the group's running history seed (what was learned stays)",
        params: Params,
        response: { 200: Type.Object({ cancelled: Type.Boolean({ description: 'False: no seed was running.' }) }) },
      },
    },
    (request) => ({ cancelled: seeds().cancel(request.params.group_id) }),
  );
}
