/**
 * bench:log-stream — a console client that follows GET /logs/stream and reads nothing while the
 * service logs 1,000 lines of about 600 bytes per second (Chorus started with startService on a
 * temporary SQLite project, the client a raw HTTP request on loopback that pauses its socket).
 * Measured every 5 s: the server's backlog on that socket (what it has queued for the client)
 * and the heap after a full GC, so a stream that buffered for a slow client would show growth.
 * Then the client reads again and must get a `gap` event for what left the log meanwhile.
 *
 *   npm run bench:log-stream [-- --quick] [--seconds 60]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { request, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startService } from '../src/app/service.ts';
import { freePort } from '../test/support/chorus-process.ts';
import { fmt, formatTable } from './lib/table.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const { values } = parseArgs({ options: { quick: { type: 'boolean' }, seconds: { type: 'string' } } });
const seconds = Number(values.seconds ?? (values.quick ? 10 : 60));
const TOKEN = 'bench-log-stream-token-not-secret';
const mb = (bytes: number) => bytes / (1024 * 1024);

const dir = await mkdtemp(join(tmpdir(), 'chorus-bench-log-stream-'));
const port = await freePort();
const service = await startService({
  projectDir: dir,
  env: { CHORUS_PORT: String(port), CHORUS_CONSOLE_TOKEN: TOKEN },
  logDestination: new Writable({ write: (_c, _e, done) => done() }),
});
const sockets: Socket[] = [];
service.server.server.on('connection', (socket: Socket) => sockets.push(socket));
const response = await new Promise<IncomingMessage>((resolve) => {
  const req = request(`${service.consoleUrl}api/logs/stream`, { headers: { 'x-chorus-token': TOKEN } }, resolve);
  req.end();
});
let received = '';
response.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
await new Promise((resolve) => setTimeout(resolve, 200));
response.pause();
response.socket.pause();

gc();
const heapStart = process.memoryUsage().heapUsed;
const filler = 'x'.repeat(500);
const rows: string[][] = [];
let logged = 0;
let maxBacklog = 0;
let maxHeapGrowth = 0;
const started = Date.now();
let nextSample = 5000;
while (Date.now() - started < seconds * 1000) {
  for (let i = 0; i < 100; i++) service.logger.info({ scope: 'bench', n: logged++, filler }, 'a line nobody reads');
  await new Promise((resolve) => setTimeout(resolve, 100));
  const elapsed = Date.now() - started;
  if (elapsed >= nextSample) {
    nextSample += 5000;
    gc();
    const backlog = Math.max(...sockets.map((s) => s.writableLength));
    const growth = process.memoryUsage().heapUsed - heapStart;
    maxBacklog = Math.max(maxBacklog, backlog);
    maxHeapGrowth = Math.max(maxHeapGrowth, growth);
    rows.push([`${Math.round(elapsed / 1000)}`, `${logged}`, `${backlog}`, fmt(mb(growth), 2)]);
  }
}
response.socket.resume();
response.resume();
const deadline = Date.now() + 10_000;
while (!received.includes('"type":"gap"') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
const gap = /"type":"gap","skipped":(\d+)/.exec(received);
console.log(formatTable(['s', 'lines logged', 'server backlog (B)', 'heap growth after GC (MB)'], rows));
console.log(
  `RESULT bench:log-stream seconds=${seconds} lines=${logged} max_backlog_bytes=${maxBacklog} ` +
    `max_heap_growth_mb=${fmt(mb(maxHeapGrowth), 2)} gap_skipped=${gap?.[1] ?? 'none'}`,
);
response.destroy();
await service.stop();
await rm(dir, { recursive: true, force: true });
