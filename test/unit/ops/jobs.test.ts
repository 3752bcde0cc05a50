/**
 * The generic job registry and its SSE protocol: one running job per kind (other kinds run beside
 * it), the phases and percentages, failures with and without a partial result, the cap on events
 * (a late reader is told how many were dropped), pruning of finished jobs, and stop aborting the
 * running work. The stream is read over a real HTTP connection.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { describe, it, type TestContext } from 'node:test';
import { streamJob } from '../../../src/console/sse/job-stream.ts';
import { SseStream } from '../../../src/console/sse/sse-stream.ts';
import { JobBusyError, JobFailure, JobRegistry, type Job, type JobContext } from '../../../src/ops/jobs/index.ts';
import { SseClient } from '../../support/sse-client.ts';

/** A job body the test releases by hand. */
function gate(): {
  work: (context: JobContext) => Promise<{ result: Record<string, unknown>; message: string }>;
  open: () => void;
  context: Promise<JobContext>;
} {
  let release: () => void = () => undefined;
  let handOver: (context: JobContext) => void = () => undefined;
  const context = new Promise<JobContext>((resolve) => (handOver = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  return {
    context,
    open: () => release(),
    work: async (ctx) => {
      handOver(ctx);
      await released;
      return { result: { done: true }, message: 'finished' };
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

async function serveJobs(t: TestContext, find: (id: string) => Job | undefined): Promise<string> {
  const server: Server = createServer((request, response) => {
    const sse = new SseStream(response, { heartbeatMs: 50 });
    sse.open();
    void streamJob(sse, find(request.url?.slice(1) ?? '')).finally(() => sse.end());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  return `http://127.0.0.1:${address.port}`;
}

describe('JobRegistry', () => {
  it('runs one job per kind at a time; other kinds run beside it', async () => {
    const registry = new JobRegistry({ now: () => Date.now() });
    const install = gate();
    const job = registry.start('ai-install', 'clone', install.work);
    assert.equal(job.snapshot().phase, 'queued');
    assert.throws(
      () => registry.start('ai-install', 'update', async () => ({ result: {}, message: '' })),
      JobBusyError,
    );
    const backup = registry.start('backup', null, async () => ({ result: { file: 'x' }, message: 'saved' }));
    await settle();
    assert.equal(backup.snapshot().phase, 'done');
    assert.equal(registry.active('ai-install'), job);
    (await install.context).line('a line', 30);
    install.open();
    await settle();
    const done = job.snapshot();
    assert.deepEqual(
      [done.phase, done.progress_percent, done.result, done.message],
      ['done', 100, { done: true }, 'finished'],
    );
    assert.deepEqual(done.log_lines, ['a line']);
    assert.equal(registry.active('ai-install'), undefined);
    assert.ok(
      registry.start('ai-install', 'update', async () => ({ result: {}, message: '' })),
      'free again',
    );
  });

  it('a failure keeps the percentage and any partial result; a thrown error is a failure too', async () => {
    const unexpected: string[] = [];
    const registry = new JobRegistry({ now: () => Date.now(), onUnexpected: (job) => unexpected.push(job.id) });
    const failing = registry.start('a', null, async (context) => {
      context.progress(42, 'halfway');
      throw new JobFailure('exit code 3', { exit_code: 3 });
    });
    const crashing = registry.start('b', null, async () => {
      throw new Error('boom');
    });
    await settle();
    assert.deepEqual(
      [
        failing.snapshot().phase,
        failing.snapshot().progress_percent,
        failing.snapshot().error,
        failing.snapshot().result,
      ],
      ['failed', 42, 'exit code 3', { exit_code: 3 }],
    );
    assert.deepEqual([crashing.snapshot().phase, crashing.snapshot().error], ['failed', 'boom']);
    assert.deepEqual(unexpected, [crashing.id], 'only the unexpected error is reported as such');
  });

  it('keeps a bounded number of events and finished jobs', async () => {
    const registry = new JobRegistry({
      now: () => Date.now(),
      limits: { eventsKept: 10, jobsKept: 3, logLinesKept: 4, logLinesShown: 2 },
    });
    const job = registry.start('k', null, async (context) => {
      for (let index = 0; index < 25; index++) context.line(`line ${index}`);
      return { result: {}, message: 'ok' };
    });
    await settle();
    assert.equal(job.nextSeq, 28, 'queued, started, 25 lines, done');
    assert.equal(job.firstSeq, 18);
    assert.equal(job.eventsFrom(0).length, 10);
    assert.deepEqual(job.snapshot().log_lines, ['line 23', 'line 24']);
    const ids = [job.id];
    for (let index = 0; index < 4; index++) {
      ids.push(registry.start('k', null, async () => ({ result: {}, message: 'ok' })).id);
      await settle();
    }
    assert.equal(registry.get(ids[0] as string), undefined, 'the oldest finished job was dropped');
    assert.ok(registry.get(ids.at(-1) as string));
  });

  it('stop aborts the running work and refuses new jobs', async () => {
    const registry = new JobRegistry({ now: () => Date.now() });
    let aborted = false;
    const job = registry.start(
      'long',
      null,
      (context) =>
        new Promise((_, reject) => {
          context.signal.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('killed'));
          });
        }),
    );
    await settle();
    assert.equal(await registry.stop(1000), 0);
    assert.equal(aborted, true);
    assert.deepEqual([job.snapshot().phase, job.snapshot().error], ['failed', 'stopped: the service is shutting down']);
    assert.throws(() => registry.start('long', null, async () => ({ result: {}, message: '' })), /stopped/);
  });
});

describe('job SSE protocol', () => {
  it('ready, every event replayed from the start, then exactly one complete; heartbeats while idle', async (t) => {
    const registry = new JobRegistry({ now: () => Date.now() });
    const url = await serveJobs(t, (id) => registry.get(id));
    const install = gate();
    const job = registry.start('ai-install', 'bootstrap', install.work);
    const context = await install.context;
    context.progress(45, 'running the script');
    context.line('early line', 46);
    const early = SseClient.open(`${url}/${job.id}`);
    await early.waitFor((event) => event.data.line === 'early line');
    await early.waitUntil(() => early.comments >= 1);
    context.line('late line', 47);
    const late = SseClient.open(`${url}/${job.id}`);
    await late.waitFor((event) => event.data.line === 'late line');
    install.open();
    const [a, b] = await Promise.all([early.untilEnd(), late.untilEnd()]);
    assert.deepEqual(a[0]?.data, {
      type: 'ready',
      job_id: job.id,
      kind: 'ai-install',
      action: 'bootstrap',
      phase: 'running',
      message: 'running the script',
      progress_percent: 46,
    });
    assert.deepEqual(
      a
        .slice(1)
        .map((event) => [
          event.data.type,
          event.data.phase,
          event.data.message,
          event.data.progress_percent,
          event.data.line,
        ]),
      [
        ['progress', 'queued', 'queued', 0, undefined],
        ['progress', 'running', 'started', 5, undefined],
        ['progress', 'running', 'running the script', 45, undefined],
        ['progress', 'running', 'running the script', 46, 'early line'],
        ['progress', 'running', 'running the script', 47, 'late line'],
        ['complete', 'done', 'finished', 100, undefined],
      ],
    );
    assert.deepEqual(
      b.slice(1).map((event) => event.data),
      a.slice(1).map((event) => event.data),
      'a late reader gets the same replay',
    );
    assert.deepEqual((a.at(-1)?.data as { result: unknown }).result, { done: true });
  });

  it('a reader behind the event cap is told how many events were dropped; an unknown job is one error', async (t) => {
    const registry = new JobRegistry({ now: () => Date.now(), limits: { eventsKept: 5 } });
    const url = await serveJobs(t, (id) => registry.get(id));
    const job = registry.start('k', null, async (context) => {
      for (let index = 0; index < 9; index++) context.line(`line ${index}`);
      throw new JobFailure('failed at the end');
    });
    await settle();
    const events = await SseClient.open(`${url}/${job.id}`).untilEnd();
    assert.equal(events[1]?.data.message, '7 earlier events were dropped');
    assert.deepEqual(
      events.slice(2).map((event) => event.data.line ?? event.data.type),
      ['line 5', 'line 6', 'line 7', 'line 8', 'error'],
    );
    assert.equal(events.at(-1)?.data.error, 'failed at the end');
    const missing = await SseClient.open(`${url}/nope`).untilEnd();
    assert.deepEqual(
      missing.map((event) => [event.data.type, event.data.error]),
      [['error', 'job_not_found']],
    );
  });
});
