/**
 * The database domain's backups (docs/guide/backups.md): info, a backup
 * job with its progress stream, the list, a download, delete, and the two-step restore (preview
 * with a confirmation token, then restore). Every name is confined to the backup folder.
 */
import Type from 'typebox';
import { BackupBusyError, BackupChangedError, BackupPathError } from '../../ops/backup/index.ts';
import { JobBusyError } from '../../ops/jobs/index.ts';
import { RetentionTokenError } from '../../ops/retention/index.ts';
import { CHORUS_TABLES, isChorusTable } from '../../store/database-overview.ts';
import type { RetentionPolicy } from '../../store/message-retention.ts';
import type { ConsoleApp, RouteContext } from '../context.ts';
import { badRequest, conflict, invalidField, notFound } from '../errors.ts';
import { eventStream, JobIdParams, JobStarted, JobStatus, JobStreamEvent } from '../job-schemas.ts';
import { streamJob } from '../sse/job-stream.ts';
import { databaseCorpusRoutes } from './database-corpus.ts';
import { openEventStream } from '../sse/route.ts';
import {
  BackupBody,
  BackupInfo,
  BackupRun,
  DeleteBody,
  Name,
  RestoreAnswer,
  RestoreBody,
  RetentionApplyBody,
  RetentionPreview,
  RetentionPreviewBody,
} from '../database-schemas.ts';
import { recordConsole } from '../activity.ts';

const tags = ['database'];

const count = (description: string) => Type.Integer({ minimum: 0, description });
const MediaOverviewSchema = Type.Object({
  files: count('Pictures held.'),
  bytes: count('Bytes held.'),
  budget_bytes: count('The byte budget; the least recently used pictures are evicted beyond it.'),
  hits: count('Sends that found the bytes of a picture.'),
  misses: count('Sends that looked for a picture not held.'),
  evictions: count('Pictures evicted for the budget.'),
  fetched: count('Pictures fetched since start.'),
  fetch_failed: count('Fetches that failed.'),
  too_large: count('Pictures over the size bound, not kept.'),
  skipped: count('Pictures not fetched because the fetch queue was full.'),
  resent_base64: count('Sends refused by name that went again as bytes.'),
  sent_base64: count('Sends that went as bytes at once (a name known to be stale).'),
  media_failures: count('Sends refused for a picture with no bytes to send instead (never a ban).'),
});

function policyOf(body: { days?: number; max_rows?: number }): RetentionPolicy {
  if (body.days === undefined && body.max_rows === undefined)
    throw invalidField('body.days', 'required', 'body: give days, max_rows or both');
  return { days: body.days ?? null, maxRows: body.max_rows ?? null };
}

