/**
 * A live log stream over SSE from any `LineSource` (an AI service log file, a remote log endpoint,
 * the service's own log): a `ready` event, then one event per line (with the line's id when the
 * source has ids, so a reconnect resumes after it), heartbeats while idle. The source is read only
 * when the previous lines were written to the socket, so a slow client holds back the reading, not
 * a growing buffer. A source that fails for good ends the stream with one `error` event.
 */
import type { LineSource, SourcedLine } from '../../ops/logs/index.ts';
import type { SseStream } from './sse-stream.ts';

export interface LineStreamOptions {
  /** Milliseconds between reads when nothing new was there. */
  pollMs: number;
  /** The `ready` event's JSON (its `type` is set here). */
  ready: Record<string, unknown>;
  /** A line's event JSON (its `type` is set to `line` here). */
  lineEvent: (line: SourcedLine) => Record<string, unknown>;
  /** An error's event JSON (its `type` is set to `error` here). */
  errorEvent: (error: string) => Record<string, unknown>;
}

export async function streamLines(sse: SseStream, source: LineSource, options: LineStreamOptions): Promise<void> {
  if (!(await sse.send({ data: { type: 'ready', ...options.ready } }))) return;
  while (!sse.closed) {
    const batch = await source.read();
    if ('error' in batch) {
      await sse.send({ data: { type: 'error', ...options.errorEvent(batch.error) } });
      sse.end();
      return;
    }
    for (const line of batch.lines) {
      const data = { type: 'line', ...options.lineEvent(line) };
      if (!(await sse.send(line.id !== undefined ? { id: line.id, data } : { data }))) return;
    }
    if (!batch.more) await sse.sleep(options.pollMs);
  }
}
