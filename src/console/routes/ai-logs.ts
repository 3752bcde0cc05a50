/**
 * AI service logs: a tail (local file, else the AI service's /ops/logs, else a hint) and a live
 * stream that resumes from `last_event_id` or `Last-Event-ID` for a local file.
 */
import { LOG_LINES, type LogKind } from '../../ops/ai/index.ts';
import { LogsQuery, LogStreamEvent, LogStreamQuery, LogTail } from '../ai-schemas.ts';
import type { ConsoleApp, RouteContext } from '../context.ts';
import { eventStream } from '../job-schemas.ts';
import { streamLines } from '../sse/line-stream.ts';
import { openEventStream } from '../sse/route.ts';
import { resumePoint } from '../sse/sse-stream.ts';

const tags = ['ai-extension'];

export function aiLogRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const ai = ctx.deps.aiExtension;

  api.get(
    '/ai-extension/logs',
    {
      schema: {
        tags,
        summary: 'The last lines of an AI service log: a local file, else the AI service, else a hint',
        querystring: LogsQuery,
        response: { 200: LogTail },
      },
    },
    async (request) => {
      const { errorCode, ...tail } = await ai.logs(
        (request.query.kind ?? 'uvicorn') as LogKind,
        request.query.n ?? LOG_LINES.default,
      );
      return { ...tail, error_code: errorCode };
    },
  );

  api.get(
    '/ai-extension/logs/stream',
    {
      config: { envelope: false },
      schema: {
        tags,
        summary: 'New lines of an AI service log as server-sent events',
        description:
          'A local file is followed from near its end, or after `last_event_id` / the Last-Event-ID header (a byte ' +
          'offset; a file that is shorter now, or was rotated, is read from its start). Without a local file the AI ' +
          'service is polled and only new lines are sent.',
        querystring: LogStreamQuery,
        response: { 200: eventStream(LogStreamEvent, 'text/event-stream of AiLogStreamEvent JSON') },
      },
    },
    (request, reply) =>
      openEventStream(ctx, request, reply, ai.timing, async (sse) => {
        const kind = (request.query.kind ?? 'uvicorn') as LogKind;
        const resumeAt = resumePoint(request.query.last_event_id, request.headers['last-event-id']);
        const plan = await ai.logStream(kind, resumeAt);
        if (plan.status !== 'open') {
          const failed = { error: plan.error, error_code: plan.code, tried: [...plan.tried] };
          await sse.send({ data: { type: 'error', kind, path: plan.path, ...failed } });
          return;
        }
        await streamLines(sse, plan.source, {
          pollMs: plan.pollMs,
          ready: { kind, path: plan.path, source: plan.origin },
          lineEvent: (line) => ({ kind, path: plan.path, source: plan.origin, line: line.text }),
          errorEvent: (error) => ({
            kind,
            path: plan.path,
            source: plan.origin,
            error,
            error_code: plan.origin === 'local' ? 'unreadable' : 'remote_stopped',
          }),
        });
      }),
  );
}
