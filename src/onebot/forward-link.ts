/**
 * One forward-WebSocket target: dials the implementation's OneBot v11 WebSocket server, learns
 * which account it serves (the answer to `get_login_info`, else the `self_id` of its first events),
 * hands the socket to the endpoint as that account's connection (OneBotServer.adopt), and when
 * the dial fails or the connection ends, waits with a capped, doubling back-off and dials again.
 * The address may carry a token: only its masked form is logged or shown (forward-target.ts).
 */
import { WebSocket, type RawData } from 'ws';
import type { IncomingMessage } from 'node:http';
import { isObject } from '../common/is-object.ts';
import type { Log, RateLimitedLog } from '../common/log.ts';
import type { OneBotConnection } from './connection.ts';
import {
  hostOf,
  maskedUrl,
  retryDelayMs,
  tokenOf,
  type ForwardError,
  type ForwardState,
  type ForwardTargetStatus,
} from './forward-target.ts';
import {
  ONEBOT_CLOSE_CODE,
  ONEBOT_FORWARD_EARLY_FRAMES_MAX,
  ONEBOT_FORWARD_HANDSHAKE_TIMEOUT_MS,
  ONEBOT_FORWARD_IDENTIFY_TIMEOUT_MS,
  ONEBOT_MAX_FRAME_BYTES,
} from './limits.ts';

/** What takes a dialled socket over (OneBotServer satisfies it). */
export interface SocketAdopter {
  adopt(ws: WebSocket, selfId: number, remoteAddress: string, early: readonly RawData[]): OneBotConnection | null;
}

export interface ForwardLinkOptions {
  readonly id: string;
  readonly href: string;
  readonly adopter: SocketAdopter;
  readonly log: Log;
  readonly limited: RateLimitedLog;
  readonly now: () => number;
  readonly random?: () => number;
}

/** The echo of our own `get_login_info`, answered before the socket is handed over. */
const LOGIN_ECHO = 'chorus-forward-login';
const SELF_ID_MAX = Number.MAX_SAFE_INTEGER;

const validSelfId = (value: unknown): number | null =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0 && value <= SELF_ID_MAX ? value : null;

export class ForwardLink {
  readonly id: string;
  readonly href: string;
  readonly #masked: string;
  readonly #options: ForwardLinkOptions;
  #state: ForwardState = 'connecting';
  #socket: WebSocket | null = null;
  #connection: OneBotConnection | null = null;
  #selfId: number | null = null;
  #failures = 0;
  /**
   * Connections in a row that another connection of the same account replaced (configured twice,
   * or also connected in reverse): they back off like failures, so the two do not take turns.
   */
  #replacements = 0;
  #nextAttemptAt: number | null = null;
  #lastError: ForwardError | null = null;
  #retryTimer: NodeJS.Timeout | null = null;
  #stopped = false;
  #closed: Promise<void> = Promise.resolve();

  constructor(options: ForwardLinkOptions) {
    this.id = options.id;
    this.href = options.href;
    this.#masked = maskedUrl(options.href);
    this.#options = options;
  }

  status(): ForwardTargetStatus {
    return {
      id: this.id,
      url: this.#masked,
      state: this.#state,
      selfId: this.#selfId,
      failures: this.#failures,
      connectedAt: this.#state === 'connected' ? (this.#connection?.connectedAt ?? null) : null,
      nextAttemptAt: this.#state === 'waiting' ? this.#nextAttemptAt : null,
      lastError: this.#lastError,
    };
  }

