/**
 * A server-sent-event response written straight to the socket (the route hijacks the reply).
 * Events are `data:` lines of JSON without event names, optionally preceded by an `id:` line; a
 * `: heartbeat` comment goes out when nothing else was written for a while, so proxies keep the
 * connection open and a vanished client is noticed (the write fails once the peer is gone).
 * Writing waits while the socket's buffer is full: a slow client slows its producer down instead
 * of growing a queue in memory; one that read nothing for `stallMs` is taken for dead and its
 * socket ended, so it cannot hold its stream slot for ever.
 */
import type { ServerResponse } from 'node:http';

export interface SseOptions {
  /** Milliseconds of silence after which a heartbeat comment is written. */
  heartbeatMs: number;
  /** Reconnect delay suggested to EventSource clients (`retry:`), in milliseconds. */
  retryMs?: number;
  /** A socket whose buffer stayed full this long is ended (default: never). */
  stallMs?: number;
}

export interface SseEvent {
  /** Numeric id a client may resume from (`Last-Event-ID`). */
  id?: number;
  data: unknown;
}

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  // nginx would otherwise buffer the stream.
  'x-accel-buffering': 'no',
} as const;

export class SseStream {
  readonly #raw: ServerResponse;
  readonly #options: SseOptions;
  #closed = false;
  #lastWriteAt = 0;
  /** When the heartbeat first found the socket's buffer full, since it last drained. */
  #stalledSince: number | null = null;
  #heartbeat: NodeJS.Timeout | undefined;
  readonly #closeWaiters = new Set<() => void>();

  constructor(raw: ServerResponse, options: SseOptions) {
    this.#raw = raw;
    this.#options = options;
    const onGone = () => this.#markClosed();
    raw.on('close', onGone);
    raw.on('error', onGone);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Writes the status line and headers; call once before any event. */
  open(extraHeaders: Readonly<Record<string, string>> = {}): void {
    this.#raw.writeHead(200, { ...SSE_HEADERS, ...extraHeaders });
    this.#raw.write(this.#options.retryMs !== undefined ? `retry: ${this.#options.retryMs}\n\n` : ': open\n\n');
    this.#lastWriteAt = Date.now();
    const tick = Math.max(5, Math.floor(this.#options.heartbeatMs / 2));
    this.#heartbeat = setInterval(() => this.#beat(), tick);
    this.#heartbeat.unref();
  }

  /** Writes one event; resolves false when the client is gone (the producer should stop). */
  async send(event: SseEvent): Promise<boolean> {
    if (this.#closed) return false;
    const text = `${event.id !== undefined ? `id: ${event.id}\n` : ''}data: ${JSON.stringify(event.data)}\n\n`;
    this.#lastWriteAt = Date.now();
    if (this.#raw.write(text)) return true;
    return this.#drained();
  }

  /** Resolves after `ms`, or earlier when the client goes away. */
  sleep(ms: number): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#closeWaiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#closeWaiters.add(done);
    });
  }

  /** Calls `listener` once when the client is gone or `end` was called; returns the removal. */
  onClose(listener: () => void): () => void {
    if (this.#closed) {
      listener();
      return () => undefined;
    }
    const once = () => {
      this.#closeWaiters.delete(once);
      listener();
    };
    this.#closeWaiters.add(once);
    return () => this.#closeWaiters.delete(once);
  }

  /** Ends the response (after the last event). */
  end(): void {
    if (this.#closed) return;
    this.#raw.end();
    this.#markClosed();
  }

  #beat(): void {
    if (this.#closed) return;
    if (this.#raw.writableNeedDrain) {
      this.#endIfStalled();
      return;
    }
    this.#stalledSince = null;
    if (Date.now() - this.#lastWriteAt < this.#options.heartbeatMs) return;
    this.#lastWriteAt = Date.now();
    this.#raw.write(': heartbeat\n\n');
  }

  #endIfStalled(): void {
    const { stallMs } = this.#options;
    if (stallMs === undefined) return;
    const now = Date.now();
    this.#stalledSince ??= now;
    if (now - this.#stalledSince < stallMs) return;
    // The client reads nothing: destroying the socket wakes a producer waiting for 'drain'.
    this.#raw.destroy();
    this.#markClosed();
  }

  #drained(): Promise<boolean> {
    return new Promise((resolve) => {
      const finish = (open: boolean) => {
        this.#raw.off('drain', onDrain);
        this.#closeWaiters.delete(onClose);
        resolve(open);
      };
      const onDrain = () => finish(true);
      const onClose = () => finish(false);
      this.#raw.on('drain', onDrain);
      this.#closeWaiters.add(onClose);
    });
  }

  #markClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#heartbeat);
    for (const waiter of [...this.#closeWaiters]) waiter();
    this.#closeWaiters.clear();
  }
}

/**
 * The resume point of a log stream: the `last_event_id` query parameter wins over the
 * `Last-Event-ID` header (which EventSource sends on its own when it reconnects). Anything but a
 * non-negative integer is no resume point.
 */
export function resumePoint(query: number | undefined, header: string | string[] | undefined): number | null {
  if (query !== undefined) return query;
  const text = Array.isArray(header) ? header[0] : header;
  if (text === undefined || !/^\d{1,15}$/.test(text.trim())) return null;
  return Number(text.trim());
}
