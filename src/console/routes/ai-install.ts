/**
 * Installing and updating the AI runtime: the install status, starting a job (409 when one runs
 * or the action is not possible here), the job itself and its progress stream.
 */
import Type from 'typebox';
import { JobBusyError } from '../../ops/jobs/index.ts';
import { InstallRefused, type InstallAction } from '../../ops/ai/index.ts';
import { InstallBody, InstallStatus } from '../ai-schemas.ts';
import type { ConsoleApp, RouteContext } from '../context.ts';
import { conflict, notFound } from '../errors.ts';
import { eventStream, JobIdParams, JobStarted, JobStatus, JobStreamEvent } from '../job-schemas.ts';
import { streamJob } from '../sse/job-stream.ts';
import { openEventStream } from '../sse/route.ts';

const tags = ['ai-extension'];

export function aiInstallRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const ai = ctx.deps.aiExtension;

  api.get(
    '/ai-extension/install/status',
    {
      schema: {
        tags,
        summary: 'Whether an AI checkout is here and whether clone, bootstrap or update is possible (runs git fetch)',
        response: { 200: InstallStatus },
      },
    },
    () => ai.installStatus(),
  );

  api.post(
    '/ai-extension/install',
    {
      config: { auth: 'write' },
      schema: {
        tags,
        summary:
          'Start an install job: clone, bootstrap, clone_and_bootstrap or update (fetch, fast-forward, bootstrap)',
        description:
          'Answers at once with the job id; follow it at /ai-extension/install/jobs/{id}/stream. 409 when an install ' +
          'job runs or the action is not possible here (container deployment, AI service on another host or run ' +
          'outside Chorus, nothing to bootstrap, not a managed checkout).',
        body: InstallBody,
        response: { 200: JobStarted },
      },
    },
    async (request) => {
      const action = (request.body.action ?? 'clone_and_bootstrap') as InstallAction;
      try {
        const job = await ai.startInstall({
          action,
          noStart: request.body.no_start ?? false,
          useGpu: request.body.use_gpu ?? false,
        });
        return { job_id: job.id, action };
      } catch (error) {
        if (error instanceof JobBusyError)
          throw conflict('job_busy', { kind: error.running.kind, job: error.running.id }, error.message);
        if (error instanceof InstallRefused)
          throw conflict('install_refused', { detail: error.message }, error.message);
        throw error;
      }
    },
  );

  api.get(
    '/ai-extension/install/jobs/active',
    {
      schema: {
        tags,
        summary: 'The running install job, or null',
        response: { 200: Type.Union([JobStatus, Type.Null()]) },
      },
    },
    async () => ai.activeJob()?.snapshot() ?? null,
  );

  api.get(
    '/ai-extension/install/jobs/:id',
    {
      schema: {
        tags,
        summary: 'One install job (404 job_not_found)',
        params: JobIdParams,
        response: { 200: JobStatus },
      },
    },
    async (request) => {
      const job = ai.job(request.params.id);
      if (job === undefined) throw notFound('job_not_found', { id: request.params.id }, 'job_not_found');
      return job.snapshot();
    },
  );

  api.get(
    '/ai-extension/install/jobs/:id/stream',
    {
      config: { envelope: false },
      schema: {
        tags,
        summary: 'Install progress as server-sent events, replayed from the start',
        params: JobIdParams,
        response: { 200: eventStream(JobStreamEvent, 'text/event-stream of JobStreamEvent JSON (unnamed events)') },
      },
    },
    (request, reply) =>
      openEventStream(ctx, request, reply, ai.timing, (sse) => streamJob(sse, ai.job(request.params.id))),
  );
}
