/**
 * The service log as an SSE stream: `ready`, then each matching entry with its id, read from the
 * ring with this client's own cursor. The next batch is read only after the previous one went
 * into the socket (SseStream waits for it to drain), so a slow client costs one batch and the
 * socket's buffer, never a queue that grows; when it falls so far behind that entries left the
 * ring, it is told how many with a `gap` event and carries on from the oldest kept.
 */
import type { LogEntry, LogFilter, LogRing } from '../../ops/logs/index.ts';
import { LOG_ROUTES } from '../limits.ts';
import { maskMembers } from '../member-mask.ts';
import type { SseStream } from './sse-stream.ts';

export async function streamLogRing(
  sse: SseStream,
  ring: LogRing,
  filter: LogFilter,
  resumeAfter: number | null,
  /** Below the write level: member numbers as stand-ins (docs/rules.md#console-member-numbers). */
  hideMembers = false,
): Promise<void> {
  const shown = <T>(value: T): T => (hideMembers ? maskMembers(value) : value);
  let cursor = resumeAfter === null ? ring.nextId : resumeAfter + 1;
  if (!(await sse.send({ data: { type: 'ready', next_id: cursor } }))) return;
  let wake: (() => void) | null = null;
  const unsubscribe = ring.subscribe(() => wake?.());
  const offClose = sse.onClose(() => wake?.());
  try {
    while (!sse.closed) {
      const batch = ring.from(cursor, filter, LOG_ROUTES.streamBatch);
      if (batch.skipped > 0 && !(await sse.send({ data: { type: 'gap', skipped: batch.skipped } }))) return;
      for (const entry of batch.entries) {
        if (!(await sse.send({ id: entry.id, data: { type: 'entry', entry: shown(entryJson(entry)) } }))) return;
      }
      cursor = batch.nextId;
      if (cursor < ring.nextId) continue;
      await new Promise<void>((resolve) => {
        wake = resolve;
        if (sse.closed || cursor < ring.nextId) resolve();
      });
      wake = null;
    }
  } finally {
    unsubscribe();
    offClose();
  }
}

/** An entry as the console's routes show it. */
export function entryJson(entry: LogEntry) {
  return {
    id: entry.id,
    level: entry.level,
    time: entry.time,
    scope: entry.scope,
    message: entry.message,
    fields: entry.fields as Record<string, unknown>,
  };
}
