/** Public routes that describe the service: health and the live OpenAPI document. */
import Type from 'typebox';
import type { ConsoleApp, RouteContext } from '../context.ts';
import { HealthReport } from '../schemas.ts';

export function metaRoutes(api: ConsoleApp, ctx: RouteContext): void {
  api.get(
    '/health',
    {
      config: { auth: 'public', envelope: false },
      schema: {
        tags: ['meta'],
        summary: 'Service health (not enveloped)',
        response: { 200: HealthReport },
      },
    },
    async () => ({
      ...ctx.deps.health(),
      console: { event_streams: ctx.streams.counts(), login: ctx.loginBudget.stats() },
    }),
  );

  let document: string | undefined;
  api.get(
    '/openapi.json',
    {
      config: { auth: 'public', envelope: false },
      schema: {
        tags: ['meta'],
        summary: 'This OpenAPI document (console API routes only; not enveloped)',
        response: { 200: Type.Object({}, { additionalProperties: true }) },
      },
    },
    async (_request, reply) => {
      // Built once: the routes cannot change after the server is ready.
      document ??= JSON.stringify(api.swagger());
      return reply.type('application/json; charset=utf-8').send(document as unknown as object);
    },
  );
}
