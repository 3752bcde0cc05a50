/**
 * The OneBot v11 reverse-WebSocket endpoint: implementations (NapCat, Lagrange, LLOneBot,
 * go-cqhttp) connect to `/onebot/v11/ws` on our HTTP server, one connection per account (or an
 * Event/API pair). Events come out as typed emitter events; actions go back over the account's
 * Universal or API connection.
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { ChatRequest } from '../domain/chat.ts';
import type { ChatActions, ChatHistory, HistoryPage } from '../ports/chat.ts';
import { isObject } from '../common/is-object.ts';
import { RateLimitedLog, type Log } from '../common/log.ts';
import { botStatus, type BotStatus } from './bot-status.ts';
import { OneBotConnection, type ClientRole, type ConnectionHooks, type ConnectionOrigin } from './connection.ts';
import { ActionFailedError, NotConnectedError, OneBotActionError } from './errors.ts';
import { storedMessageText, type OneBotFrame } from './events.ts';
import type { FrameRate } from './frame-budget.ts';
import { HISTORY_ACTION, historyPage, historyParams, unsupportedHistory } from './history.ts';
import { TokenCheck, checkHandshake, refuseUpgrade } from './handshake.ts';
import { LIVENESS_DEFAULTS, applyLivenessSettings, watchConnection, type LivenessSettings } from './liveness.ts';
import {
  ONEBOT_CLOSE_CODE,
  ONEBOT_CLOSE_GRACE_MS,
  ONEBOT_FRAME_RATE,
  ONEBOT_MAX_FRAME_BYTES,
  ONEBOT_PENDING_REQUESTS_MAX,
  ONEBOT_WS_PATHS,
} from './limits.ts';
import { FrameDrops } from './frame-drops.ts';
import { RequestInbox } from './request-inbox.ts';
import { emitSafely } from './safe-emit.ts';

export type { BotStatus } from './bot-status.ts';
export type * from './server-types.ts';
import type { OneBotDropCounters, OneBotServerEvents, OneBotServerOptions } from './server-types.ts';

const overlaps = (a: ClientRole, b: ClientRole): boolean => a === 'Universal' || b === 'Universal' || a === b;

export class OneBotServer extends EventEmitter<OneBotServerEvents> implements ChatActions, ChatHistory {
  #tokens: TokenCheck;
  #accessToken: string;
  #timeoutMs: number;
  #liveness: LivenessSettings;
  readonly #log: Log;
  readonly #limited: RateLimitedLog;
  readonly #now: () => number;
  readonly #wss: WebSocketServer;
  /** Open connections per account, oldest first. */
  readonly #connections = new Map<number, OneBotConnection[]>();
  readonly #detach = new Set<() => void>();
  readonly #requests = new RequestInbox(ONEBOT_PENDING_REQUESTS_MAX);
  readonly #frameRate: FrameRate;
  readonly #drops: FrameDrops;
  readonly #hooks: ConnectionHooks = {
    onFrame: (connection, frame) => this.#onFrame(connection, frame),
    onClose: (connection, code, reason) => this.#onClose(connection, code, reason),
    onSocketError: (connection, error) =>
      this.#limited.warn(
        'onebot/socket-error',
        { selfId: connection.selfId, err: error.message },
        'OneBot socket error',
      ),
    onShed: (connection, bytes) => this.#drops.shed(connection.selfId, bytes),
  };
  #closing: Promise<void> | null = null;

  constructor(options: OneBotServerOptions) {
    super();
    this.#tokens = new TokenCheck(options.accessToken);
    this.#accessToken = options.accessToken;
    this.#timeoutMs = options.actionTimeoutMs;
    this.#liveness = options.liveness ?? LIVENESS_DEFAULTS;
    this.#log = options.log;
    this.#now = options.now;
    this.#limited = new RateLimitedLog(options.log, options.now);
    this.#drops = new FrameDrops(options.log, this.#limited);
    this.#frameRate = options.frameRate ?? ONEBOT_FRAME_RATE;
    this.#wss = new WebSocketServer({
      noServer: true,
      clientTracking: false,
      maxPayload: options.maxFrameBytes ?? ONEBOT_MAX_FRAME_BYTES,
    });
  }

  /**
   * Serves `/onebot/v11/ws` (and `…/ws/`, `/onebot/v11/`) on `server`. An upgrade for another path
   * is left to the server's other upgrade listeners, or 404 when there are none. Returns the detach.
   */
  attach(server: HttpServer): () => void {
    const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
      try {
        this.#upgrade(server, request, socket, head);
      } catch (error) {
        this.#limited.warn('onebot/upgrade-error', { err: String(error) }, 'OneBot upgrade failed');
        socket.destroy();
      }
    };
    server.on('upgrade', onUpgrade);
    const detach = (): void => {
      server.off('upgrade', onUpgrade);
      this.#detach.delete(detach);
    };
    this.#detach.add(detach);
    return detach;
  }

  async sendGroupMessage(selfId: number, groupId: number, message: string): Promise<{ messageId: number }> {
    const action = 'send_group_msg';
    const data = await this.call(selfId, action, { group_id: groupId, message, auto_escape: false });
    const messageId = isObject(data) ? data.message_id : undefined;
    if (typeof messageId !== 'number' || !Number.isSafeInteger(messageId)) {
      throw this.#noted(selfId, new ActionFailedError(action, -1, 'the answer has no message_id'));
    }
    return { messageId };
  }

  async deleteMessage(selfId: number, messageId: number): Promise<void> {
    await this.call(selfId, 'delete_msg', { message_id: messageId });
  }

  /** Null when the implementation refuses (it no longer has the message) or answers without one. */
  async getMessage(selfId: number, messageId: number): Promise<{ rawMessage: string; userId: number } | null> {
    let data: unknown;
    try {
      data = await this.call(selfId, 'get_msg', { message_id: messageId });
    } catch (error) {
      if (error instanceof ActionFailedError) return null;
      throw error;
    }
    if (!isObject(data)) return null;
    const text = storedMessageText(data.message ?? data.raw_message);
    const sender = isObject(data.sender) ? data.sender : {};
    const userId = sender.user_id ?? data.user_id;
    if (!text.ok || typeof userId !== 'number') return null;
    return { rawMessage: text.text, userId };
  }

  /** A page of a group's past messages (src/onebot/history.ts); `unsupported` without the action. */
  async groupHistory(selfId: number, groupId: number, beforeSeq: number, count: number): Promise<HistoryPage> {
    try {
      const data = await this.call(selfId, HISTORY_ACTION, historyParams(groupId, beforeSeq, count));
      return historyPage(data, selfId, groupId, this.#now());
    } catch (error) {
      const unsupported = unsupportedHistory(error);
      if (unsupported !== null) return { kind: 'unsupported', detail: unsupported };
      throw error;
    }
  }

  async getLoginInfo(selfId: number): Promise<{ userId: number; nickname: string }> {
    const data = await this.call(selfId, 'get_login_info', {});
    if (!isObject(data) || typeof data.user_id !== 'number') {
      throw this.#noted(selfId, new ActionFailedError('get_login_info', -1, 'the answer has no user_id'));
    }
    return { userId: data.user_id, nickname: typeof data.nickname === 'string' ? data.nickname : '' };
  }

  /**
   * Any action, over the account's newest Universal or API connection; resolves with the answer's
   * `data`. Throws ActionFailedError, ActionTimeoutError or NotConnectedError.
   */
  async call(selfId: number, action: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const connection = this.#actionConnection(selfId);
    if (!connection) throw this.#noted(selfId, new NotConnectedError(action, selfId, 'no connection'));
    try {
      return await connection.call(action, params, this.#timeoutMs);
    } catch (error) {
      throw this.#noted(selfId, error);
    }
  }

  /**
   * Applies changed settings at once. A new access token is required from the next handshake,
   * and every open connection (all of them were let in under the old token) is closed, so a leaked
   * token stops working now; the implementations reconnect with the new one. A new action timeout
   * applies to the next action, new liveness settings at once. Returns what was done, in words.
   */
  applySettings(settings: { accessToken: string; actionTimeoutMs: number; liveness?: LivenessSettings }): string {
    const done: string[] = [];
    const open = [...this.#connections.values()].flat();
    const liveness = settings.liveness ?? this.#liveness;
    const livenessDone = applyLivenessSettings(this.#liveness, liveness, open);
    this.#liveness = liveness;
    if (livenessDone) done.push(livenessDone);
    if (settings.accessToken !== this.#accessToken) {
      this.#tokens = new TokenCheck(settings.accessToken);
      this.#accessToken = settings.accessToken;
      // Dialled connections never presented this token.
      const reverse = open.filter((c) => c.direction === 'reverse');
      for (const connection of reverse) connection.close(ONEBOT_CLOSE_CODE.tokenChanged, 'access token changed');
      done.push(`access token changed: ${reverse.length} connection(s) closed, new ones need the new token`);
    }
    if (settings.actionTimeoutMs !== this.#timeoutMs) {
      this.#timeoutMs = settings.actionTimeoutMs;
      done.push(`action timeout now ${settings.actionTimeoutMs / 1000} s`);
    }
    if (done.length === 0) return 'nothing changed';
    const applied = done.join('; ');
    this.#log.info({ applied }, 'OneBot settings applied');
    return applied;
  }

  /** A copy of the drop counters. */
  dropped(): OneBotDropCounters {
    return this.#drops.counters();
  }

  bots(): BotStatus[] {
    return [...this.#connections].map(([selfId, connections]) => botStatus(selfId, connections));
  }

  /** Friend and group requests seen since start (newest last, bounded), for the console. */
  pendingRequests(): readonly ChatRequest[] {
    return this.#requests.list();
  }

  /** Drops a request once handled; false when it was not there. */
  forgetRequest(selfId: number, flag: string): boolean {
    return this.#requests.forget(selfId, flag);
  }

  /** Closes every connection of the account (the console's disconnect); how many were open. */
  disconnect(selfId: number): number {
    const open = this.#connections.get(selfId) ?? [];
    for (const connection of open) connection.close(ONEBOT_CLOSE_CODE.disconnected, 'disconnected from the console');
    return open.length;
  }

  /**
   * Stops serving: detaches from every HTTP server, closes every connection (pending actions are
   * rejected with NotConnectedError) and waits for the sockets, cutting the ones that do not
   * answer the close frame within a grace period.
   */
  close(): Promise<void> {
    this.#closing ??= this.#shutDown();
    return this.#closing;
  }

  async #shutDown(): Promise<void> {
    for (const detach of [...this.#detach]) detach();
    const all = [...this.#connections.values()].flat();
    for (const connection of all) connection.close(ONEBOT_CLOSE_CODE.shutdown, 'server shutting down');
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ONEBOT_CLOSE_GRACE_MS);
    });
    await Promise.race([Promise.all(all.map((c) => c.closed)), grace]);
    clearTimeout(timer);
    for (const connection of all) connection.terminate();
    await Promise.all(all.map((c) => c.closed));
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }

  #upgrade(server: HttpServer, request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(request.url ?? '/', 'http://onebot.invalid');
    if (!ONEBOT_WS_PATHS.has(url.pathname)) {
      // Another upgrade listener on this server may own the path; only refuse when there is none.
      if (server.listenerCount('upgrade') <= 1) refuseUpgrade(socket, 404, 'not found');
      return;
    }
    if (this.#closing) {
      refuseUpgrade(socket, 503, 'shutting down');
      return;
    }
    const handshake = checkHandshake(request, url, this.#tokens);
    if (!handshake.ok) {
      this.#limited.warn(
        `onebot/refused/${handshake.status}`,
        { status: handshake.status, detail: handshake.detail, address: request.socket.remoteAddress },
        'OneBot connection refused',
      );
      refuseUpgrade(socket, handshake.status, handshake.detail);
      return;
    }
    const origin = { remoteAddress: request.socket.remoteAddress ?? null, direction: 'reverse' } as const;
    this.#wss.handleUpgrade(request, socket, head, (ws) => this.#accept(ws, handshake.selfId, handshake.role, origin));
  }

  /** A socket Chorus dialled (forward-dialer.ts), taken as if accepted; `early`: frames read before. */
  adopt(ws: WebSocket, selfId: number, remoteAddress: string, early: readonly RawData[]): OneBotConnection | null {
    const connection = this.#accept(ws, selfId, 'Universal', { remoteAddress, direction: 'forward' });
    for (const data of early) connection?.replay(data);
    return connection;
  }

  #accept(ws: WebSocket, selfId: number, role: ClientRole, origin: ConnectionOrigin): OneBotConnection | null {
    if (this.#closing) {
      ws.close(ONEBOT_CLOSE_CODE.shutdown, 'server shutting down');
      return null;
    }
    const connection = new OneBotConnection(ws, selfId, role, this.#hooks, this.#now, this.#frameRate);
    connection.remoteAddress = origin.remoteAddress;
    connection.direction = origin.direction;
    watchConnection(connection, ws, this.#liveness, this.#now, this.#log);
    const existing = this.#connections.get(selfId) ?? [];
    const replaced = existing.filter((old) => overlaps(old.role, role));
    const kept = existing.filter((old) => !overlaps(old.role, role));
    this.#connections.set(selfId, [...kept, connection]);
    for (const old of replaced) old.close(ONEBOT_CLOSE_CODE.replaced, 'replaced by a new connection');
    this.#log.info(
      { selfId, role, direction: origin.direction, replaced: replaced.length },
      'OneBot implementation connected',
    );
    this.#emitSafely('bot_connected', { selfId, role, replaced: replaced.length > 0 });
    return connection;
  }

  #onClose(connection: OneBotConnection, code: number, reason: string): void {
    const { selfId, role } = connection;
    const list = this.#connections.get(selfId);
    // A replaced connection was already taken out of the table; its closing is no news.
    if (!list?.includes(connection)) return;
    const rest = list.filter((c) => c !== connection);
    if (rest.length > 0) this.#connections.set(selfId, rest);
    else this.#connections.delete(selfId);
    this.#log.info({ selfId, role, code, reason }, 'OneBot implementation disconnected');
    this.#emitSafely('bot_disconnected', { selfId, role, code, reason, stillConnected: rest.length > 0 });
  }

  #onFrame(connection: OneBotConnection, frame: OneBotFrame): void {
    switch (frame.kind) {
      case 'group_message':
        this.#emitSafely('group_message', frame.message, { sentBySelf: frame.sentBySelf });
        return;
      case 'group_recall':
        this.#emitSafely('group_recall', frame.recall);
        return;
      case 'group_mute':
        this.#emitSafely('group_mute', frame.mute);
        return;
      case 'request':
        this.#requests.add(frame.request);
        this.#emitSafely('request', frame.request);
        return;
      case 'lifecycle':
        connection.lifecycle = frame.subType;
        this.#log.info({ selfId: connection.selfId, subType: frame.subType }, 'OneBot lifecycle event');
        return;
      case 'heartbeat':
        connection.lastHeartbeatAt = this.#now();
        connection.heartbeat = frame.heartbeat;
        connection.liveness?.heartbeat(frame.heartbeat.intervalMs);
        return;
      case 'response':
        // Usually an answer that arrived after its timeout.
        this.#limited.warn(
          'onebot/unmatched-response',
          { selfId: connection.selfId, echo: frame.response.echo.slice(0, 64) },
          'OneBot answer matches no pending action',
        );
        return;
      case 'ignored':
        this.#drops.ignored(connection.selfId, frame.what);
        return;
      case 'refused':
        this.#drops.refused(connection.selfId, frame.reason, frame.detail);
        return;
      case 'malformed':
        this.#drops.malformed(connection.selfId, frame.problem);
        return;
    }
  }

  #actionConnection(selfId: number): OneBotConnection | undefined {
    return this.#connections.get(selfId)?.findLast((c) => c.takesActions && c.isOpen);
  }

  /** Logs an action failure (rate limited per action and kind) and hands the error back to throw. */
  #noted(selfId: number, error: unknown): unknown {
    if (error instanceof OneBotActionError) {
      const retcode = error instanceof ActionFailedError ? { retcode: error.retcode } : {};
      this.#limited.warn(
        `onebot/action/${error.action}/${error.name}`,
        { selfId, action: error.action, ...retcode, err: error.message },
        'OneBot action did not succeed',
      );
    }
    return error;
  }

  /** Every listener runs; one that throws or rejects is logged (safe-emit.ts). */
  #emitSafely<K extends keyof OneBotServerEvents>(event: K, ...args: OneBotServerEvents[K]): void {
    emitSafely(this.rawListeners(event), this, args, (error) => this.#listenerFailed(event, error));
  }

  #listenerFailed(event: string, error: unknown): void {
    this.#limited.warn(
      `onebot/listener/${event}`,
      { event, err: error instanceof Error ? (error.stack ?? error.message) : String(error) },
      'OneBot event listener failed',
    );
  }
}
