/**
 * The service's own log, from the in-memory ring (src/ops/logs/log-ring.ts): recent entries with
 * filters, a text export, a live SSE stream that resumes after an entry id, and the errors since
 * the last cleanup. Without a ring (a console built without one) these routes answer 503.
 */
import type { LogFilter, LogLevelName, LogRing } from '../../ops/logs/index.ts';
import { formatLogEntry } from '../../ops/logs/index.ts';
import type { ConsoleApp, RouteContext } from '../context.ts';
import { unavailable } from '../errors.ts';
import { eventStream } from '../job-schemas.ts';
import { LOG_ROUTES } from '../limits.ts';
import { hidesMembers, maskMembers, MEMBERS_HEADER } from '../member-mask.ts';
import {
  LogErrors,
  LogErrorsCleanup,
  LogErrorsQuery,
  LogExportQuery,
  LogPage,
  LogsQuery,
  LogStreamEvent,
  LogStreamQuery,
} from '../log-schemas.ts';
import { entryJson, streamLogRing } from '../sse/log-ring-stream.ts';
import { openEventStream } from '../sse/route.ts';
import { resumePoint } from '../sse/sse-stream.ts';

const tags = ['logs'];

interface FilterQuery {
  level?: string;
  scope?: string;
  q?: string;
}

function filterOf(query: FilterQuery): LogFilter {
  return {
    ...(query.level ? { level: query.level as LogLevelName } : {}),
    ...(query.scope ? { scope: query.scope } : {}),
    ...(query.q ? { text: query.q } : {}),
  };
}

export function logRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const ring = (): LogRing => {
    const logs = ctx.deps.logs;
    if (!logs) throw unavailable('logs_elsewhere', {}, 'the service log is not kept in this process');
    return logs.ring;
  };

  api.get(
    '/logs',
    {
      config: { members: true },
      schema: {
        tags,
        summary: 'Recent entries of the service log (in memory), filtered by level, scope and text',
        querystring: LogsQuery,
        response: { 200: LogPage },
      },
    },
    async (request) => {
      const logs = ring();
      return {
        entries: logs.recent(filterOf(request.query), request.query.limit ?? LOG_ROUTES.defaultLimit).map(entryJson),
        max_entries: logs.maxEntries,
        oldest_id: logs.oldestId,
        next_id: logs.nextId,
      };
    },
  );

  api.get(
    '/logs/export',
    {
      config: { envelope: false },
      schema: {
        tags,
        summary: 'The same entries as a text attachment, one line each (not enveloped)',
        description:
          'Member numbers: below the write level each is a negative stand-in (docs/rules.md#console-member-numbers).',
        querystring: LogExportQuery,
        response: {
          200: {
            description: 'text/plain attachment chorus-logs_YYYYmmdd-HHMM.txt',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
        },
      },
    },
    async (request, reply) => {
      const entries = ring().recent(filterOf(request.query), request.query.limit ?? LOG_ROUTES.defaultExport);
      const stamp = new Date(ctx.deps.clock.nowMs()).toISOString().replace(/[-:]/g, '').slice(0, 13);
      const name = `chorus-logs_${stamp.slice(0, 8)}-${stamp.slice(9, 13)}.txt`;
      const hide = hidesMembers(request);
      if (hide) reply.header(MEMBERS_HEADER, 'masked');
      const text = entries.map((entry) => formatLogEntry(hide ? maskMembers(entry) : entry)).join('\n');
      return reply
        .type('text/plain; charset=utf-8')
        .header('content-disposition', `attachment; filename="${name}"`)
        .send(text === '' ? '' : `${text}\n`);
    },
  );

  api.get(
    '/logs/stream',
    {
      config: { envelope: false },
      schema: {
        tags,
        summary: 'New entries of the service log as server-sent events',
        description:
          'A `ready` event, then one `entry` event per matching entry with its id as the event id. After ' +
          '`last_event_id` (query) or the Last-Event-ID header the stream resumes with the next entry, replaying ' +
          'what is still kept; without either it starts with the next new entry. A client too slow to keep up ' +
          'is not buffered for: it reads from the log at its own pace and gets a `gap` event counting the ' +
          'entries that left the log before it read them. A `: heartbeat` comment goes out when idle. Member ' +
          'numbers: below the write level each is a negative stand-in (docs/rules.md#console-member-numbers).',
        querystring: LogStreamQuery,
        response: { 200: eventStream(LogStreamEvent, 'text/event-stream of LogStreamEvent JSON') },
      },
    },
    (request, reply) => {
      const logs = ctx.deps.logs;
      if (!logs) throw unavailable('logs_elsewhere', {}, 'the service log is not kept in this process');
      const timing = { heartbeatMs: logs.heartbeatMs ?? LOG_ROUTES.heartbeatMs, retryMs: LOG_ROUTES.retryMs };
      const resumeAfter = resumePoint(request.query.last_event_id, request.headers['last-event-id']);
      return openEventStream(ctx, request, reply, timing, (sse) =>
        streamLogRing(sse, logs.ring, filterOf(request.query), resumeAfter, hidesMembers(request)),
      );
    },
  );

  api.get(
    '/log-errors',
    {
      config: { members: true },
      schema: {
        tags,
        summary: 'Error and fatal entries of the service log since the last cleanup',
        querystring: LogErrorsQuery,
        response: { 200: LogErrors },
      },
    },
    async (request) => {
      const found = ring().errors(request.query.limit ?? LOG_ROUTES.defaultErrors);
      return { entries: found.entries.map(entryJson), total: found.total, cleared_at: found.clearedAt };
    },
  );

  api.post(
    '/log-errors/cleanup',
    {
      config: { auth: 'write' },
      schema: {
        tags,
        summary: 'Forget the errors shown by GET /log-errors (the log itself keeps them)',
        response: { 200: LogErrorsCleanup },
      },
    },
    async () => ({ removed: ring().clearErrors(ctx.deps.clock.nowMs()) }),
  );
}
