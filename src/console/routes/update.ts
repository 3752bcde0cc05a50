/**
 * The update domain: checks against the release feed, applying a web-console or bot release as a
 * job (progress at /update/jobs/{id}/stream, one update job at a time: 409), rollback. What
 * cannot run on this deployment answers 409 with a detail saying what to do instead.
 */
import Type from 'typebox';
import { JobBusyError } from '../../ops/jobs/index.ts';
import { UpdateRefused } from '../../ops/update/index.ts';
import type { ConsoleApp, RouteContext } from '../context.ts';
import { conflict, notFound } from '../errors.ts';
import { eventStream, JobIdParams, JobStatus, JobStreamEvent } from '../job-schemas.ts';
import { streamJob } from '../sse/job-stream.ts';
import { openEventStream } from '../sse/route.ts';
import {
  BotApplyQuery,
  BotCheck,
  GitApplyBody,
  GitJobStarted,
  HistoryPage,
  HistoryQuery,
  MigrationApplied,
  MigrationCheck,
  RollbackResult,
  UpdateJobStarted,
  WebCheck,
} from '../update-schemas.ts';
import type { GitMode, GitStrategy } from '../../ops/update/index.ts';
import { recordConsole } from '../activity.ts';

const tags = ['update'];

function refusal(error: unknown): never {
  if (error instanceof JobBusyError)
    throw conflict('job_busy', { kind: error.running.kind, job: error.running.id }, `update_busy: ${error.message}`);
  if (error instanceof UpdateRefused) throw conflict('update_refused', { detail: error.message }, error.message);
  throw error;
}