export function databaseRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const backups = ctx.deps.backups;
  // Its own scope: the upload's content-type parser applies to its routes alone.
  void api.register(async (scope) => databaseCorpusRoutes(scope, ctx));
  const refused = (error: unknown): never => {
    if (error instanceof BackupPathError || error instanceof RetentionTokenError)
      throw badRequest('backup_refused', { detail: error.message }, `body.${error.message}`);
    if (error instanceof JobBusyError)
      throw conflict('job_busy', { kind: error.running.kind, job: error.running.id }, error.message);
    if (error instanceof BackupBusyError) throw conflict('restore_busy', {}, error.message);
    if (error instanceof BackupChangedError) throw conflict('backup_changed', {}, `body.${error.message}`);
    throw error;
  };

  api.get(
    '/db/overview',
    {
      schema: {
        tags,
        summary: "The engine, its size on disk, the WAL (SQLite), and each of Chorus's tables with its row count",
        response: {
          200: Type.Object({
            engine: Type.String({ enum: ['sqlite', 'postgres'] }),
            bytes: Type.Integer({ description: "SQLite: the database file; PostgreSQL: Chorus's tables and indexes." }),
            wal_bytes: Type.Union([Type.Integer(), Type.Null()]),
            tables: Type.Array(Type.Object({ name: Type.String(), rows: Type.Integer() })),
            last_backup_at: Type.Union([Type.Integer(), Type.Null()]),
            media: Type.Union([MediaOverviewSchema, Type.Null()], {
              description: 'The media cache of learned pictures (data/media); null: no chat side in this process.',
            }),
          }),
        },
      },
    },
    async () => ({ ...(await ctx.deps.database.overview()), last_backup_at: (await backups.info()).last_backup_at }),
  );

  api.get(
    '/db/tables',
    {
      schema: {
        tags,
        summary: "Chorus's tables with their row counts",
        response: { 200: Type.Array(Type.Object({ name: Type.String(), rows: Type.Integer() })) },
      },
    },
    async () => (await ctx.deps.database.overview()).tables,
  );

  api.get(
    '/db/table-rows',
    {
      // Raw rows hold stored messages and member numbers: read means read, not these (docs/rules.md#console-read-level).
      config: { auth: 'write' },
      schema: {
        tags,
        summary: "One page of one of Chorus's tables, in key order (read-only)",
        querystring: Type.Object(
          {
            table: Type.String({ enum: [...CHORUS_TABLES] }),
            offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            table: Type.String(),
            offset: Type.Integer(),
            rows: Type.Array(Type.Object({}, { additionalProperties: true })),
          }),
        },
      },
    },
    async (request) => {
      const { table, offset = 0, limit = 50 } = request.query;
      if (!isChorusTable(table)) throw invalidField('query.table', 'enum', "query.table: not one of Chorus's tables");
      return { table, offset, rows: await ctx.deps.database.rows(table, offset, limit) };
    },
  );

  api.get(
    '/db/backup/info',
    {
      schema: {
        tags,
        summary: 'Backups: engine, format, folder, count, size, last backup, last restore',
        response: { 200: BackupInfo },
      },
    },
    () => backups.info(),
  );

  api.post(
    '/db/backup',
    {
      config: { auth: 'write' },
      schema: {
        tags,
        summary:
          'Start a backup job (SQLite: online backup; PostgreSQL: pg_dump, or the portable corpus file without the ' +
          'client tools); 409 while one runs',
        body: BackupBody,
        response: { 200: JobStarted },
      },
    },
    (request) => {
      try {
        return { job_id: backups.start(request.body.label ?? '').id, action: 'backup' };
      } catch (error) {
        return refused(error);
      }
    },
  );

  api.get(
    '/db/backup/jobs/active',
    {
      schema: {
        tags,
        summary: 'The running backup or restore job, or null',
        response: { 200: Type.Union([JobStatus, Type.Null()]) },
      },
    },
    async () => backups.active()?.snapshot() ?? null,
  );

  api.get(
    '/db/backup/jobs/:id',
    {
      schema: {
        tags,
        summary: 'One backup job (404 job_not_found)',
        params: JobIdParams,
        response: { 200: JobStatus },
      },
    },
    async (request) => {
      const job = backups.job(request.params.id);
      if (job === undefined) throw notFound('job_not_found', { id: request.params.id }, 'job_not_found');
      return job.snapshot();
    },
  );

  api.get(
    '/db/backup/jobs/:id/stream',
    {
      config: { envelope: false },
      schema: {
        tags,
        summary: 'Backup progress as server-sent events, replayed from the start',
        params: JobIdParams,
        response: { 200: eventStream(JobStreamEvent, 'text/event-stream of JobStreamEvent JSON (unnamed events)') },
      },
    },
    (request, reply) =>
      openEventStream(ctx, request, reply, ctx.deps.aiExtension.timing, (sse) =>
        streamJob(sse, backups.job(request.params.id)),
      ),
  );

  api.get(
    '/db/backup/runs',
    {
      schema: { tags, summary: 'Backups in the backup folder, newest first', response: { 200: Type.Array(BackupRun) } },
    },
    () => backups.runs(),
  );

  api.get(
    '/db/backup/runs/download',
    {
      // A backup is every stored message with sender numbers and nicknames (docs/rules.md#console-read-level).
      config: { envelope: false, auth: 'write' },
      schema: {
        tags,
        summary: 'One backup file as an attachment; 409 when its size is not the recorded one',
        querystring: Type.Object({ name: Name }, { additionalProperties: false }),
        response: { 200: { type: 'string', format: 'binary', description: 'The backup file.' } },
      },
    },
    async (request, reply) => {
      let found;
      try {
        found = await backups.file(request.query.name);
      } catch (error) {
        if (error instanceof BackupPathError)
          throw badRequest('backup_refused', { detail: error.message }, `query.${error.message}`);
        if (error instanceof BackupChangedError) throw conflict('backup_changed', {}, `query.${error.message}`);
        throw error;
      }
      if (found === null)
        throw notFound('no_backup', { name: request.query.name }, `no backup called ${request.query.name}`);
      return (
        reply
          .type('application/octet-stream')
          .header('content-disposition', `attachment; filename="${found.run.name}"`)
          .header('content-length', String(found.bytes))
          // The schema documents the body as binary for the OpenAPI document; Fastify sends the stream.
          .send(found.stream as never)
      );
    },
  );

  api.post(
    '/db/backup/runs/restore',
    {
      config: { auth: 'write' },
      schema: {
        tags,
        summary:
          'Restore a backup: without confirm_token a preview answering one; with it the restore (409 while another ' +
          'restore or a database job is under way, or when the file is not the recorded one: size or sha256)',
        description:
          'SQLite: Chorus restarts and swaps the database for the backup after checking it; a backup that fails the ' +
          'check leaves the old database in use (see last_restore in /db/backup/info). A pg_dump backup: Chorus ' +
          'restarts and replaces its tables in one transaction (a dump that fails midway is rolled back). The ' +
          'portable file is merged as a job.',
        body: RestoreBody,
        response: { 200: RestoreAnswer },
      },
    },
    async (request) => {
      const { name, confirm_token: token } = request.body;
      try {
        if (token === undefined) {
          const preview = await backups.preview(name);
          if (preview === null) throw notFound('no_backup', { name }, `no backup called ${name}`);
          return { stage: 'preview', ...preview };
        }
        const outcome = await backups.restore(name, token);
        // Written before the restart; a restored SQLite file or pg_dump replaces this log with its own.
        await recordConsole(ctx.deps, request, { kind: 'database_restore', groupId: null, params: { backup: name } });
        return outcome.restarting ? { stage: 'restarting' } : { stage: 'job', job_id: outcome.job?.id ?? '' };
      } catch (error) {
        return refused(error);
      }
    },
  );

  api.post(
    '/db/backup/runs/delete',
    {
      config: { auth: 'write' },
      schema: {
        tags,
        summary: 'Delete backups (their files and descriptions)',
        body: DeleteBody,
        response: { 200: Type.Object({ deleted: Type.Array(Type.String()), missing: Type.Array(Type.String()) }) },
      },
    },
    async (request) => {
      try {
        return await backups.delete(request.body.names);
      } catch (error) {
        return refused(error);
      }
    },
  );

  api.post(
    '/db/retention/preview',
    {
      schema: {
        tags,
        summary: 'What a message-log retention policy would delete, and a token to apply it',
        body: RetentionPreviewBody,
        response: { 200: RetentionPreview },
      },
    },
    (request) => ctx.deps.retention.preview(policyOf(request.body)),
  );

  api.post(
    '/db/retention/apply',
    {
      config: { auth: 'write' },
      schema: {
        tags,
        summary: 'Apply a previewed retention policy as a job (deletes in short steps; follow the backup job routes)',
        body: RetentionApplyBody,
        response: { 200: JobStarted },
      },
    },
    (request) => {
      try {
        return {
          job_id: ctx.deps.retention.apply(policyOf(request.body), request.body.confirm_token).id,
          action: 'retention',
        };
      } catch (error) {
        return refused(error);
      }
    },
  );
}
