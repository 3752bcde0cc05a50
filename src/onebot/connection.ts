/**
 * One WebSocket connection with a OneBot implementation (accepted or dialled): parses its frames, hands events
 * to the server in arrival order, and correlates our actions with their answers by `echo`.
 */
import type { RawData, WebSocket } from 'ws';
import { ActionFailedError, ActionTimeoutError, NotConnectedError } from './errors.ts';
import { parseFrame, type ActionResponse, type HeartbeatInfo, type OneBotFrame } from './events.ts';
import { FrameBudget, type FrameRate } from './frame-budget.ts';
import type { LivenessWatch } from './liveness.ts';

/** `X-Client-Role`: Universal carries events and actions; Event and API split them. */
export type ClientRole = 'Universal' | 'Event' | 'API';

/** Who opened the socket: the implementation (reverse WebSocket) or Chorus (forward, forward-dialer.ts). */
export type ConnectionDirection = 'reverse' | 'forward';

/** Where a connection comes from, set once it is made (onebot-server.ts). */
export interface ConnectionOrigin {
  readonly remoteAddress: string | null;
  readonly direction: ConnectionDirection;
}

export interface ConnectionHooks {
  /** Every frame except the answers this connection matched to a pending action. */
  onFrame(connection: OneBotConnection, frame: OneBotFrame): void;
  onClose(connection: OneBotConnection, code: number, reason: string): void;
  /** A socket-level error (ws closes the socket after it). */
  onSocketError(connection: OneBotConnection, error: Error): void;
  /** A frame over the connection's rate, dropped before it was decoded. */
  onShed(connection: OneBotConnection, bytes: number): void;
}

interface Pending {
  readonly action: string;
  readonly resolve: (data: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

export class OneBotConnection {
  readonly connectedAt: number;
  lastEventAt: number | null = null;
  lastHeartbeatAt: number | null = null;
  heartbeat: HeartbeatInfo | null = null;
  /** The last lifecycle sub_type (connect, enable, disable). */
  lifecycle: string | null = null;
  /** Frames read from the peer (admitted by the frame budget) and actions sent to it. */
  framesIn = 0;
  framesOut = 0;
  /** The peer's address as the socket saw it (not forwarded headers). */
  remoteAddress: string | null = null;
  /** Set by the owner (liveness.ts); stopped here when the socket closes. */
  liveness: LivenessWatch | null = null;
  /** Why we cut the socket, reported instead of the 1006 a cut socket closes with. */
  #cutFor: { code: number; reason: string } | null = null;
  direction: ConnectionDirection = 'reverse';
  /** The close code this side sent first, if it closed the connection (a peer need not echo it). */
  closeSent: number | null = null;
  readonly #pending = new Map<string, Pending>();
  #nextEcho = 0;
  #open = true;
  readonly #closed: Promise<void>;
  readonly #budget: FrameBudget;

  constructor(
    private readonly socket: WebSocket,
    readonly selfId: number,
    readonly role: ClientRole,
    private readonly hooks: ConnectionHooks,
    private readonly now: () => number,
    rate: FrameRate,
  ) {
    this.connectedAt = now();
    this.#budget = new FrameBudget(rate, now);
    socket.on('message', (data) => this.#receive(data));
    socket.on('error', (error) => hooks.onSocketError(this, error));
    this.#closed = new Promise((resolve) => {
      socket.once('close', (code, reason) => {
        this.#shut();
        this.liveness?.stop();
        resolve();
        hooks.onClose(this, this.#cutFor?.code ?? code, this.#cutFor?.reason ?? reason.toString('utf8'));
      });
    });
  }

  /** Whether actions may be sent here (an Event connection only reports). */
  get takesActions(): boolean {
    return this.role !== 'Event';
  }

  get isOpen(): boolean {
    return this.#open;
  }

  get pendingCount(): number {
    return this.#pending.size;
  }

  /** Resolves when the socket has closed. */
  get closed(): Promise<void> {
    return this.#closed;
  }

  call(action: string, params: Record<string, unknown>, timeoutMs: number): Promise<unknown> {
    if (!this.#open) return Promise.reject(new NotConnectedError(action, this.selfId, 'connection closed'));
    const echo = String(++this.#nextEcho);
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(echo);
        reject(new ActionTimeoutError(action, timeoutMs));
      }, timeoutMs);
      this.#pending.set(echo, { action, resolve, reject, timer });
      this.framesOut++;
      this.socket.send(JSON.stringify({ action, params, echo }), (error) => {
        if (error)
          this.#settle(echo, (pending) =>
            pending.reject(new NotConnectedError(action, this.selfId, 'connection closed')),
          );
      });
    });
  }

  /**
   * Starts a close handshake and rejects the pending actions now: the caller has moved on (a
   * replacement connection, or shutdown) and must not wait for an answer that may never come.
   */
  close(code: number, reason: string): void {
    this.closeSent ??= code;
    this.#shut();
    if (this.socket.readyState === this.socket.OPEN || this.socket.readyState === this.socket.CONNECTING) {
      this.socket.close(code, reason);
    }
  }

  /**
   * Cuts the socket without a handshake (a peer that does not answer the close frame, or one
   * judged dead, which would not answer it either); `reported` is the close the owner hears of.
   */
  terminate(reported?: { code: number; reason: string }): void {
    if (reported && this.#open) this.#cutFor = reported;
    this.#shut();
    this.socket.terminate();
  }

  /** A frame that arrived before this object took the socket over (a dialled socket's first event). */
  replay(data: RawData): void {
    this.#receive(data);
  }

  /** Binary frames are read as UTF-8 too: some implementations send JSON that way. */
  #receive(data: RawData): void {
    const bytes = rawLength(data);
    if (!this.#budget.admit(bytes)) {
      this.hooks.onShed(this, bytes);
      return;
    }
    this.framesIn++;
    const text = Buffer.isBuffer(data) ? data.toString('utf8') : rawText(data);
    const frame = parseFrame(text, this.selfId, this.now());
    if (frame.kind === 'response' && this.#answer(frame.response)) return;
    if (frame.kind !== 'response' && frame.kind !== 'malformed') this.lastEventAt = this.now();
    this.hooks.onFrame(this, frame);
  }

  #answer(response: ActionResponse): boolean {
    return this.#settle(response.echo, (pending) => {
      if (response.status === 'failed')
        pending.reject(new ActionFailedError(pending.action, response.retcode, response.message));
      else pending.resolve(response.data);
    });
  }

  #settle(echo: string, finish: (pending: Pending) => void): boolean {
    const pending = this.#pending.get(echo);
    if (!pending) return false;
    this.#pending.delete(echo);
    clearTimeout(pending.timer);
    finish(pending);
    return true;
  }

  #shut(): void {
    this.#open = false;
    for (const [echo, pending] of this.#pending) {
      this.#settle(echo, () => pending.reject(new NotConnectedError(pending.action, this.selfId, 'connection closed')));
    }
  }
}

function rawLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((sum, chunk) => sum + chunk.length, 0);
  return data.byteLength;
}

function rawText(data: ArrayBuffer | Buffer[]): string {
  return (Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data)).toString('utf8');
}
