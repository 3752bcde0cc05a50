/**
 * Serving an SSE stream from a console route: the reply is taken over (no envelope, no
 * serialiser), the stream opened, the producer run until it ends or the client goes away. A
 * producer failure after the headers went out can only end the stream; it is logged.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RouteContext } from '../context.ts';
import { SseStream } from './sse-stream.ts';
import { errorMessage } from '../../common/errors.ts';

export interface StreamTiming {
  heartbeatMs: number;
  retryMs: number;
}

export async function openEventStream(
  ctx: RouteContext,
  request: FastifyRequest,
  reply: FastifyReply,
  timing: StreamTiming,
  produce: (sse: SseStream) => Promise<void>,
): Promise<void> {
  reply.hijack();
  const sse = new SseStream(reply.raw, { heartbeatMs: timing.heartbeatMs, retryMs: timing.retryMs });
  sse.open();
  try {
    await produce(sse);
  } catch (error) {
    ctx.deps.logger.error(
      { err: { message: errorMessage(error) }, route: request.routeOptions.url },
      'event stream failed',
    );
  } finally {
    sse.end();
  }
}
