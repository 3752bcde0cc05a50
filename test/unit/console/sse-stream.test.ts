/**
 * SseStream's heartbeat ends a client that reads nothing (docs/guide/troubleshooting.md#limits): over a real loopback
 * socket, a client that stops reading is ended once its socket stayed full for `stallMs`, while a
 * client that keeps reading the same endless stream stays open.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, get, type IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { SseStream } from '../../../src/console/sse/sse-stream.ts';
import { streamLines } from '../../../src/console/sse/line-stream.ts';
import type { LineSource } from '../../../src/ops/logs/index.ts';

async function until(what: string, check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('SseStream and a dead client', () => {
  it('ends a stream whose client stopped reading, once the socket stayed full for stallMs', async (t) => {
    const line = 'z'.repeat(1000);
    const endless: LineSource = {
      async read() {
        return { lines: Array.from({ length: 100 }, () => ({ text: line })), more: true };
      },
    };
    const streams: SseStream[] = [];
    const server = createServer((_request, response) => {
      // The reading client shares this process's event loop: on a busy machine a 300 ms stall
      // bound ended it too (a CI run at concurrency 3), and once a 2 s one (the unit suite beside
      // two browser files). Five seconds keeps the test about the silent client alone.
      const sse = new SseStream(response, { heartbeatMs: 100, stallMs: 5_000 });
      streams.push(sse);
      sse.open();
      void streamLines(sse, endless, {
        pollMs: 10,
        ready: {},
        lineEvent: (entry) => ({ line: entry.text }),
        errorEvent: (error) => ({ error }),
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    t.after(() => {
      server.closeAllConnections();
      server.close();
    });
    const address = server.address();
    if (typeof address !== 'object' || address === null) throw new Error('no address');
    const open = () => new Promise<IncomingMessage>((resolve) => get(`http://127.0.0.1:${address.port}/`, resolve));

    const dead = await open();
    dead.pause();
    const alive = await open();
    let received = 0;
    alive.on('data', (chunk: Buffer) => (received += chunk.length));
    await until('both streams', () => streams.length === 2);
    const [deadStream, aliveStream] = streams as [SseStream, SseStream];
    await until('the silent client to be ended', () => deadStream.closed);
    assert.equal(aliveStream.closed, false, 'a client that reads stays connected');
    const before = received;
    await until('more data for the reading client', () => received > before);
    alive.destroy();
    dead.destroy();
  });
});
