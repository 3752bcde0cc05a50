/**
 * AI service logs through the console over a real port: the local tail and its confinement (an
 * absolute path, `..` and a symlink out are refused and never read), the remote fallback to the
 * stand-in AI service with and without the right Bearer token, the hint when nothing is reachable,
 * and the live stream: byte-offset ids, resume across a reconnect with no line lost or repeated,
 * rotation, and a remote stream that keeps emitting once every answer holds its maximum of lines.
 */
import assert from 'node:assert/strict';
import { appendFile, mkdir, mkdtemp, rename, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { AiServiceStandIn } from '../fixtures/ai-service.ts';
import { freePort } from '../support/chorus-process.ts';
import { SseClient, type SseMessage } from '../support/sse-client.ts';
import { dataOf, READ_TOKEN, startHarness, WRITE_TOKEN, type Harness } from '../unit/console/harness.ts';

const TIMING = { heartbeatMs: 200, localPollMs: 30, remotePollMs: 30, retryMs: 100, updateCheckTtlMs: 0 };
const REFUSED = 'log path out of bounds; refused';

interface LogTail {
  kind: string;
  path: string;
  lines: string[];
  error: string | null;
  error_code: string | null;
  source: string;
  tried: string[];
}

interface Setup {
  h: Harness;
  logs: string;
  /** A folder outside every allowed root, holding a secret file. */
  outside: string;
  secret: string;
}

async function setup(t: TestContext): Promise<Setup> {
  const h = await startHarness(t, { ai: { siblingRoot: null, sharedLogDir: null, timing: TIMING } });
  const logs = join(h.config.current().dataDir, 'runtimes', 'ai', 'logs');
  await mkdir(logs, { recursive: true });
  const outside = await mkdtemp(join(tmpdir(), 'chorus-outside-'));
  t.after(() => rm(outside, { recursive: true, force: true }));
  const secret = join(outside, 'secret.txt');
  await writeFile(secret, 'TOP-SECRET-CONTENT\n');
  // Nothing answers at the default base URL in these tests unless a test says so.
  await configure(h, { base_url: `http://127.0.0.1:${await freePort()}` });
  return { h, logs, outside, secret };
}

async function configure(h: Harness, body: Record<string, unknown>): Promise<void> {
  const reply = await h.request('PUT', '/ai-extension/config', { token: WRITE_TOKEN, body });
  assert.equal(reply.status, 200, reply.text);
}

const tail = async (h: Harness, query: Record<string, string> = {}) =>
  dataOf<LogTail>(await h.request('GET', '/ai-extension/logs', { token: READ_TOKEN, query }));

const numbered = (from: number, to: number, label = 'line') =>
  Array.from({ length: to - from + 1 }, (_, index) => `${label} ${from + index}`);

/** The line an idle AI service logs over and over, `count` times. */
const repeat = (count: number) => ({ line: 'ok', count });

/** The AI service's answer holding the last `size` lines of a log written as runs of one line. */
function answerBody(runs: readonly { line: string; count: number }[], size: number): Buffer {
  const parts: string[] = [];
  let left = size;
  for (let index = runs.length - 1; index >= 0 && left > 0; index--) {
    const run = runs[index] as { line: string; count: number };
    const count = Math.min(run.count, left);
    left -= count;
    parts.unshift(`${JSON.stringify(run.line)},`.repeat(count));
  }
  const lines = `[${parts.join('').slice(0, -1)}]`;
  return Buffer.from(`{"kind":"uvicorn","path":"memory","lines":${lines},"error":null,"source":"ai"}`);
}

/**
 * Follows the event loop until stopped: the longest stretch between two turns, in CPU milliseconds
 * of this process. Counted in CPU time, not wall time, so that other programs on a busy machine
 * (which delay the turns too) do not count as Chorus holding the loop.
 */
function holdProbe(): { stop: () => number } {
  let worstMs = 0;
  let last = process.cpuUsage();
  let timer: NodeJS.Timeout | undefined;
  const turn = () => {
    const used = process.cpuUsage(last);
    worstMs = Math.max(worstMs, (used.user + used.system) / 1000);
    last = process.cpuUsage();
    timer = setTimeout(turn, 1);
  };
  timer = setTimeout(turn, 1);
  return {
    stop: () => {
      clearTimeout(timer);
      return worstMs;
    },
  };
}

const text = (lines: string[]) => lines.map((line) => `${line}\n`).join('');

function openStream(h: Harness, query: Record<string, string> = {}, headers: Record<string, string> = {}): SseClient {
  const url = new URL(`${h.api}/ai-extension/logs/stream`);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  return SseClient.open(url.href, { 'x-chorus-token': READ_TOKEN, ...headers });
}

const lineEvents = (client: SseClient): SseMessage[] => client.events.filter((event) => event.data.type === 'line');
const lineTexts = (client: SseClient): string[] => lineEvents(client).map((event) => event.data.line as string);

async function standIn(t: TestContext, token: string): Promise<{ ai: AiServiceStandIn; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-ai-logs-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const ai = await AiServiceStandIn.start({ token, logDir: dir });
  t.after(() => ai.close());
  return { ai, dir };
}

describe('AI logs: local tail and confinement', () => {
  it('reads the last n lines of the local file, uvicorn.log before app.log, per kind', async (t) => {
    const { h, logs } = await setup(t);
    await writeFile(join(logs, 'app.log'), text(['from app.log']));
    await writeFile(join(logs, 'uvicorn.log'), text(numbered(1, 300)));
    await writeFile(join(logs, 'celery-media.log'), text(['media 1', 'media 2']));
    const uvicorn = await tail(h, { kind: 'uvicorn', n: '50' });
    assert.deepEqual([uvicorn.source, uvicorn.error, uvicorn.path], ['local', null, join(logs, 'uvicorn.log')]);
    assert.deepEqual(uvicorn.lines, numbered(251, 300));
    assert.equal((await tail(h)).lines.length, 200, 'n defaults to 200');
    assert.deepEqual((await tail(h, { kind: 'celery-media' })).lines, ['media 1', 'media 2']);
    // An explicit path inside the runtime folder, relative to the project folder.
    await writeFile(join(logs, 'custom.log'), text(['custom']));
    await configure(h, { base_url: 'http://127.0.0.1:1', uvicorn_log_file: 'data/runtimes/ai/logs/custom.log' });
    assert.deepEqual((await tail(h)).lines, ['custom']);
    for (const query of [{ n: '0' }, { n: '2001' }, { kind: 'nginx' }] as Record<string, string>[]) {
      const reply = await h.request('GET', '/ai-extension/logs', { token: READ_TOKEN, query });
      assert.equal(reply.status, 400, JSON.stringify(query));
    }
  });

  it('refuses an absolute path, a `..` path and a symlink out, without reading them or asking the AI', async (t) => {
    const { h, logs, secret } = await setup(t);
    const { ai } = await standIn(t, '');
    const escapes = [
      secret,
      '/etc/passwd',
      'data/runtimes/ai/logs/../../../console-settings.json',
      'data/runtimes/ai/../../../../../etc/passwd',
    ];
    await symlink(secret, join(logs, 'linked.log'));
    escapes.push(join(logs, 'linked.log'));
    for (const path of escapes) {
      await configure(h, { base_url: ai.baseUrl, uvicorn_log_file: path });
      const reply = await tail(h);
      assert.equal(reply.error, REFUSED, path);
      assert.equal(reply.error_code, 'path_refused', path);
      assert.deepEqual([reply.source, reply.lines], ['none', []], path);
      assert.ok(!JSON.stringify(reply).includes('TOP-SECRET'), path);
      const events = await openStream(h).untilEnd();
      assert.deepEqual(
        events.map((event) => [event.data.type, event.data.error, event.data.error_code]),
        [['error', REFUSED, 'path_refused']],
        path,
      );
    }
    // A symlink out among the usual names is refused as well.
    await configure(h, { base_url: ai.baseUrl });
    await symlink(secret, join(logs, 'uvicorn.log'));
    assert.equal((await tail(h)).error, REFUSED);
    assert.equal(ai.count('/api/ops/logs'), 0, 'a refused path never falls through to the AI service');
  });
});

describe('AI logs: remote fallback and the hint', () => {
  it('asks the AI service with the Bearer token; a wrong token gives the 401 hint; no token needed when the AI side has none', async (t) => {
    const { h } = await setup(t);
    const { ai, dir } = await standIn(t, 'ops-token-42');
    await writeFile(join(dir, 'celery.log'), text(numbered(1, 30, 'celery')));
    await configure(h, { base_url: ai.baseUrl, token: 'ops-token-42' });
    const remote = await tail(h, { kind: 'celery', n: '10' });
    assert.deepEqual([remote.source, remote.error, remote.path], ['remote', null, join(dir, 'celery.log')]);
    assert.deepEqual(remote.lines, numbered(21, 30, 'celery'));
    const asked = ai.requests.find((request) => request.path === '/api/ops/logs');
    assert.equal(asked?.authorization, 'Bearer ops-token-42');
    assert.deepEqual([asked?.query.get('kind'), asked?.query.get('n')], ['celery', '10']);

    await configure(h, { base_url: ai.baseUrl, token: 'not-the-token' });
    const wrong = await tail(h, { kind: 'celery' });
    assert.deepEqual([wrong.source, wrong.lines], ['remote', []]);
    assert.match(String(wrong.error), /refused the Bearer token \(HTTP 401\).*CHORUS_AI_API_TOKEN/);
    assert.equal(wrong.error_code, 'token_refused');
    await configure(h, { base_url: ai.baseUrl, token: null });
    assert.match(String((await tail(h, { kind: 'celery' })).error), /HTTP 401/, 'no token at all is refused too');

    ai.token = '';
    const open = await tail(h, { kind: 'celery', n: '2' });
    assert.deepEqual([open.source, open.lines], ['remote', ['celery 29', 'celery 30']]);
    const stream = openStream(h, { kind: 'celery' });
    await stream.waitFor((event) => event.data.line === 'celery 30');
    stream.close();
  });

  it('names what was tried when neither a local file nor the AI service has the log', async (t) => {
    const { h, logs } = await setup(t);
    const dead = (await tail(h, { kind: 'uvicorn' })) as LogTail;
    assert.equal(dead.source, 'none');
    assert.equal(dead.error_code, 'not_found', 'the console words the code, not the English detail');
    assert.deepEqual(dead.lines, []);
    for (const name of ['uvicorn.log', 'api.log', 'app.log'])
      assert.ok(String(dead.error).includes(join(logs, name)), name);
    assert.match(String(dead.error), /GET http:\/\/127\.0\.0\.1:\d+\/api\/ops\/logs\?kind=uvicorn&n=200: ECONNREFUSED/);
    assert.deepEqual(
      dead.tried.slice(0, 3),
      ['uvicorn.log', 'api.log', 'app.log'].map((name) => join(logs, name)),
    );

    // The AI service answers, but has no such file either: its own error is in the hint.
    const { ai } = await standIn(t, '');
    await configure(h, { base_url: ai.baseUrl });
    const missing = await tail(h, { kind: 'celery' });
    assert.equal(missing.source, 'none');
    assert.match(String(missing.error), /log file does not exist/);

    const events = await openStream(h, { kind: 'celery' }).untilEnd();
    assert.equal(events.length, 1);
    assert.equal(events[0]?.data.type, 'error');
    assert.match(String(events[0]?.data.error), /no AI log file on this machine/);
    assert.equal(events[0]?.data.error_code, 'not_found');
    assert.ok(
      Array.isArray(events[0]?.data.tried) && events[0].data.tried.length > 0,
      'the stream names what it tried',
    );
  });
});

describe('AI logs: live stream', () => {
  it('ids are byte offsets; a reconnect resumes after the last id with nothing lost or repeated', async (t) => {
    const { h, logs } = await setup(t);
    const file = join(logs, 'uvicorn.log');
    const first = ['启动 service', 'line b', 'line c'];
    await writeFile(file, text(first));
    const stream = openStream(h);
    await stream.waitForCount((event) => event.data.type === 'line', 3);
    assert.deepEqual(stream.events[0]?.data, { type: 'ready', kind: 'uvicorn', path: file, source: 'local' });
    const ids = lineEvents(stream).map((event) => Number(event.id));
    assert.deepEqual(ids, [
      Buffer.byteLength('启动 service\n'),
      Buffer.byteLength('启动 service\nline b\n'),
      Buffer.byteLength(text(first)),
    ]);

    await appendFile(file, text(['line d', 'line e']));
    await stream.waitForCount((event) => event.data.type === 'line', 5);
    const lastId = lineEvents(stream).at(-1)?.id as string;
    stream.close();
    await stream.done;

    // Written while nobody listened, one line in two writes (a partial line is never sent).
    await appendFile(file, text(['line f', 'line g']) + 'line h part');
    await appendFile(file, ' two\n');
    const resumed = openStream(h, {}, { 'last-event-id': lastId });
    await resumed.waitForCount((event) => event.data.type === 'line', 3);
    await appendFile(file, text(['line i']));
    await resumed.waitForCount((event) => event.data.type === 'line', 4);
    assert.deepEqual(lineTexts(resumed), ['line f', 'line g', 'line h part two', 'line i']);
    resumed.close();

    // The query parameter wins over the header.
    const byQuery = openStream(h, { last_event_id: lastId }, { 'last-event-id': '0' });
    await byQuery.waitForCount((event) => event.data.type === 'line', 4);
    assert.deepEqual(lineTexts(byQuery), ['line f', 'line g', 'line h part two', 'line i']);
    byQuery.close();
    assert.equal(
      (await h.request('GET', '/ai-extension/logs/stream', { token: READ_TOKEN, query: { last_event_id: 'x' } }))
        .status,
      400,
    );
  });

  it('survives rotation: truncation, a new file and a resume point past the end restart at 0', async (t) => {
    const { h, logs } = await setup(t);
    const file = join(logs, 'uvicorn.log');
    await writeFile(file, text(numbered(1, 5)));
    const stream = openStream(h);
    await stream.waitForCount((event) => event.data.type === 'line', 5);

    await truncate(file, 0);
    await appendFile(file, text(['after truncate 1', 'after truncate 2']));
    await stream.waitForCount((event) => event.data.type === 'line', 7);
    // Rewritten in place with more than before, between two polls: still noticed.
    const longer = text(numbered(1, 40, 'rewritten'));
    await writeFile(file, longer);
    await stream.waitFor((event) => event.data.line === 'rewritten 40');
    await rename(file, `${file}.1`);
    await writeFile(file, text(['fresh file']));
    await stream.waitFor((event) => event.data.line === 'fresh file');
    const seen = lineTexts(stream);
    assert.deepEqual(seen.slice(0, 7), [...numbered(1, 5), 'after truncate 1', 'after truncate 2']);
    assert.deepEqual(seen.slice(7), [...numbered(1, 40, 'rewritten'), 'fresh file']);
    assert.equal(lineEvents(stream).at(-1)?.id, String(Buffer.byteLength('fresh file\n')));
    stream.close();

    const pastEnd = openStream(h, { last_event_id: '999999' });
    await pastEnd.waitForCount((event) => event.data.type === 'line', 1);
    assert.deepEqual(lineTexts(pastEnd), ['fresh file']);
    pastEnd.close();
  });

  it('starts near the end without a resume point, from a full line', async (t) => {
    const { h, logs } = await setup(t);
    const lines = numbered(1, 8000, 'a fairly long log line number');
    await writeFile(join(logs, 'uvicorn.log'), text(lines));
    const stream = openStream(h);
    await stream.waitFor((event) => event.data.line === lines.at(-1));
    const seen = lineTexts(stream);
    assert.ok(seen.length < lines.length && seen.length > 1000, `${seen.length} lines`);
    assert.deepEqual(seen, lines.slice(-seen.length), 'complete lines, the last ones, in order');
    stream.close();
  });

  it('a remote stream keeps emitting new lines once every answer holds its maximum of lines', async (t) => {
    const { h } = await setup(t);
    const { ai, dir } = await standIn(t, 'stream-token');
    const file = join(dir, 'uvicorn.log');
    await writeFile(file, text(numbered(1, 320)));
    await configure(h, { base_url: ai.baseUrl, token: 'stream-token' });
    const stream = openStream(h);
    await stream.waitFor((event) => event.data.line === 'line 320');
    assert.deepEqual(stream.events[0]?.data.source, 'remote');
    assert.deepEqual(lineTexts(stream), numbered(21, 320), 'the first answer: the last 300 lines');
    assert.ok(
      lineEvents(stream).every((event) => event.id === null),
      'remote lines have no resume ids',
    );
    await appendFile(file, text(numbered(321, 340)));
    await stream.waitFor((event) => event.data.line === 'line 340');
    await appendFile(file, text(numbered(341, 347)));
    await stream.waitFor((event) => event.data.line === 'line 347');
    assert.deepEqual(lineTexts(stream), numbered(21, 347), 'each new line once, past the 300-line cap');
    assert.ok(
      ai.requests
        .filter((request) => request.path === '/api/ops/logs')
        .every((r) => r.authorization === 'Bearer stream-token'),
    );
    stream.close();
  });

  it('an AI service answering 300,000 lines of a repetitive log: new lines found, the console stays responsive', async (t) => {
    const { h } = await setup(t);
    const { ai } = await standIn(t, '');
    // A log of one repeated line with a mark in the middle, answered 300,000 lines at a time
    // whatever Chorus asks; each step writes 75,000 more repeats and a mark. Finding where one
    // answer continues the previous one by trying every overlap from its start is quadratic here.
    const ANSWER = 300_000;
    const runs = [repeat(ANSWER / 2), { line: 'mark 1', count: 1 }, repeat(ANSWER / 2 - 1)];
    const answers = [answerBody(runs, ANSWER)];
    for (const mark of ['mark 2', 'mark 3', 'mark 4']) {
      runs.push(repeat(ANSWER / 4), { line: mark, count: 1 });
      answers.push(answerBody(runs, ANSWER));
    }
    ai.opsLogsBody = answers[0] as Buffer;
    await configure(h, { base_url: ai.baseUrl });

    const loop = holdProbe();
    let healthAnswers = 0;
    let probing = true;
    const health = (async () => {
      while (probing) {
        const reply = await fetch(`${h.api}/health`);
        await reply.arrayBuffer();
        assert.equal(reply.status, 200);
        healthAnswers++;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    t.after(async () => {
      probing = false;
      loop.stop();
      await health;
    });

    const stream = openStream(h);
    await stream.waitFor((event) => event.data.type === 'line');
    for (const [step, mark] of ['mark 2', 'mark 3', 'mark 4'].entries()) {
      const answered = healthAnswers;
      ai.opsLogsBody = answers[step + 1] as Buffer;
      await stream.waitFor((event) => event.data.line === mark, 30_000);
      // /health was answered while the stream read the step.
      await stream.waitUntil(() => healthAnswers > answered);
    }
    probing = false;
    await health;
    const heldMs = loop.stop();
    stream.close();
    const seen = lineTexts(stream);
    assert.deepEqual(
      seen.filter((line) => line.startsWith('mark')),
      ['mark 2', 'mark 3', 'mark 4'],
      'each new mark once, in order (mark 1 lay before the 300 lines a stream keeps)',
    );
    assert.ok(seen.length <= 300 + 3 * 300, `at most one bounded answer per poll: ${seen.length} lines`);
    assert.ok(heldMs < 100, `the event loop was held for ${Math.round(heldMs)} ms of CPU at a stretch`);
  });

  it('a remote stream refused at the start or mid-way ends with one error event saying why', async (t) => {
    const { h } = await setup(t);
    const { ai, dir } = await standIn(t, 'remote-token-77');
    await writeFile(join(dir, 'celery.log'), text(numbered(1, 3, 'celery')));

    // A token that is only a prefix of the AI side's is refused (exact match): the 401 hint.
    await configure(h, { base_url: ai.baseUrl, token: 'remote-token-7' });
    const refused = await openStream(h, { kind: 'celery' }).untilEnd();
    assert.deepEqual(
      refused.map((event) => event.data.type),
      ['error'],
    );
    assert.match(String(refused[0]?.data.error), /HTTP 401.*CHORUS_AI_API_TOKEN/);
    assert.equal(refused[0]?.data.error_code, 'token_refused');

    await configure(h, { base_url: ai.baseUrl, token: 'remote-token-77' });
    const stream = openStream(h, { kind: 'celery' });
    await stream.waitFor((event) => event.data.line === 'celery 3');
    ai.token = 'rotated-on-the-ai-side';
    const events = await stream.untilEnd();
    assert.deepEqual(
      events.map((event) => event.data.type),
      ['ready', 'line', 'line', 'line', 'error'],
    );
    assert.match(String(events.at(-1)?.data.error), /stopped answering.*401/);
    assert.equal(events.at(-1)?.data.error_code, 'remote_stopped');
  });
});
