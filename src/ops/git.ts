/**
 * git for the operations that manage checkouts (the AI runtime, later the bot's own update): never
 * prompts for credentials (a missing one fails instead of hanging a job), never runs the `ext::`
 * transport, and answers failures as values.
 */
import { execFile } from 'node:child_process';
import { childEnvironment, runCommand, type CommandResult } from './command.ts';

export interface GitRunOptions {
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
  onLine?: (line: string) => void;
}

const SAFE_CONFIG = ['-c', 'protocol.ext.allow=never'];

export class Git {
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #program: string;

  /** `env` is the whole environment git runs with (the composition root passes the process's). */
  constructor(env: Readonly<Record<string, string | undefined>>, program = 'git') {
    this.#env = {
      ...childEnvironment(env),
      GIT_TERMINAL_PROMPT: '0',
      GIT_SSH_COMMAND: env.GIT_SSH_COMMAND ?? 'ssh -o BatchMode=yes',
    };
    this.#program = program;
  }

  /** Whether git runs at all here. */
  async available(cwd: string): Promise<boolean> {
    return (await this.output(['--version'], cwd, 10_000)) !== null;
  }

  /** A long command with its output as lines (clone, fetch, merge). */
  run(args: readonly string[], options: GitRunOptions): Promise<CommandResult> {
    return runCommand(this.#program, [...SAFE_CONFIG, ...args], { ...options, env: this.#env });
  }

  /** A short command's trimmed stdout, or null when it failed. */
  output(args: readonly string[], cwd: string, timeoutMs: number): Promise<string | null> {
    return new Promise((resolve) => {
      execFile(
        this.#program,
        [...SAFE_CONFIG, ...args],
        { cwd, env: this.#env as NodeJS.ProcessEnv, timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 },
        (error, stdout) => resolve(error ? null : String(stdout).trim()),
      );
    });
  }

  /** Like `output`, but the failure's message (stderr's last line) instead of null. */
  attempt(args: readonly string[], cwd: string, timeoutMs: number): Promise<{ ok: boolean; text: string }> {
    return new Promise((resolve) => {
      execFile(
        this.#program,
        [...SAFE_CONFIG, ...args],
        { cwd, env: this.#env as NodeJS.ProcessEnv, timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 },
        (error, stdout, stderr) => {
          if (!error) resolve({ ok: true, text: String(stdout).trim() });
          else {
            const lines = String(stderr).trim().split('\n').filter(Boolean);
            resolve({ ok: false, text: lines.at(-1) ?? (error.killed ? 'timed out' : error.message) });
          }
        },
      );
    });
  }
}

/** Removes credentials from URLs in a text (`https://user:secret@host` → `https://***@host`). */
export function redactUrlCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi, '$1***@');
}
