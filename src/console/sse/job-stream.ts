/**
 * The job progress protocol over SSE, for every kind of job (install, update, backup): unnamed
 * events whose JSON carries `type` (`ready`, `progress`, `complete`, `error`), `phase`, `message`
 * and `progress_percent`. On connect the whole history is replayed from the first event, then new
 * events follow as they happen; the stream ends after exactly one `complete` (the job succeeded)
 * or `error` (it failed, or there is no such job). Each reader follows the job's own event list
 * with a cursor, so nothing is queued per reader.
 */
import type { Job, JobEvent } from '../../ops/jobs/index.ts';
import type { SseStream } from './sse-stream.ts';

export const JOB_NOT_FOUND = 'job_not_found';

export async function streamJob(sse: SseStream, job: Job | undefined): Promise<void> {
  if (job === undefined) {
    await sse.send({
      data: { type: 'error', phase: 'failed', message: 'no such job', error: JOB_NOT_FOUND, progress_percent: 0 },
    });
    sse.end();
    return;
  }
  const ready = job.snapshot();
  const sent = await sse.send({
    data: {
      type: 'ready',
      job_id: job.id,
      kind: job.kind,
      action: job.action,
      phase: ready.phase,
      message: ready.message,
      ...(ready.text ? { text: ready.text } : {}),
      progress_percent: ready.progress_percent,
    },
  });
  if (!sent) return;

  // From the very first event: when some were dropped past the cap, the reader is told so.
  let cursor = 0;
  let wake: (() => void) | null = null;
  const unsubscribe = job.subscribe(() => wake?.());
  const offClose = sse.onClose(() => wake?.());
  try {
    for (;;) {
      if (cursor < job.firstSeq) {
        // Events dropped past the job's cap while this reader was behind.
        const skipped = job.firstSeq - cursor;
        const current = job.snapshot();
        const notice = {
          type: 'progress',
          phase: current.phase === 'queued' ? 'queued' : 'running',
          message: `${skipped} earlier events were dropped`,
          progress_percent: current.progress_percent,
          error: null,
          ts: current.updated_at,
        };
        if (!(await sse.send({ data: notice }))) return;
        cursor = job.firstSeq;
      }
      const events = job.eventsFrom(cursor);
      for (const event of events) {
        cursor = event.seq + 1;
        if (event.phase === 'done' || event.phase === 'failed') {
          await sse.send({ data: terminal(job, event) });
          sse.end();
          return;
        }
        if (!(await sse.send({ data: progress(event) }))) return;
      }
      if (sse.closed) return;
      if (cursor < job.nextSeq) continue;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = null;
      if (sse.closed) return;
    }
  } finally {
    unsubscribe();
    offClose();
  }
}

function progress(event: JobEvent): Record<string, unknown> {
  return {
    type: 'progress',
    phase: event.phase,
    message: event.message,
    ...(event.text ? { text: event.text } : {}),
    progress_percent: event.progress_percent,
    error: event.error,
    ts: event.ts,
    ...(event.line !== undefined ? { line: event.line } : {}),
  };
}

function terminal(job: Job, event: JobEvent): Record<string, unknown> {
  const snapshot = job.snapshot();
  return {
    type: event.phase === 'done' ? 'complete' : 'error',
    job_id: job.id,
    kind: job.kind,
    action: job.action,
    phase: event.phase,
    message: event.message,
    ...(event.text ? { text: event.text } : {}),
    progress_percent: event.progress_percent,
    error: event.error,
    ts: event.ts,
    result: snapshot.result,
    log_lines: snapshot.log_lines,
  };
}
