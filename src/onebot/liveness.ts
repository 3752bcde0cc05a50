/**
 * Whether a OneBot connection is still alive. A silent network drop leaves a socket that looks
 * open for minutes: the account shows connected and every action waits out its timeout. Two
 * judges, either of which ends the connection:
 *
 * - a WebSocket ping every `pingIntervalMs`; no pong within `pongTimeoutMs` and it is dead. Every
 *   WebSocket stack answers pings by itself, so this also judges implementations that send no
 *   heartbeats;
 * - a heartbeat deadline: once the implementation sends `meta_event heartbeat` with an `interval`,
 *   `heartbeatMissedMax` intervals without the next one and it is dead.
 *
 * Works on any socket with `ping` and a `pong` event (a `ws` WebSocket, accepted or dialled), so a
 * reverse and a forward connection are judged alike. The owner feeds it heartbeats and is told
 * once, through `onDead`, when the connection is judged dead; closing it is the owner's part.
 */

import type { Log } from '../common/log.ts';
import { ONEBOT_CLOSE_CODE } from './limits.ts';

export interface LivenessSettings {
  /** 0 sends no pings (the heartbeat deadline still applies). */
  readonly pingIntervalMs: number;
  readonly pongTimeoutMs: number;
  readonly heartbeatMissedMax: number;
}

/** What the watch needs of a socket; `ws`'s WebSocket has it. */
export interface PingableSocket {
  ping(data?: unknown, mask?: boolean, callback?: (error?: Error) => void): void;
  on(event: 'pong', listener: () => void): unknown;
  off(event: 'pong', listener: () => void): unknown;
}

/** Why a connection was judged dead, as a code and its numbers (the console words it). */
export type LivenessFailure =
  | { readonly code: 'no_pong'; readonly timeoutMs: number }
  | { readonly code: 'no_heartbeat'; readonly intervalMs: number; readonly missed: number };

/** What bot-status.ts shows: how the connection is judged and the last proof of life. */
export interface LivenessView {
  /** `heartbeat` once the implementation announced an interval; `ping` when only pings judge it. */
  readonly judgedBy: 'heartbeat' | 'ping' | 'none';
  readonly lastPongAt: number | null;
}

/**
 * A peer announcing a tiny interval (or a clock hiccup on our side) must not have its connection
 * cut between two quick heartbeats: the heartbeat deadline is never shorter than this.
 */
export const LIVENESS_HEARTBEAT_DEADLINE_MIN_MS = 1000;

export const LIVENESS_DEFAULTS: LivenessSettings = {
  pingIntervalMs: 30_000,
  pongTimeoutMs: 10_000,
  heartbeatMissedMax: 3,
};

/** What a watched connection offers: who it is, where its watch is kept, and a way to cut it. */
export interface WatchedConnection {
  readonly selfId: number;
  readonly role: string;
  liveness: LivenessWatch | null;
  terminate(reported: { code: number; reason: string }): void;
}

/**
 * Watches `connection` over its `socket`: judged dead, it is logged and cut at once (a dead peer
 * answers no close frame either), its close reported with ONEBOT_CLOSE_CODE.unresponsive and the
 * reason. For an accepted and a dialled connection alike.
 */
export function watchConnection(
  connection: WatchedConnection,
  socket: PingableSocket,
  settings: LivenessSettings,
  now: () => number,
  log: Log,
): void {
  connection.liveness = new LivenessWatch(socket, settings, now, (failure) => {
    const reason = livenessFailureText(failure);
    log.warn({ selfId: connection.selfId, role: connection.role, reason }, 'OneBot account offline: connection closed');
    connection.terminate({ code: ONEBOT_CLOSE_CODE.unresponsive, reason });
  });
}

/**
 * Applies `next` to the watch of every open connection when it differs from `current`; what changed,
 * in words, or null when nothing did.
 */
export function applyLivenessSettings(
  current: LivenessSettings,
  next: LivenessSettings,
  connections: Iterable<{ readonly liveness: LivenessWatch | null }>,
): string | null {
  const same =
    next.pingIntervalMs === current.pingIntervalMs &&
    next.pongTimeoutMs === current.pongTimeoutMs &&
    next.heartbeatMissedMax === current.heartbeatMissedMax;
  if (same) return null;
  for (const connection of connections) connection.liveness?.apply(next);
  const pings = next.pingIntervalMs > 0 ? `ping every ${next.pingIntervalMs / 1000} s` : 'no pings';
  return `liveness: ${pings}, answer within ${next.pongTimeoutMs / 1000} s, ${next.heartbeatMissedMax} heartbeats may be missed`;
}

