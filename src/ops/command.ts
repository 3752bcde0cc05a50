/**
 * Runs an external program (git, a bootstrap script) for a long operation: no shell, output split
 * into lines as it arrives (carriage-return progress lines too, terminal colour codes removed),
 * a timeout and an abort signal that end the whole process group, and a bounded tail of the output
 * for the result. The run ends when the program exits, not when its output pipes close: a script
 * that starts a daemon in the background leaves the pipes open in that daemon.
 */
import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';

export interface CommandOptions {
  cwd: string;
  /** The child's whole environment; default the parent's. */
  env?: Readonly<Record<string, string | undefined>>;
  signal?: AbortSignal;
  timeoutMs: number;
  /** Each output line, stdout and stderr alike, without its line end. */
  onLine?: (line: string) => void;
  /** How long to wait for the pipes after the exit before letting go of them. */
  outputGraceMs?: number;
  /** Characters of output kept for the result. */
  tailChars?: number;
}

export interface CommandResult {
  /** Exit code; null when the program did not start or was ended by a signal. */
  code: number | null;
  timedOut: boolean;
  aborted: boolean;
  /** Why the program could not be started (e.g. not installed). */
  startError: string | null;
  /** The last `tailChars` characters of the output, lines joined with "\n". */
  tail: string;
}

const DEFAULT_GRACE_MS = 300;
const DEFAULT_TAIL_CHARS = 8000;
/** A line longer than this is cut (a binary blob or a progress bar without line ends). */
export const MAX_LINE_CHARS = 4000;
/** After SIGTERM, the group gets this long before SIGKILL. */
const KILL_GRACE_MS = 2000;

// CSI and OSC escape sequences (colours, cursor moves, window titles).
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

/** Splits a byte stream into text lines at \n, \r\n or \r. */
export class LineSplitter {
  readonly #decoder = new StringDecoder('utf8');
  #partial = '';

  constructor(private readonly emit: (line: string) => void) {}

  push(chunk: Buffer): void {
    this.#take(this.#decoder.write(chunk));
  }

  end(): void {
    this.#take(this.#decoder.end());
    if (this.#partial !== '') this.#emitLine(this.#partial);
    this.#partial = '';
  }

  #take(text: string): void {
    const parts = (this.#partial + text).split(/\r\n|\r|\n/);
    this.#partial = parts.pop() ?? '';
    for (const part of parts) this.#emitLine(part);
    while (this.#partial.length > MAX_LINE_CHARS) {
      this.#emitLine(this.#partial.slice(0, MAX_LINE_CHARS));
      this.#partial = this.#partial.slice(MAX_LINE_CHARS);
    }
  }

  #emitLine(raw: string): void {
    const line = raw.replace(ANSI, '').trimEnd();
    if (line !== '') this.emit(line.slice(0, MAX_LINE_CHARS));
  }
}

export function runCommand(program: string, args: readonly string[], options: CommandOptions): Promise<CommandResult> {
  const tailChars = options.tailChars ?? DEFAULT_TAIL_CHARS;
  let tail = '';
  const onLine = (line: string) => {
    tail = `${tail}${tail === '' ? '' : '\n'}${line}`;
    if (tail.length > tailChars * 2) tail = tail.slice(-tailChars);
    options.onLine?.(line);
  };
  const finishTail = () => tail.slice(-tailChars);

  return new Promise<CommandResult>((resolve) => {
    if (options.signal?.aborted) {
      resolve({ code: null, timedOut: false, aborted: true, startError: null, tail: '' });
      return;
    }
    const child = spawn(program, [...args], {
      cwd: options.cwd,
      ...(options.env ? { env: options.env as NodeJS.ProcessEnv } : {}),
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so a timeout or an abort also ends what the program started.
      detached: true,
    });
    let timedOut = false;
    let aborted = false;
    let killTimer: NodeJS.Timeout | undefined;
    const killGroup = () => {
      signalGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS);
      killTimer.unref();
    };
    const timeout = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const splitters = [child.stdout, child.stderr].map((stream) => {
      const splitter = new LineSplitter(onLine);
      const ended = new Promise<void>((done) => {
        stream.on('data', (chunk: Buffer) => splitter.push(chunk));
        stream.on('end', () => done());
        stream.on('error', () => done());
        stream.on('close', () => done());
      });
      return { stream, splitter, ended };
    });

    let settled = false;
    const settle = (result: Omit<CommandResult, 'tail'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timeout);
      clearTimeout(killTimer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ ...result, tail: finishTail() });
    };

    child.on('error', (error) => {
      settle({ code: null, timedOut, aborted, startError: error.message });
    });
    child.on('exit', (code) => {
      const grace = new Promise<void>((done) => setTimeout(done, options.outputGraceMs ?? DEFAULT_GRACE_MS).unref());
      void Promise.race([Promise.all(splitters.map((s) => s.ended)), grace]).then(() => {
        for (const { stream, splitter } of splitters) {
          splitter.end();
          // A daemon started by the program may hold the pipe: stop reading it.
          stream.destroy();
        }
        settle({ code, timedOut, aborted, startError: null });
      });
    });
  });
}

/**
 * The environment for a program Chorus runs on someone else's behalf (git, the PostgreSQL tools,
 * the AI bootstrap): the process's own, without Chorus's settings, which hold its tokens and
 * database URL (docs/rules.md#child-env).
 */
export function childEnvironment(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(env).filter(([key]) => !key.startsWith('CHORUS_') && !key.startsWith('LLM_CORPUS_')),
  );
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}
