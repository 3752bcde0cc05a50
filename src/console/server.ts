import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { HealthSource } from './health.ts';

export interface ConsoleServerOptions {
  /** Path prefix, "" or like "/chorus" (normalised by config). */
  baseUrl: string;
  logger: Logger;
  health: HealthSource;
}

/**
 * The console HTTP server. This first version serves the health route and the API's not-found
 * shape; authentication, the envelope plugin and the domains arrive with the console issue.
 */
export function createConsoleServer(options: ConsoleServerOptions): FastifyInstance {
  const app = Fastify({
    // Fastify's own info lines ("Server listening at") would repeat ours; it keeps warnings and errors.
    loggerInstance: options.logger.child({}, { level: 'warn' }) as FastifyBaseLogger,
    // Per-request lines would carry query strings (`?token=`) into the log.
    logController: new LogController({ disableRequestLogging: true }),
    // Idle keep-alive sockets must not hold shutdown past its deadline.
    forceCloseConnections: true,
  });
  const api = `${options.baseUrl}/api`;

  app.get(`${api}/health`, async () => options.health());

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const detail =
      path.startsWith(`${api}/`) || path === api ? `no such route: ${request.method} ${path}` : 'not found';
    return reply.code(404).send({ ok: false, detail });
  });

  app.setErrorHandler((error: { statusCode?: number; message: string }, request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    // A 5xx never shows internals; a 4xx says what was wrong with the request.
    return reply.code(status).send({ ok: false, detail: status >= 500 ? 'internal error' : error.message });
  });

  return app;
}