export function updateRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const updates = ctx.deps.updates;

  api.get(
    '/update/check',
    {
      schema: {
        tags,
        summary: 'Checks the web-console release (configured=false without a feed)',
        response: { 200: WebCheck },
      },
    },
    () => updates.check(),
  );

  api.get(
    '/update/bot/check',
    {
      schema: {
        tags,
        summary: 'Checks the bot release, with the deployment kind and whether apply and rollback are possible here',
        response: { 200: BotCheck },
      },
    },
    () => updates.botCheck(),
  );

  api.post(
    '/update/apply',
    {
      config: { auth: 'write' },
      schema: {
        tags,
        summary: 'Start applying the latest web-console release (served without a restart)',
        description: 'Answers at once with the job id; 409 when an update job runs or no feed is configured.',
        response: { 200: UpdateJobStarted },
      },
    },
    async (request) => {
      try {
        const job = await updates.startWebApply();
        await recordConsole(ctx.deps, request, { kind: 'update_apply', groupId: null, params: { part: 'webui' } });
        return { job_id: job.id, kind: 'webui' };
      } catch (error) {
        return refusal(error);
      }
    },
  );

  api.post(
    '/update/bot/apply',
    {
      config: { auth: 'write' },
      schema: {
        tags,
        summary: 'Start applying the latest bot release to this release deployment',
        description:
          'Download, checksum, stage versions/<v>, install dependencies, switch current, migrate. 409 when an ' +
          'update job runs, no feed is configured, or this deployment is not updated this way (source: use git; ' +
          'a container without a release folder: update the image on the host).',
        querystring: BotApplyQuery,
        response: { 200: UpdateJobStarted },
      },
    },
    async (request) => {
      const restart = request.query.restart ?? false;
      try {
        const job = await updates.startBotApply({ restart });
        await recordConsole(ctx.deps, request, {
          kind: 'update_apply',
          groupId: null,
          params: { part: 'bot', restart },
        });
        return { job_id: job.id, kind: 'bot', restart };
      } catch (error) {
        return refusal(error);
      }
    },
  );

  api.get(
    '/update/git/bot/history',
    {
      schema: {
        tags,
        summary: "Release tags or commits of a source checkout (runs git fetch); the feed's releases elsewhere",
        querystring: HistoryQuery,
        response: { 200: HistoryPage },
      },
    },
    (request) => updates.history((request.query.mode ?? 'commit') as GitMode, request.query.limit ?? 30),
  );

  api.post(
    '/update/git/bot/apply',
    {
      config: { auth: 'write' },
      schema: {
        tags,
        summary: 'Move to a release tag or a commit',
        description:
          'A source checkout: fetch, check out, npm ci when the lockfile changed, build; back to the old commit when ' +
          'a step fails. Elsewhere only a release with the safe strategy is possible (applied as a release): commit ' +
          'mode and force answer 409 with what to run on the host instead.',
        body: GitApplyBody,
        response: { 200: GitJobStarted },
      },
    },
    async (request) => {
      const mode = (request.body.mode ?? 'release') as GitMode;
      const strategy = (request.body.strategy ?? 'safe') as GitStrategy;
      const restart = request.body.restart ?? false;
      try {
        const job = await updates.startGitApply({ mode, ref: request.body.ref ?? '', strategy, restart });
        await recordConsole(ctx.deps, request, {
          kind: 'update_apply',
          groupId: null,
          params: { part: 'bot', mode, ref: (request.body.ref ?? '').slice(0, 100), restart },
        });
        return { job_id: job.id, kind: 'bot', mode, strategy, restart };
      } catch (error) {
        return refusal(error);
      }
    },
  );

  api.get(
    '/update/bot/config-migration/check',
    {
      schema: {
        tags,
        summary: 'Renamed, removed and origin (PALLAS_*) keys in .env and chorus.toml (keys only, never values)',
        response: { 200: MigrationCheck },
      },
    },
    () => updates.configMigrationCheck(),
  );

  api.post(
    '/update/bot/config-migration/apply',
    {
      config: { auth: 'write' },
      schema: {
        tags,
        summary: 'Rewrite .env and chorus.toml with the new key names (atomically, after a backup)',
        description:
          'Renamed keys keep their values; removed keys are commented out with the reason. 409 while an update job runs.',
        response: { 200: MigrationApplied },
      },
    },
    async () => {
      try {
        return await updates.configMigrationApply();
      } catch (error) {
        return refusal(error);
      }
    },
  );

  api.post(
    '/update/bot/rollback',
    {
      config: { auth: 'write' },
      schema: {
        tags,
        summary: 'Point current back at the previous bot version (restart=true restarts the supervised service)',
        description: '409 when there is no previous version, an update job runs, or this is not a release folder.',
        querystring: BotApplyQuery,
        response: { 200: RollbackResult },
      },
    },
    async (request) => {
      try {
        const rolled = await updates.rollback(request.query.restart ?? false);
        await recordConsole(ctx.deps, request, { kind: 'update_rollback', groupId: null, params: {} });
        return rolled;
      } catch (error) {
        return refusal(error);
      }
    },
  );

  api.get(
    '/update/jobs/active',
    {
      schema: {
        tags,
        summary: 'The running update job, or null',
        response: { 200: Type.Union([JobStatus, Type.Null()]) },
      },
    },
    async () => updates.activeJob()?.snapshot() ?? null,
  );

  api.get(
    '/update/jobs/:id',
    {
      schema: {
        tags,
        summary: 'One update job (404 job_not_found)',
        params: JobIdParams,
        response: { 200: JobStatus },
      },
    },
    async (request) => {
      const job = updates.job(request.params.id);
      if (job === undefined) throw notFound('job_not_found', { id: request.params.id }, 'job_not_found');
      return job.snapshot();
    },
  );

  api.get(
    '/update/jobs/:id/stream',
    {
      config: { envelope: false },
      schema: {
        tags,
        summary: 'Update progress as server-sent events, replayed from the start',
        params: JobIdParams,
        response: { 200: eventStream(JobStreamEvent, 'text/event-stream of JobStreamEvent JSON (unnamed events)') },
      },
    },
    (request, reply) =>
      openEventStream(ctx, request, reply, updates.timing, (sse) => streamJob(sse, updates.job(request.params.id))),
  );
}