  start(): void {
    if (!this.#stopped && this.#socket === null && this.#retryTimer === null) this.#dial();
  }

  /** Stops retrying and closes the socket (its pending actions fail at once); resolves once closed. */
  stop(): Promise<void> {
    this.#stopped = true;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
    const socket = this.#socket;
    if (this.#connection) this.#connection.close(1000, 'target removed or Chorus stopping');
    else if (socket) socket.terminate();
    return this.#closed;
  }

  #dial(): void {
    this.#state = 'connecting';
    this.#nextAttemptAt = null;
    const token = tokenOf(this.href);
    let socket: WebSocket;
    try {
      socket = new WebSocket(this.href, {
        headers: token === null ? {} : { Authorization: `Bearer ${token}` },
        handshakeTimeout: ONEBOT_FORWARD_HANDSHAKE_TIMEOUT_MS,
        maxPayload: ONEBOT_MAX_FRAME_BYTES,
        perMessageDeflate: false,
        followRedirects: false,
      });
    } catch {
      // The setting is checked when saved; an address ws still refuses waits and is retried like any failure.
      this.#ended({ code: 'network', params: { errno: 'EINVAL' } }, false);
      return;
    }
    this.#socket = socket;
    let failure: Omit<ForwardError, 'at'> | null = null;
    const fail = (error: Omit<ForwardError, 'at'>): void => {
      failure ??= error;
    };
    const early: RawData[] = [];
    let eventSelfId: number | null = null;
    let identifyTimer: NodeJS.Timeout | null = null;
    const identified = (selfId: number): void => {
      if (identifyTimer) clearTimeout(identifyTimer);
      socket.off('message', onEarly);
      this.#adopt(socket, selfId, early);
    };
    const onEarly = (data: RawData): void => {
      const frame = parseLoose(data);
      if (isObject(frame) && frame.echo === LOGIN_ECHO) {
        const data = isObject(frame.data) ? frame.data : {};
        const selfId = validSelfId(data.user_id) ?? eventSelfId;
        if (selfId !== null) identified(selfId);
        return;
      }
      if (early.length < ONEBOT_FORWARD_EARLY_FRAMES_MAX) early.push(data);
      if (isObject(frame) && frame.post_type !== undefined) eventSelfId ??= validSelfId(frame.self_id);
    };
    socket.on('message', onEarly);
    socket.on('unexpected-response', (_request, response: IncomingMessage) => {
      const status = response.statusCode ?? 0;
      fail(status === 401 || status === 403 ? { code: 'unauthorized', params: { status } } : httpStatus(status));
      response.resume();
      socket.terminate();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (/timed out/i.test(error.message)) fail({ code: 'timeout', params: {} });
      else fail({ code: 'network', params: { errno: error.code ?? 'EUNKNOWN' } });
    });
    socket.once('open', () => {
      socket.send(JSON.stringify({ action: 'get_login_info', params: {}, echo: LOGIN_ECHO }));
      identifyTimer = setTimeout(() => {
        if (eventSelfId !== null) return identified(eventSelfId);
        fail({ code: 'no_self_id', params: {} });
        socket.terminate();
      }, ONEBOT_FORWARD_IDENTIFY_TIMEOUT_MS);
    });
    this.#closed = new Promise((resolve) => {
      socket.once('close', (code) => {
        if (identifyTimer) clearTimeout(identifyTimer);
        const wasConnected = this.#connection !== null;
        const replaced = this.#connection?.closeSent === ONEBOT_CLOSE_CODE.replaced;
        this.#socket = null;
        this.#connection = null;
        resolve();
        this.#replacements = replaced ? this.#replacements + 1 : 0;
        const ended: Omit<ForwardError, 'at'> = replaced
          ? { code: 'replaced', params: {} }
          : { code: 'closed', params: { code } };
        this.#ended(failure ?? ended, wasConnected);
      });
    });
  }

  #adopt(socket: WebSocket, selfId: number, early: readonly RawData[]): void {
    const connection = this.#options.adopter.adopt(socket, selfId, hostOf(this.href), early);
    if (connection === null) return;
    this.#connection = connection;
    this.#selfId = selfId;
    this.#state = 'connected';
    this.#failures = 0;
    this.#options.log.info({ target: this.#masked, selfId }, 'OneBot forward WebSocket connected');
  }

  #ended(error: Omit<ForwardError, 'at'>, wasConnected: boolean): void {
    const now = this.#options.now();
    this.#lastError = { ...error, at: now };
    if (this.#stopped) return;
    this.#failures++;
    const delay = retryDelayMs(Math.max(this.#failures, this.#replacements), this.#options.random);
    this.#state = 'waiting';
    this.#nextAttemptAt = now + delay;
    const fields = { target: this.#masked, code: error.code, ...error.params, retryInMs: delay };
    if (wasConnected) this.#options.log.info(fields, 'OneBot forward WebSocket closed; dialling again');
    else this.#options.limited.warn(`onebot/forward/${this.id}`, fields, 'OneBot forward WebSocket dial failed');
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null;
      if (!this.#stopped) this.#dial();
    }, delay);
  }
}

function httpStatus(status: number): Omit<ForwardError, 'at'> {
  return { code: 'http_status', params: { status } };
}

/** The frame as JSON, or undefined (the endpoint's own parser judges it properly once adopted). */
function parseLoose(data: RawData): unknown {
  try {
    const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
