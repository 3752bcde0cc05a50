/**
 * Restarting the service from the console (a setting marked restart_required applies at the next
 * start): through the supervisor of `chorus serve` when there is one (src/app/supervisor.ts),
 * else the process stops and starts itself again. The answer is sent before the restart begins;
 * the page then asks `GET /service` until `started_at_ms` changes.
 */
import Type from 'typebox';
import type { ConsoleApp, RouteContext } from '../context.ts';
import { CodedError } from '../errors.ts';

const ServiceState = Type.Object({
  started_at_ms: Type.Integer({ description: 'Unix ms when this run of the service started; a restart changes it.' }),
  restart_available: Type.Boolean({ description: 'Whether POST /service/restart can restart this process.' }),
});

export function serviceRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const { deps } = ctx;
  // A console without a system source (a test harness) started with its server.
  const startedAtMs = deps.system?.startedAtMs ?? deps.clock.nowMs();
  api.get(
    '/service',
    {
      schema: {
        tags: ['service'],
        summary: 'When this run of the service started and whether the console can restart it',
        response: { 200: ServiceState },
      },
    },
    async () => ({ started_at_ms: startedAtMs, restart_available: deps.restartService !== undefined }),
  );

  api.post(
    '/service/restart',
    {
      config: { auth: 'write' },
      schema: {
        tags: ['service'],
        summary:
          'Restart the service (the supervisor of chorus serve starts it again; without one the process restarts ' +
          'itself); 409 restart_unavailable when neither can',
        response: {
          200: Type.Object({
            restarting: Type.Literal(true),
            via: Type.Union([Type.Literal('supervisor'), Type.Literal('process')]),
            started_at_ms: Type.Integer({ description: 'The current run; the next one reports another value.' }),
          }),
        },
      },
    },
    async (request) => {
      const via = deps.restartService?.() ?? null;
      if (via === null) {
        throw new CodedError(409, 'restart_unavailable', {}, 'this process cannot be restarted from the console');
      }
      deps.logger.warn({ via, client: request.ip }, 'restart asked for from the console');
      return { restarting: true as const, via, started_at_ms: startedAtMs };
    },
  );
}
