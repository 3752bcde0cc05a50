/**
 * `chorus serve` runs the service in a child process and watches it (docs/guide/updates.md): a restart
 * asked for by the service (after an update) stops the child and starts it again at once, from the
 * release folder's `current` link when there is one, so the new version runs; an unexpected exit
 * starts it again after a back-off (1 s, doubling up to 60 s, back to 1 s after a minute of
 * running); SIGTERM or SIGINT is passed on and the supervisor exits with the child's code. Under a
 * container a restart request ends the supervisor with RESTART_EXIT_CODE instead, and the
 * container's restart policy starts the new image or folder. A configuration error (exit 2) is not
 * retried. The child stops itself when the supervisor goes away (its IPC channel closes).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** The supervisor's exit code when a container must restart it. */
export const RESTART_EXIT_CODE = 75;
/** Set in the child's environment. */
export const SUPERVISED_ENV = 'CHORUS_SUPERVISED';
/** A usage or configuration error: starting again would fail the same way. */
const USAGE_ERROR = 2;
export const RESTART_MESSAGE = 'chorus:restart';

export interface RestartRequest {
  type: typeof RESTART_MESSAGE;
  /** Under a container: exit for the container to restart instead of restarting here. */
  container: boolean;
}

export interface SupervisorOptions {
  /** The program and arguments to run, asked again before each start. */
  program: () => { command: string; args: string[] };
  env: Readonly<Record<string, string | undefined>>;
  log: (level: 'info' | 'warn' | 'error', message: string) => void;
  backoff?: { firstMs: number; maxMs: number; healthyMs: number };
  /** Before a requested restart, so that the answer asking for it reaches its client. */
  graceMs?: number;
  /**
   * Waits out a back-off; resolves early when `signal` aborts (a stop). Default a timer; a test
   * passes its own to check the schedule without waiting on the wall clock.
   */
  wait?: (ms: number, signal: AbortSignal) => Promise<void>;
}

const waitTimer = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

const DEFAULT_BACKOFF = { firstMs: 1000, maxMs: 60_000, healthyMs: 60_000 };

/** Runs the child until the supervisor is told to stop; resolves with the exit code to use. */
export async function supervise(options: SupervisorOptions): Promise<number> {
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  let delay = backoff.firstMs;
  let stopping: NodeJS.Signals | null = null;
  let child: ChildProcess | null = null;
  const stopped = new AbortController();
  const wait = options.wait ?? waitTimer;

  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      options.log('warn', `second ${signal}: killing the service`);
      child?.kill('SIGKILL');
      return;
    }
    stopping = signal;
    child?.kill(signal);
    stopped.abort();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    for (;;) {
      const { command, args } = options.program();
      const started = Date.now();
      let restart: RestartRequest | null = null;
      child = spawn(command, args, {
        env: { ...options.env, [SUPERVISED_ENV]: '1' },
        stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
        // Its own process group: a terminal's Ctrl-C reaches the supervisor only, which passes it on once.
        detached: true,
      });
      child.on('message', (message: unknown) => {
        if ((message as { type?: unknown } | null)?.type !== RESTART_MESSAGE || restart || stopping) return;
        restart = message as RestartRequest;
        const running = child;
        setTimeout(() => running?.kill('SIGTERM'), options.graceMs ?? 500);
      });
      const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
      child = null;
      if (stopping) return code ?? 1;
      const request = restart as RestartRequest | null;
      if (request) {
        if (request.container) {
          options.log('warn', `restart requested: exiting with ${RESTART_EXIT_CODE} for the container to restart`);
          return RESTART_EXIT_CODE;
        }
        options.log('info', 'restart requested: starting the service again');
        delay = backoff.firstMs;
        continue;
      }
      if (code === USAGE_ERROR) return USAGE_ERROR;
      if (Date.now() - started >= backoff.healthyMs) delay = backoff.firstMs;
      options.log(
        'error',
        `the service exited unexpectedly (${signal ?? `code ${code}`}); starting it again in ${delay} ms`,
      );
      await wait(delay, stopped.signal);
      if (stopping) return 0;
      delay = Math.min(delay * 2, backoff.maxMs);
    }
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}
