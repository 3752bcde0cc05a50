/**
 * Server-sent-event streams of the console, typed from the contract like the rest of src/api.ts:
 * the event data type is the route's `text/event-stream` answer in web/types/console-v1.d.ts. The
 * session cookie authenticates the stream (EventSource sends it on same-origin requests).
 */
import type { paths } from './api';
import { API_BASE } from './base';

type StreamPath = {
  [P in keyof paths]: paths[P] extends { get: { responses: { 200: { content: { 'text/event-stream': unknown } } } } }
    ? P
    : never;
}[keyof paths];

/** The JSON data of one event of a stream route. */
export type StreamEvent<P extends StreamPath> = paths[P] extends {
  get: { responses: { 200: { content: { 'text/event-stream': infer E } } } };
}
  ? E
  : never;

export interface StreamHandle {
  close(): void;
}

/**
 * Opens `path` (with `{name}` filled from `params.path`) and calls `onEvent` with each event's
 * data and id. The browser reconnects by itself after a network error, sending the last id as
 * Last-Event-ID (the log stream resumes from it); `onEvent` returning false closes the stream, as
 * a job stream must after its one `complete` or `error` (a reconnect would replay the job).
 */
export function openStream<P extends StreamPath>(
  path: P,
  params: { path?: Record<string, string>; query?: Record<string, string | number | undefined> },
  onEvent: (event: StreamEvent<P>, id: string) => boolean | void,
  onBroken?: () => void,
): StreamHandle {
  let url = `${API_BASE}${path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params.path?.[name] ?? ''))}`;
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params.query ?? {})) if (value !== undefined) query.set(key, String(value));
  if ([...query].length) url += `?${query.toString()}`;
  const source = new EventSource(url);
  source.onmessage = (message: MessageEvent<string>) => {
    let data: StreamEvent<P>;
    try {
      data = JSON.parse(message.data) as StreamEvent<P>;
    } catch {
      return;
    }
    if (onEvent(data, message.lastEventId) === false) source.close();
  };
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) onBroken?.();
  };
  return { close: () => source.close() };
}
