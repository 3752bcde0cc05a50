/**
 * Child processes for benchmarks: start one, wait for the line announcing its URL, keep its output
 * drained, and stop it (SIGTERM, then SIGKILL after 10 s).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

export interface Child {
  process: ChildProcess;
  url: string;
  port: number;
  /** SIGTERM and wait for the exit (SIGKILL after 10 s). Idempotent. */
  stop(): Promise<void>;
}

/** Starts `node <args>` and resolves once its output matches `pattern` (group 1 is the URL). */
export async function startChild(
  args: string[],
  env: Record<string, string>,
  pattern: RegExp,
  /** Told everything it writes after it started (for counting log lines). */
  onOutput?: (text: string) => void,
  /** How long it may take to start (a loaded machine needs more than the usual 30 s). */
  startTimeoutMs = 30_000,
): Promise<Child> {
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`child did not start:\n${output}`)), startTimeoutMs);
      const onData = (chunk: Buffer) => {
        output += chunk.toString('utf8');
        const match = pattern.exec(output);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`child exited (${code}) before starting:\n${output}`));
      });
    });
    // Keep draining its output so the pipe never fills.
    for (const stream of [child.stdout, child.stderr]) {
      stream?.removeAllListeners('data');
      if (onOutput) stream?.on('data', (chunk: Buffer) => onOutput(chunk.toString('utf8')));
      else stream?.resume();
    }
    return { process: child, url, port: Number(new URL(url).port), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A `chorus hub` child on a free loopback port with its policy limits off; `env` picks its database. */
export function startHubChild(env: Record<string, string>): Promise<Child> {
  return startChild(
    ['--import', 'tsx', MAIN, 'hub', '--log-level', 'info'],
    {
      CHORUS_HUB_HOST: '127.0.0.1',
      CHORUS_HUB_PORT: '0',
      CHORUS_HUB_READ_PER_MINUTE: '0',
      CHORUS_HUB_CONTRIBUTIONS_PER_DAY: '0',
      CHORUS_HUB_ENROLL_PER_IP_PER_MINUTE: '0',
      CHORUS_HUB_ENROLL_PER_IP_PER_HOUR: '0',
      CHORUS_HUB_ENROLL_PER_MINUTE: '0',
      CHORUS_HUB_CONTRIBUTIONS_PER_MINUTE: '0',
      ...env,
    },
    /community hub listening at (http:\/\/[^"\s]+)/,
  );
}
