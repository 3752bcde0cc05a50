/**
 * A server-sent-events reader for tests, over a real HTTP connection: it parses `id:` and `data:`
 * lines as EventSource does (comments are counted, not returned), keeps every event, and lets a
 * test wait for an event or for the end of the stream, or hang up mid-stream.
 */
export interface SseMessage {
  id: string | null;
  data: Record<string, unknown>;
}

export class SseClient {
  readonly events: SseMessage[] = [];
  comments = 0;
  status = 0;
  contentType = '';
  ended = false;
  readonly #abort = new AbortController();
  readonly #waiters = new Set<() => void>();
  readonly done: Promise<void>;

  private constructor(url: string, headers: Record<string, string>) {
    this.done = this.#read(url, headers).finally(() => {
      this.ended = true;
      this.#notify();
    });
  }

  static open(url: string, headers: Record<string, string> = {}): SseClient {
    return new SseClient(url, headers);
  }

  /** Resolves with the first event matching `predicate` (already received or coming). */
  async waitFor(predicate: (event: SseMessage) => boolean, timeoutMs = 10_000): Promise<SseMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find(predicate);
      if (found) return found;
      if (this.ended)
        throw new Error(`stream ended without the event; got ${JSON.stringify(this.events.map((e) => e.data))}`);
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for an event; got ${JSON.stringify(this.events.map((e) => e.data))}`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.#waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, 100);
        this.#waiters.add(wake);
      });
    }
  }

  /** Waits until `condition` holds (checked as events and comments arrive, and every 100 ms). */
  async waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error('timed out waiting on the stream');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Waits until `count` events matching `predicate` arrived. */
  async waitForCount(
    predicate: (event: SseMessage) => boolean,
    count: number,
    timeoutMs = 10_000,
  ): Promise<SseMessage[]> {
    await this.waitFor(() => this.events.filter(predicate).length >= count, timeoutMs);
    return this.events.filter(predicate);
  }

  async untilEnd(timeoutMs = 20_000): Promise<SseMessage[]> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.done,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('the stream did not end')), timeoutMs);
      }),
    ]).finally(() => clearTimeout(timer));
    return this.events;
  }

  close(): void {
    this.#abort.abort();
  }

  #notify(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }

  async #read(url: string, headers: Record<string, string>): Promise<void> {
    let response: Response;
    try {
      response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: this.#abort.signal });
    } catch {
      return;
    }
    this.status = response.status;
    this.contentType = response.headers.get('content-type') ?? '';
    if (!response.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    let id: string | null = null;
    let data: string[] = [];
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline).replace(/\r$/, '');
          buffer = buffer.slice(newline + 1);
          if (line === '') {
            if (data.length > 0) this.events.push({ id, data: JSON.parse(data.join('\n')) as Record<string, unknown> });
            id = null;
            data = [];
            this.#notify();
          } else if (line.startsWith(':')) {
            this.comments++;
            this.#notify();
          } else if (line.startsWith('id:')) id = line.slice(3).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
        }
      }
    } catch {
      // Aborted by the test or the server went away.
    }
  }
}
