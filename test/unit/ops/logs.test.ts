/**
 * The log building blocks: following a file by byte offset (resume only at a line end, CRLF, a
 * line longer than a read, in-place rewrites), the new-lines diff of a capped remote answer, the
 * line splitting of program output, and the live line stream holding back its source while a
 * client does not read (over a real socket), so nothing piles up in memory.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, get, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { streamLines } from '../../../src/console/sse/line-stream.ts';
import { resumePoint, SseStream } from '../../../src/console/sse/sse-stream.ts';
import { endpointOf, isLocalHost } from '../../../src/ops/ai/endpoint.ts';
import { LineSplitter, MAX_LINE_CHARS, runCommand } from '../../../src/ops/command.ts';
import { FileFollower, newLines, type LineBatch, type LineSource } from '../../../src/ops/logs/index.ts';

async function tempFile(t: TestContext, content: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-follow-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'app.log');
  await writeFile(path, content);
  return path;
}

const follower = (path: string, resumeAt: number | null, chunkBytes = 1024) =>
  new FileFollower(path, { resumeAt, initialBytes: 64_000, chunkBytes });

async function readAll(source: FileFollower): Promise<{ id?: number; text: string }[]> {
  const out: { id?: number; text: string }[] = [];
  for (;;) {
    const batch = (await source.read()) as Extract<LineBatch, { lines: unknown }>;
    out.push(...batch.lines);
    if (!batch.more) return out;
  }
}

describe('FileFollower', () => {
  it('gives byte-offset ids, strips CRLF, holds back a partial line and cuts an endless one', async (t) => {
    const path = await tempFile(t, 'ä\r\nb\npartial');
    const source = follower(path, 0, 16);
    assert.deepEqual(await readAll(source), [
      { id: 4, text: 'ä' },
      { id: 6, text: 'b' },
    ]);
    await appendFile(path, ` end\n${'x'.repeat(40)}\n`);
    const next = await readAll(source);
    assert.deepEqual(next[0], { id: 18, text: 'partial end' });
    assert.equal(
      next
        .slice(1)
        .map((line) => line.text)
        .join(''),
      'x'.repeat(40),
      'a line longer than a read comes in pieces',
    );
    assert.equal(next.at(-1)?.id, 18 + 41);
  });

  it('resumes only at a line end; otherwise, or past the end, it restarts at 0', async (t) => {
    const path = await tempFile(t, 'one\ntwo\nthree\n');
    assert.deepEqual(
      (await readAll(follower(path, 4))).map((line) => line.text),
      ['two', 'three'],
    );
    const mid = follower(path, 5);
    assert.deepEqual(
      (await readAll(mid)).map((line) => line.text),
      ['one', 'two', 'three'],
    );
    assert.equal(mid.restarts, 1);
    assert.deepEqual(
      (await readAll(follower(path, 500))).map((line) => line.text),
      ['one', 'two', 'three'],
    );
    assert.deepEqual(await readAll(follower(path, 14)), [], 'resuming at the very end gives nothing old');
  });

  it('notices a file rewritten in place with more content than before', async (t) => {
    const path = await tempFile(t, 'aaaa\nbbbb\n');
    const source = follower(path, null);
    assert.equal((await readAll(source)).length, 2);
    await writeFile(path, 'cccc\ndddd\neeee\n');
    assert.deepEqual(
      (await readAll(source)).map((line) => line.text),
      ['cccc', 'dddd', 'eeee'],
    );
    assert.equal(source.restarts, 1);
  });

  it('a missing file reads as nothing yet', async (t) => {
    const path = await tempFile(t, '');
    await rm(path);
    assert.deepEqual(await follower(path, null).read(), { lines: [], more: false });
  });
});

describe('newLines (remote polls)', () => {
  it('finds what follows the overlap, at and below the cap', () => {
    assert.deepEqual(newLines([], ['a', 'b']), ['a', 'b']);
    assert.deepEqual(newLines(['a', 'b'], ['a', 'b', 'c']), ['c'], 'growing');
    assert.deepEqual(newLines(['a', 'b', 'c'], ['b', 'c', 'd']), ['d'], 'at the cap');
    assert.deepEqual(newLines(['a', 'b', 'c'], ['c', 'd', 'e']), ['d', 'e']);
    assert.deepEqual(newLines(['a', 'b', 'c'], ['a', 'b', 'c']), [], 'nothing new');
    assert.deepEqual(newLines(['a', 'b', 'c'], ['x', 'y', 'z']), ['x', 'y', 'z'], 'no overlap: all new');
    assert.deepEqual(newLines(['x', 'x'], ['x', 'x', 'x']), ['x'], 'repeated lines are never doubled');
    // A mark in the middle of a repetitive log, shifted: the overlap is the repeats before it.
    assert.deepEqual(newLines(['x', 'x', 'x', 'x'], ['x', 'x', 'y', 'x']), ['y', 'x']);
    assert.deepEqual(newLines(['a', 'b', 'a', 'b', 'a'], ['a', 'b', 'a', 'c']), ['c'], 'a self-overlapping prefix');
  });

  it('takes the longest overlap, as trying every length from the longest does, on many small logs', () => {
    const slowLongest = (previous: string[], next: string[]) => {
      for (let overlap = Math.min(previous.length, next.length); overlap > 0; overlap--) {
        if (previous.slice(previous.length - overlap).every((line, index) => line === next[index])) {
          return next.slice(overlap);
        }
      }
      return [...next];
    };
    // Every pair of logs of up to 6 lines over a two-line alphabet: the ambiguous cases.
    const logs: string[][] = [[]];
    for (let length = 1; length <= 6; length++) {
      for (let bits = 0; bits < 2 ** length; bits++) {
        logs.push(Array.from({ length }, (_, index) => ((bits >> index) & 1 ? 'a' : 'b')));
      }
    }
    for (const previous of logs) {
      for (const next of logs) assert.deepEqual(newLines(previous, next), slowLongest(previous, next));
    }
  });
});

describe('program output lines', () => {
  it('splits at \\n, \\r\\n and \\r, removes colour codes and blank lines, cuts long lines', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line));
    splitter.push(Buffer.from('Receiving objects:  10%\rReceiving objects: 100%\r\n\x1b[32mgreen\x1b[0m\n\n'));
    splitter.push(Buffer.from([0xe5, 0x90])); // a character split across two chunks
    splitter.push(Buffer.from([0xaf, 0x0a]));
    splitter.push(Buffer.from('y'.repeat(MAX_LINE_CHARS + 10)));
    splitter.end();
    assert.deepEqual(lines.slice(0, 4), ['Receiving objects:  10%', 'Receiving objects: 100%', 'green', '启']);
    assert.deepEqual(
      lines.slice(4).map((line) => line.length),
      [MAX_LINE_CHARS, 10],
    );
  });

  it('runCommand reports the exit code, a timeout and a program that does not exist', async () => {
    const seen: string[] = [];
    const ok = await runCommand('bash', ['-c', 'echo out; echo err >&2; exit 4'], {
      cwd: tmpdir(),
      timeoutMs: 5000,
      onLine: (line) => seen.push(line),
    });
    assert.equal(ok.code, 4);
    assert.deepEqual(seen.sort(), ['err', 'out']);
    const slow = await runCommand('bash', ['-c', 'sleep 5'], { cwd: tmpdir(), timeoutMs: 100 });
    assert.deepEqual([slow.timedOut, slow.code], [true, null]);
    const missing = await runCommand('no-such-program-here', [], { cwd: tmpdir(), timeoutMs: 1000 });
    assert.match(String(missing.startError), /ENOENT/);
  });
});

describe('AI endpoint', () => {
  it('reads host and port from a base URL and knows what is this machine', () => {
    assert.deepEqual(endpointOf('http://10.0.0.2:9100'), { host: '10.0.0.2', port: 9100 });
    assert.deepEqual(endpointOf('https://ai.example.org'), { host: 'ai.example.org', port: 443 });
    assert.deepEqual(endpointOf('http://ai.example.org'), { host: 'ai.example.org', port: 9099 });
    assert.deepEqual(endpointOf('127.0.0.1:7000'), { host: '127.0.0.1', port: 7000 });
    assert.deepEqual(endpointOf('http://[::1]:9099'), { host: '::1', port: 9099 });
    assert.equal(endpointOf(''), null);
    for (const host of ['localhost', '127.0.0.1', '127.8.9.10', '::1', '[::1]', '0.0.0.0'])
      assert.ok(isLocalHost(host), host);
    for (const host of ['10.0.0.2', 'ai.example.org', '192.168.1.5', '::ffff:10.0.0.1'])
      assert.ok(!isLocalHost(host), host);
  });

  it('takes the resume point from the query first, then the header, and only non-negative integers', () => {
    assert.equal(resumePoint(12, '40'), 12);
    assert.equal(resumePoint(undefined, '40'), 40);
    assert.equal(resumePoint(undefined, 'abc'), null);
    assert.equal(resumePoint(undefined, '-1'), null);
    assert.equal(resumePoint(undefined, undefined), null);
  });
});

describe('line stream and a client that does not read', () => {
  it('stops reading its source while the socket is full and goes on when the client reads again', async (t) => {
    let produced = 0;
    const line = 'z'.repeat(1000);
    const endless: LineSource = {
      async read() {
        produced += 100;
        return { lines: Array.from({ length: 100 }, (_, index) => ({ id: produced + index, text: line })), more: true };
      },
    };
    const server = createServer((_request, response) => {
      const sse = new SseStream(response, { heartbeatMs: 1000 });
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
    const response = await new Promise<IncomingMessage>((resolve) => get(`http://127.0.0.1:${address.port}/`, resolve));
    response.pause();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const whilePaused = produced;
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(produced, whilePaused, 'no reading while the client does not read');
    // Bounded by the socket buffers: a few megabytes, never the hundreds an unchecked loop makes.
    assert.ok(produced * 1000 < 32 * 1024 * 1024, `${produced} lines produced while paused`);
    let received = 0;
    response.on('data', (chunk: Buffer) => (received += chunk.length));
    response.resume();
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.ok(produced > whilePaused, 'reading goes on once the client reads');
    assert.ok(received > 0);
    response.destroy();
  });
});
