/**
 * One dialled Milky implementation: learns its account (`get_login_info`), opens the event
 * stream (`{base}/event` over WebSocket, the token as `?access_token=` and as a Bearer header) and
 * keeps it open, dialling again with back-off whenever it fails or closes. Frames are decoded
 * here and handed to the adapter; a bad one is logged and dropped.
 */
import WebSocket from 'ws';
import type { Log } from '../common/log.ts';
import { errorMessage } from '../common/errors.ts';
import { answerInteger, callMilky } from './api-call.ts';
import type { MilkyTarget } from './connect-target.ts';
import { milkyFrame, type MilkyFrame } from './events.ts';
import {
  MILKY_MAX_FRAME_BYTES,
  MILKY_PING_INTERVAL_MS,
  MILKY_RECONNECT_MAX_MS,
  MILKY_RECONNECT_MIN_MS,
} from './limits.ts';

export interface EndpointHooks {
  connected(endpoint: MilkyEndpoint): void;
  disconnected(endpoint: MilkyEndpoint, reason: string): void;
  frame(endpoint: MilkyEndpoint, frame: MilkyFrame): void;
  malformed(endpoint: MilkyEndpoint, detail: string): void;
}

export class MilkyEndpoint {
  /** The account, once `get_login_info` answered; kept across reconnects. */
  selfId: number | null = null;
  connectedAt: number | null = null;
  lastEventAt: number | null = null;
  framesIn = 0;
  /** False after `bot_offline`, true again with the next event. */
  online: boolean | null = null;
  #socket: WebSocket | null = null;
  #timer: NodeJS.Timeout | null = null;
  #delayMs = MILKY_RECONNECT_MIN_MS;
  #stopped = false;
  #failures = 0;

  constructor(
    readonly target: MilkyTarget,
    private readonly hooks: EndpointHooks,
    private readonly options: { log: Log; now: () => number; actionTimeoutMs: () => number },
  ) {}

  get open(): boolean {
    return this.#socket?.readyState === WebSocket.OPEN && this.connectedAt !== null;
  }

  start(): void {
    void this.#dial();
  }

  call(action: string, params: Record<string, unknown> = {}): Promise<unknown> {
    return callMilky(this.target, action, params, this.options.actionTimeoutMs(), this.selfId ?? 0);
  }

  /** Closes the event stream; it is dialled again after the usual back-off. */
  disconnect(): boolean {
    if (!this.#socket) return false;
    this.#socket.close(1000, 'disconnected from the console');
    return true;
  }

  async close(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    const socket = this.#socket;
    if (!socket || socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      socket.close(1001, 'shutting down');
      // A peer that never answers the close frame is cut.
      setTimeout(() => socket.terminate(), 2000).unref();
    });
  }

  async #dial(): Promise<void> {
    if (this.#stopped) return;
    try {
      const info = await this.call('get_login_info');
      const uin = answerInteger('get_login_info', info, 'uin');
      if (this.selfId !== null && this.selfId !== uin) {
        this.options.log.warn({ endpoint: this.target.display, was: this.selfId, now: uin }, 'Milky account changed');
      }
      this.selfId = uin;
      await this.#openStream(uin);
    } catch (error) {
      this.#retry(errorMessage(error));
    }
  }

  #openStream(selfId: number): Promise<void> {
    const url = new URL(`${this.target.base.replace(/^http/, 'ws')}/event`);
    if (this.target.token !== '') url.searchParams.set('access_token', this.target.token);
    const socket = new WebSocket(url, {
      maxPayload: MILKY_MAX_FRAME_BYTES,
      handshakeTimeout: this.options.actionTimeoutMs(),
      headers: this.target.token !== '' ? { authorization: `Bearer ${this.target.token}` } : {},
    });
    this.#socket = socket;
    return new Promise((resolve, reject) => {
      socket.once('unexpected-response', (_request, response) => {
        response.resume();
        socket.terminate();
        reject(new Error(`event stream answered HTTP ${response.statusCode}`));
      });
      socket.once('error', (error) => reject(error));
      socket.once('open', () => {
        socket.removeAllListeners('error');
        socket.on('error', (error) => this.options.log.debug({ error: errorMessage(error) }, 'Milky stream error'));
        this.connectedAt = this.options.now();
        this.online = true;
        this.#delayMs = MILKY_RECONNECT_MIN_MS;
        this.#failures = 0;
        socket.on('message', (data, isBinary) => this.#message(selfId, data, isBinary));
        const liveness = this.#watchLiveness(socket);
        socket.once('close', (code, reason) => {
          clearInterval(liveness);
          this.connectedAt = null;
          this.online = null;
          if (this.#socket === socket) this.#socket = null;
          const why = `closed (${code}${reason.length ? ` ${reason.toString().slice(0, 64)}` : ''})`;
          this.hooks.disconnected(this, why);
          this.#retry(why);
        });
        this.hooks.connected(this);
        resolve();
      });
    });
  }

  /** Pings the stream; one ping unanswered by the next means a silent drop: the socket is cut. */
  #watchLiveness(socket: WebSocket): NodeJS.Timeout {
    let answered = true;
    socket.on('pong', () => {
      answered = true;
    });
    const timer = setInterval(() => {
      if (!answered) {
        this.options.log.warn({ endpoint: this.target.display }, 'Milky event stream stopped answering pings');
        socket.terminate();
        return;
      }
      answered = false;
      socket.ping();
    }, MILKY_PING_INTERVAL_MS);
    timer.unref();
    return timer;
  }

  #message(selfId: number, data: WebSocket.RawData, isBinary: boolean): void {
    this.framesIn++;
    this.lastEventAt = this.options.now();
    let parsed: unknown;
    try {
      if (isBinary) throw new Error('binary frame');
      parsed = JSON.parse(Buffer.isBuffer(data) ? data.toString('utf8') : String(data));
    } catch {
      this.hooks.malformed(this, 'not JSON');
      return;
    }
    const frame = milkyFrame(parsed, selfId, this.options.now());
    if (frame.kind === 'problem') {
      this.hooks.malformed(this, `${frame.field}: ${frame.detail}`);
      return;
    }
    this.online = frame.kind !== 'offline';
    this.hooks.frame(this, frame);
  }

  #retry(why: string): void {
    if (this.#stopped) return;
    this.#failures++;
    // The first failure and then every tenth are worth a line; the rest would flood the log.
    if (this.#failures === 1 || this.#failures % 10 === 0) {
      this.options.log.warn(
        { endpoint: this.target.display, failures: this.#failures, retryMs: this.#delayMs },
        `Milky implementation not reachable: ${why}`,
      );
    }
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.#dial();
    }, this.#delayMs);
    this.#timer.unref();
    this.#delayMs = Math.min(this.#delayMs * 2, MILKY_RECONNECT_MAX_MS);
  }
}
