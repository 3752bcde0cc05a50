/** What the console shows about one connected account: its connections, liveness and lifecycle. */
import type { ClientRole, ConnectionDirection, OneBotConnection } from './connection.ts';
import type { LivenessView } from './liveness.ts';

export interface BotStatus {
  readonly selfId: number;
  readonly roles: readonly ClientRole[];
  /** Of each open connection, in the order of `roles`. */
  readonly directions: readonly ConnectionDirection[];
  /** Unix ms when the account's oldest open connection was accepted. */
  readonly connectedAt: number;
  readonly lastEventAt: number | null;
  readonly lastHeartbeatAt: number | null;
  readonly heartbeatIntervalMs: number | null;
  /**
   * `status.online` of the last heartbeat when reported; otherwise true once a ping was answered
   * (a dead connection is closed by liveness.ts, so the account leaves this list instead).
   */
  readonly online: boolean | null;
  /** How liveness.ts judges the account: by its heartbeats, by pings only, or not at all. */
  readonly judgedBy: LivenessView['judgedBy'];
  /** Unix ms of the last pong over any of its connections. */
  readonly lastPongAt: number | null;
  /** Last lifecycle sub_type (connect, enable, disable), when reported. */
  readonly lifecycle: string | null;
  /** Of the newest connection. */
  readonly remoteAddress: string | null;
  /** Over the open connections. */
  readonly framesIn: number;
  readonly framesOut: number;
}

const maxOrNull = (values: readonly (number | null)[]): number | null =>
  values.reduce<number | null>(
    (best, value) => (value !== null && (best === null || value > best) ? value : best),
    null,
  );

/** Aggregates an account's open connections (one Universal, or an Event/API pair). */
export function botStatus(selfId: number, connections: readonly OneBotConnection[]): BotStatus {
  const lastBeat = connections.reduce<OneBotConnection | null>(
    (best, c) =>
      c.lastHeartbeatAt !== null && (best === null || c.lastHeartbeatAt > (best.lastHeartbeatAt ?? 0)) ? c : best,
    null,
  );
  const views = connections.flatMap((c) => (c.liveness ? [c.liveness.view] : []));
  const lastPongAt = maxOrNull(views.map((view) => view.lastPongAt));
  const judgedBy = views.some((view) => view.judgedBy === 'heartbeat')
    ? 'heartbeat'
    : views.some((view) => view.judgedBy === 'ping')
      ? 'ping'
      : 'none';
  return {
    selfId,
    roles: connections.map((c) => c.role),
    directions: connections.map((c) => c.direction),
    connectedAt: Math.min(...connections.map((c) => c.connectedAt)),
    lastEventAt: maxOrNull(connections.map((c) => c.lastEventAt)),
    lastHeartbeatAt: lastBeat?.lastHeartbeatAt ?? null,
    heartbeatIntervalMs: lastBeat?.heartbeat?.intervalMs ?? null,
    online: lastBeat?.heartbeat?.online ?? (lastPongAt !== null ? true : null),
    judgedBy,
    lastPongAt,
    lifecycle: connections.findLast((c) => c.lifecycle !== null)?.lifecycle ?? null,
    remoteAddress: connections.at(-1)?.remoteAddress ?? null,
    framesIn: connections.reduce((sum, c) => sum + c.framesIn, 0),
    framesOut: connections.reduce((sum, c) => sum + c.framesOut, 0),
  };
}
