/**
 * The portable corpus file from the console (docs/guide/backups.md):
 * an export job and its download, and an import job fed by an upload. Both are jobs of the
 * database kind, followed at /db/backup/jobs/{id} and its stream like backups and retention.
 */
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import type { FastifySchemaCompiler } from 'fastify';
import Type from 'typebox';
import { JobBusyError } from '../../ops/jobs/index.ts';
import { CorpusFileRequestError } from '../../ops/corpus-file/index.ts';
import type { ConsoleApp, RouteContext } from '../context.ts';
import { badRequest, CodedError, conflict } from '../errors.ts';
import { JobStarted } from '../job-schemas.ts';
import { consoleValidatorCompiler } from '../validation.ts';

const tags = ['database'];

const ExportBody = Type.Object(
  {
    groups: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: 9_007_199_254_740_991 }), {
        maxItems: 100,
        description: 'Only answers (and bans) of these groups; absent or empty: all.',
      }),
    ),
    anonymise: Type.Optional(Type.Boolean({ description: 'Every group id written as 0.' })),
  },
  { additionalProperties: false },
);

const ImportQuery = Type.Object(
  {
    dry_run: Type.Optional(
      Type.Boolean({ description: 'Read and merge without writing; the report says what would change.' }),
    ),
  },
  { additionalProperties: false },
);

/** The upload is a stream, not JSON: the body schema documents it and is not checked. */
const streamBody: FastifySchemaCompiler<unknown> = (request) =>
  request.httpPart === 'body'
    ? () => true
    : consoleValidatorCompiler(request as Parameters<typeof consoleValidatorCompiler>[0]);

function refused(error: unknown): never {
  if (error instanceof CorpusFileRequestError)
    throw new CodedError(error.status, 'corpus_file_refused', { detail: error.message }, error.message);
  if (error instanceof JobBusyError)
    throw conflict('job_busy', { kind: error.running.kind, job: error.running.id }, error.message);
  throw error;
}

export function databaseCorpusRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const files = ctx.deps.corpusFiles;
  api.addContentTypeParser(['application/gzip', 'application/octet-stream'], (_request, payload, done) =>
    done(null, payload),
  );

  api.post(
    '/db/corpus/export',
    {
      config: { auth: 'write' },
      schema: {
        tags,
        summary:
          'Export the corpus to a portable corpus file as a job (follow it at /db/backup/jobs/{id}); 409 while a database job runs',
        body: ExportBody,
        response: { 200: JobStarted },
      },
    },
    (request) => {
      try {
        const { groups, anonymise } = request.body;
        return {
          job_id: files.startExport({ ...(groups ? { groups } : {}), ...(anonymise ? { anonymise } : {}) }).id,
          action: 'corpus-export',
        };
      } catch (error) {
        return refused(error);
      }
    },
  );

  api.get(
    '/db/corpus/export/download',
    {
      // Stored messages in bulk (docs/rules.md#console-read-level).
      config: { envelope: false, auth: 'write' },
      schema: {
        tags,
        summary: 'An exported corpus file (the name from the export job result) as an attachment',
        querystring: Type.Object(
          { name: Type.String({ minLength: 1, maxLength: 128 }) },
          { additionalProperties: false },
        ),
        response: { 200: { type: 'string', format: 'binary', description: 'The gzip-compressed JSON Lines file.' } },
      },
    },
    async (request, reply) => {
      let found;
      try {
        found = await files.file(request.query.name);
      } catch (error) {
        if (error instanceof CorpusFileRequestError && error.status === 400)
          throw badRequest('corpus_file_refused', { detail: error.message }, `query.${error.message}`);
        return refused(error);
      }
      return (
        reply
          .type('application/gzip')
          .header('content-disposition', `attachment; filename="${request.query.name}"`)
          .header('content-length', String(found.bytes))
          // The schema documents the body as binary for the OpenAPI document; Fastify sends the stream.
          .send(createReadStream(found.path) as never)
      );
    },
  );

  api.post(
    '/db/corpus/import',
    {
      config: { auth: 'write' },
      validatorCompiler: streamBody,
      schema: {
        tags,
        summary:
          'Upload a portable corpus file (Content-Type application/gzip) and merge it as a job (follow it at ' +
          '/db/backup/jobs/{id}); 409 while a database job runs, 413 past 2 GiB',
        description:
          'An answer keeps the larger count, messages are united, bans added once; importing the same file twice ' +
          'changes nothing. The job result reports what was added.',
        querystring: ImportQuery,
        consumes: ['application/gzip'],
        body: {
          type: 'string',
          format: 'binary',
          description: 'The file written by an export or `chorus corpus export`.',
        },
        response: { 200: JobStarted },
      },
    },
    async (request) => {
      const body = request.body as unknown;
      if (typeof (body as Readable | null)?.pipe !== 'function')
        throw badRequest('gzip_required', {}, 'body: send the corpus file with Content-Type application/gzip');
      try {
        const job = await files.startImport(body as Readable, request.query.dry_run === true);
        return { job_id: job.id, action: request.query.dry_run === true ? 'corpus-import-dry-run' : 'corpus-import' };
      } catch (error) {
        return refused(error);
      }
    },
  );
}
