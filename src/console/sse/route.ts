/**
 * Serving an SSE stream from a console route: a stream slot is taken (429 `too_many_streams`
 * when the client or the console holds as many as allowed), the reply is taken over (no envelope,
 * no serialiser), the stream opened, the producer run until it ends or the client goes away. A
 * producer failure after the headers went out can only end the stream; it is logged.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RouteContext } from '../context.ts';
import { CodedError } from '../errors.ts';
import { EVENT_STREAMS } from '../limits.ts';
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
  const slot = ctx.streams.acquire(request.ip);
  if (!slot.granted) {
    const detail =
      slot.scope === 'client'
        ? `too many event streams from this client (at most ${slot.limit}); close one and retry`
        : `too many event streams open on this console (at most ${slot.limit}); retry shortly`;
    throw new CodedError(429, 'too_many_streams', { scope: slot.scope, limit: slot.limit }, detail, {
      'retry-after': String(EVENT_STREAMS.retryAfterSec),
    });
  }
  reply.hijack();
  const sse = new SseStream(reply.raw, {
    heartbeatMs: timing.heartbeatMs,
    retryMs: timing.retryMs,
    stallMs: EVENT_STREAMS.stallMs,
  });
  // The socket's close frees the slot at once, whether or not the producer has noticed yet.
  sse.onClose(slot.release);
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
    slot.release();
  }
}
