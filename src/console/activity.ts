/**
 * The console's side of the activity log (docs/rules.md#activity-log): who a request is (its
 * session level and client address), and recording a change a route made, never failing the
 * route for it (the change already happened; a failed write is logged by the store).
 */
import type { FastifyRequest } from 'fastify';
import type { ActivityActor, ActivityInput } from '../domain/activity.ts';
import type { ConsoleDeps } from './deps.ts';

export function requestActor(request: Pick<FastifyRequest, 'consoleAccess' | 'ip'>): ActivityActor {
  return { kind: 'console', level: request.consoleAccess?.level ?? '?', address: request.ip };
}

/** Records a console change (not awaited by the answer: the entry follows within milliseconds). */
export function recordConsole(
  deps: Pick<ConsoleDeps, 'activity' | 'clock'>,
  request: Pick<FastifyRequest, 'consoleAccess' | 'ip'>,
  input: Omit<ActivityInput, 'actor' | 'time'>,
): Promise<unknown> {
  if (!deps.activity) return Promise.resolve(null);
  return deps.activity.record({
    ...input,
    actor: requestActor(request),
    time: Math.floor(deps.clock.nowMs() / 1000),
  });
}
