/**
 * The service log in the console over real HTTP: the entries the logger wrote, filtered; the text
 * export; the live stream resuming after a reconnect without loss or duplication, its heartbeat,
 * and a client that does not read costing a bounded amount of memory; the errors and their cleanup.
 */
import assert from 'node:assert/strict';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { describe, it } from 'node:test';
import { SseClient } from '../support/sse-client.ts';
import { dataOf, READ_TOKEN, startHarness, WRITE_TOKEN, type Harness } from '../unit/console/harness.ts';

interface Entry {
  id: number;
  level: string;
  scope: string;
  message: string;
  fields: Record<string, unknown>;
}

const auth = { 'x-chorus-token': READ_TOKEN };

function logger(h: Harness) {
  return h.server.log.child({}, { level: 'trace' }) as unknown as {
    info(o: object, m: string): void;
    warn(o: object, m: string): void;
    error(o: object, m: string): void;
  };
}

/** The console's logger is the service logger (through Fastify); its lines reach the ring. */
function log(h: Harness, level: 'info' | 'warn' | 'error', fields: object, message: string): void {
  logger(h)[level](fields, message);
}

describe('service log routes', () => {
  it('GET /logs lists what the logger wrote, filtered by level, scope and text; secrets stay redacted', async (t) => {
    const h = await startHarness(t);
    log(h, 'info', { scope: 'repeater', group_id: 1 }, 'reply sent');
    log(h, 'warn', { scope: 'store' }, 'database slow');
    log(h, 'error', { scope: 'store', token: 'do-not-show-me' }, 'database failed');
    log(h, 'info', { route: 'GET /x' }, 'console answered');

    const all = dataOf<{ entries: Entry[]; next_id: number; max_entries: number }>(
      await h.request('GET', '/logs', { token: READ_TOKEN }),
    );
    const mine = all.entries.filter((e) =>
      ['reply sent', 'database slow', 'database failed', 'console answered'].includes(e.message),
    );
    assert.deepEqual(
      mine.map((e) => [e.level, e.scope, e.message]),
      [
        ['info', 'repeater', 'reply sent'],
        ['warn', 'store', 'database slow'],
        ['error', 'store', 'database failed'],
        ['info', 'console', 'console answered'],
      ],
    );
    assert.ok(all.max_entries >= 1000);
    assert.equal(mine[2]?.fields.token, '[redacted]');

    const warnUp = dataOf<{ entries: Entry[] }>(
      await h.request('GET', '/logs', { token: READ_TOKEN, query: { level: 'warn' } }),
    );
    assert.ok(warnUp.entries.every((e) => e.level === 'warn' || e.level === 'error' || e.level === 'fatal'));
    assert.deepEqual(
      dataOf<{ entries: Entry[] }>(
        await h.request('GET', '/logs', { token: READ_TOKEN, query: { scope: 'store' } }),
      ).entries.map((e) => e.message),
      ['database slow', 'database failed'],
    );
    assert.deepEqual(
      dataOf<{ entries: Entry[] }>(
        await h.request('GET', '/logs', { token: READ_TOKEN, query: { q: 'SLOW' } }),
      ).entries.map((e) => e.message),
      ['database slow'],
    );
    const limited = dataOf<{ entries: Entry[] }>(
      await h.request('GET', '/logs', { token: READ_TOKEN, query: { limit: '2' } }),
    );
    assert.equal(limited.entries.length, 2);
    assert.equal(limited.entries[1]?.message, 'console answered', 'the newest, oldest first');

    const bad = await h.request('GET', '/logs', { token: READ_TOKEN, query: { level: 'loud' } });
    assert.equal(bad.status, 400);
    assert.match((bad.json as { detail: string }).detail, /level/);
  });

  it('GET /logs/export is a text attachment with one line per entry', async (t) => {
    const h = await startHarness(t);
    log(h, 'warn', { scope: 'store', rows: 3 }, 'database slow');
    const reply = await h.request('GET', '/logs/export', { token: READ_TOKEN, query: { scope: 'store' } });
    assert.equal(reply.status, 200);
    assert.match(reply.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(
      reply.headers.get('content-disposition') ?? '',
      /^attachment; filename="chorus-logs_\d{8}-\d{4}\.txt"$/,
    );
    assert.match(
      reply.text,
      /^\d{4}-\d\d-\d\dT[\d:.]+Z WARN {2}\[store\] database slow \{"scope":"store","rows":3\}\n$/,
    );
    assert.equal((await h.request('GET', '/logs/export')).status, 401);
  });

  it('the stream resumes after a reconnect without loss or duplication, by header or query', async (t) => {
    const h = await startHarness(t);
    const url = `${h.api}/logs/stream?scope=test`;
    const first = SseClient.open(url, auth);
    t.after(() => first.close());
    await first.waitFor((e) => e.data.type === 'ready');
    for (let i = 0; i < 30; i++) log(h, 'info', { scope: 'test', n: i }, `line ${i}`);
    const seen = await first.waitForCount((e) => e.data.type === 'entry', 30);
    first.close();
    const lastId = seen.at(-1)?.id ?? '';
    for (let i = 30; i < 60; i++) log(h, 'info', { scope: 'test', n: i }, `line ${i}`);
    log(h, 'info', { scope: 'other' }, 'not for this stream');

    const byHeader = SseClient.open(url, { ...auth, 'last-event-id': lastId });
    t.after(() => byHeader.close());
    const rest = await byHeader.waitForCount((e) => e.data.type === 'entry', 30);
    const numbers = [...seen, ...rest].map((e) => (e.data.entry as Entry).fields.n);
    assert.deepEqual(
      numbers,
      Array.from({ length: 60 }, (_, i) => i),
      'every line once, in order',
    );
    assert.ok(
      rest.every((e) => e.id === String((e.data.entry as Entry).id)),
      'the event id is the entry id',
    );
    log(h, 'info', { scope: 'test', n: 60 }, 'line 60');
    await byHeader.waitForCount((e) => e.data.type === 'entry', 31);
    byHeader.close();

    // The query wins over the header.
    const middle = rest[9]?.id ?? '';
    const byQuery = SseClient.open(`${url}&last_event_id=${middle}`, { ...auth, 'last-event-id': lastId });
    t.after(() => byQuery.close());
    const fromQuery = await byQuery.waitForCount((e) => e.data.type === 'entry', 21);
    assert.deepEqual(
      fromQuery.map((e) => (e.data.entry as Entry).fields.n),
      Array.from({ length: 21 }, (_, i) => 40 + i),
    );
    assert.equal(byQuery.events.filter((e) => e.data.type === 'entry').length, 21, 'nothing more, nothing twice');
  });

  it('an idle stream sends heartbeat comments', async (t) => {
    const h = await startHarness(t, { logHeartbeatMs: 100 });
    const client = SseClient.open(`${h.api}/logs/stream?scope=nothing-logs-here`, auth);
    t.after(() => client.close());
    await client.waitFor((e) => e.data.type === 'ready');
    const before = client.comments;
    await client.waitUntil(() => client.comments >= before + 3, 5000);
  });

  it('a client that does not read is not buffered for: the socket backlog stays small, then it is told of the gap', async (t) => {
    const h = await startHarness(t);
    const serverSockets: Socket[] = [];
    h.server.server.on('connection', (socket: Socket) => serverSockets.push(socket));
    const url = new URL(`${h.api}/logs/stream?scope=flood`);
    let received = '';
    const request: ClientRequest = httpRequest(url, { headers: auth });
    t.after(() => request.destroy());
    const response = await new Promise<IncomingMessage>((resolve) => {
      request.on('response', resolve);
      request.end();
    });
    const clientSocket = response.socket;
    response.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The client stops reading; the server keeps logging far more than the ring holds.
    response.pause();
    clientSocket.pause();
    const heapBefore = process.memoryUsage().heapUsed;
    const filler = 'x'.repeat(500);
    const total = h.logRing.maxEntries * 3;
    for (let i = 0; i < total; i++) {
      log(h, 'info', { scope: 'flood', n: i, filler }, 'flood');
      if (i % 1000 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    const backlog = Math.max(...serverSockets.map((s) => s.writableLength));
    const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
    const logged = total * 600;
    t.diagnostic(
      `logged ${total} entries (~${Math.round(logged / 1e6)} MB); server socket backlog ${backlog} B; heap growth ${Math.round(heapGrowth / 1e6)} MB (ring bound ${h.logRing.bytes} B)`,
    );
    assert.ok(backlog < 256 * 1024, `server-side backlog ${backlog} B`);

    // Reading again: the stream continues with a gap notice and then entries still in the ring.
    response.resume();
    clientSocket.resume();
    const deadline = Date.now() + 10_000;
    while (!/"type":"gap"/.test(received) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const gap = /"type":"gap","skipped":(\d+)/.exec(received);
    assert.ok(gap, 'a gap event');
    assert.ok(Number(gap[1]) > 0);
  });

  it('GET /log-errors lists errors since the last cleanup; POST /log-errors/cleanup needs write', async (t) => {
    const h = await startHarness(t);
    log(h, 'error', { scope: 'store' }, 'first failure');
    log(h, 'info', { scope: 'store' }, 'fine');
    log(h, 'error', { scope: 'store' }, 'second failure');
    const errors = dataOf<{ entries: Entry[]; total: number; cleared_at: number | null }>(
      await h.request('GET', '/log-errors', { token: READ_TOKEN }),
    );
    assert.deepEqual(
      errors.entries.map((e) => e.message).filter((m) => m.endsWith('failure')),
      ['second failure', 'first failure'],
    );
    assert.ok(errors.total >= 2);
    assert.equal(errors.cleared_at, null);
    assert.equal((await h.request('POST', '/log-errors/cleanup', { token: READ_TOKEN })).status, 403);
    const cleaned = dataOf<{ removed: number }>(await h.request('POST', '/log-errors/cleanup', { token: WRITE_TOKEN }));
    assert.ok(cleaned.removed >= 2);
    const after = dataOf<{ entries: Entry[]; total: number; cleared_at: number | null }>(
      await h.request('GET', '/log-errors', { token: READ_TOKEN }),
    );
    assert.deepEqual([after.entries.length, after.total], [0, 0]);
    assert.equal(typeof after.cleared_at, 'number');
    // The log itself still has them.
    const kept = dataOf<{ entries: Entry[] }>(
      await h.request('GET', '/logs', { token: READ_TOKEN, query: { q: 'failure' } }),
    );
    assert.equal(kept.entries.length, 2);
  });
});