export function livenessFailureText(failure: LivenessFailure): string {
  return failure.code === 'no_pong'
    ? `no answer to a WebSocket ping within ${failure.timeoutMs} ms`
    : `no heartbeat for ${failure.missed} intervals of ${failure.intervalMs} ms`;
}

export class LivenessWatch {
  #settings: LivenessSettings;
  #pingTimer: NodeJS.Timeout | null = null;
  #pongTimer: NodeJS.Timeout | null = null;
  #heartbeatTimer: NodeJS.Timeout | null = null;
  #heartbeatIntervalMs: number | null = null;
  #lastPongAt: number | null = null;
  #stopped = false;
  readonly #onPong = (): void => this.#pong();

  constructor(
    private readonly socket: PingableSocket,
    settings: LivenessSettings,
    private readonly now: () => number,
    private readonly onDead: (failure: LivenessFailure) => void,
  ) {
    this.#settings = settings;
    socket.on('pong', this.#onPong);
    this.#schedulePings();
  }

  get view(): LivenessView {
    const judgedBy =
      this.#heartbeatIntervalMs !== null ? 'heartbeat' : this.#settings.pingIntervalMs > 0 ? 'ping' : 'none';
    return { judgedBy, lastPongAt: this.#lastPongAt };
  }

  /** A heartbeat arrived; `intervalMs` as it announced (null when it did not). */
  heartbeat(intervalMs: number | null): void {
    if (this.#stopped || intervalMs === null) return;
    this.#heartbeatIntervalMs = intervalMs;
    const deadlineMs = Math.max(intervalMs * this.#settings.heartbeatMissedMax, LIVENESS_HEARTBEAT_DEADLINE_MIN_MS);
    // Re-created rather than refreshed: a timer and a comparison per heartbeat, which the frame
    // budget bounds, and the deadline always follows the newest announced interval.
    this.#clear('heartbeat');
    const missed = this.#settings.heartbeatMissedMax;
    this.#heartbeatTimer = unref(
      setTimeout(() => this.#dead({ code: 'no_heartbeat', intervalMs, missed }), deadlineMs),
    );
  }

  /** New settings: pings restart on the new interval; the next heartbeat takes the new count. */
  apply(settings: LivenessSettings): void {
    if (this.#stopped) return;
    const pingsChanged =
      settings.pingIntervalMs !== this.#settings.pingIntervalMs ||
      settings.pongTimeoutMs !== this.#settings.pongTimeoutMs;
    this.#settings = settings;
    if (pingsChanged) {
      this.#clear('ping');
      this.#clear('pong');
      this.#schedulePings();
    }
  }

  /** The connection closed: no more pings or deadlines. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.socket.off('pong', this.#onPong);
    this.#clear('ping');
    this.#clear('pong');
    this.#clear('heartbeat');
  }

  #schedulePings(): void {
    if (this.#settings.pingIntervalMs <= 0) return;
    this.#pingTimer = unref(setInterval(() => this.#ping(), this.#settings.pingIntervalMs));
  }

  #ping(): void {
    // One ping at a time: while one waits for its pong, its own deadline judges.
    if (this.#pongTimer !== null) return;
    const timeoutMs = this.#settings.pongTimeoutMs;
    this.#pongTimer = unref(setTimeout(() => this.#dead({ code: 'no_pong', timeoutMs }), timeoutMs));
    try {
      // A socket already closing reports it to the callback; its close event stops this watch.
      this.socket.ping(undefined, undefined, () => {});
    } catch {
      // Not open yet or any more: the close event, or the pong deadline, settles it.
    }
  }

  #pong(): void {
    this.#lastPongAt = this.now();
    this.#clear('pong');
  }

  #dead(failure: LivenessFailure): void {
    if (this.#stopped) return;
    this.stop();
    this.onDead(failure);
  }

  #clear(which: 'ping' | 'pong' | 'heartbeat'): void {
    if (which === 'ping' && this.#pingTimer !== null) clearInterval(this.#pingTimer);
    if (which === 'pong' && this.#pongTimer !== null) clearTimeout(this.#pongTimer);
    if (which === 'heartbeat' && this.#heartbeatTimer !== null) clearTimeout(this.#heartbeatTimer);
    if (which === 'ping') this.#pingTimer = null;
    if (which === 'pong') this.#pongTimer = null;
    if (which === 'heartbeat') this.#heartbeatTimer = null;
  }
}

/** The watch's timers never hold the process open on their own (the sockets do). */
function unref<T extends NodeJS.Timeout>(timer: T): T {
  timer.unref();
  return timer;
}
