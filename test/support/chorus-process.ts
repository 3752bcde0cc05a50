import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { after } from 'node:test';
import { compiledMain } from './server-build.ts';

/** `chorus` as the tests start it: src/ compiled once for the whole suite (server-build.ts). */
export const CHORUS_MAIN = await compiledMain();

/** A port that was free a moment ago (the OS picks it; we close and hand it on). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return address.port;
}

export interface ChorusProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the first output line matching `pattern`, rejects after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/**
 * Every `chorus` this test file started and that still runs. A test that fails before it stops
 * its process (a wait that timed out) must not leave it behind: it would outlive the file and,
 * holding the file's pipes, keep the test run waiting. They are killed when the file's process
 * exits (the runner's --test-force-exit ends it once its tests are done).
 */
const running = new Set<ChildProcess>();
function killLeftovers(): void {
  // The whole process group: `chorus serve` supervises a child that holds the same pipes.
  for (const child of running) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  running.clear();
}
after(killLeftovers);
process.once('exit', killLeftovers);

/** How long a `chorus` may take to say something: a start on a busy 2-core machine. */
const WAIT_MS = 60_000;

/** Runs `chorus <args>` (the compiled current source) as a real child process. */
export function runChorus(args: string[], env: Record<string, string>, cwd?: string): ChorusProcess {
  const child = spawn(process.execPath, [CHORUS_MAIN, ...args], {
    cwd: cwd ?? process.cwd(),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so that a leftover is killed with the child it supervises.
    detached: true,
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let text = '';
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  const onData = (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const waiter of [...waiters]) {
      const line = text.split('\n').find((candidate) => waiter.pattern.test(candidate));
      if (line !== undefined) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    output: () => text,
    exited,
    waitFor(pattern, timeoutMs = WAIT_MS) {
      const line = text.split('\n').find((candidate) => pattern.test(candidate));
      if (line !== undefined) return Promise.resolve(line);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`timed out waiting for ${pattern}; output so far:\n${text}`)),
          timeoutMs,
        );
        waiters.push({
          pattern,
          resolve: (found) => {
            clearTimeout(timer);
            resolve(found);
          },
        });
        void exited.then(() => {
          clearTimeout(timer);
          reject(new Error(`process exited while waiting for ${pattern}; output:\n${text}`));
        });
      });
    },
  };
}
