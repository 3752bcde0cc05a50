/**
 * AI service logs, looked for in this order: a local file (confined, see log-files.ts), then the
 * AI service's own `GET {base_url}{api_prefix}/ops/logs` with the Bearer token, then a hint that
 * names everything that was tried. The same order opens a live stream: a local file is followed
 * by byte offset (resumable), the remote endpoint is polled for what is new.
 */
import { FileFollower, newLines, tailFile, type LineBatch, type LineSource } from '../logs/index.ts';
import { aiApiUrl, callAiRaw } from './ai-http.ts';
import type { AiExtensionConfig } from './config-file.ts';
import { readLogAnswer } from './log-answer.ts';
import { LOG_STREAM_CHUNK_BYTES, LOG_STREAM_INITIAL_BYTES, LOG_TAIL_MAX_BYTES, REMOTE_STREAM_LINES } from './limits.ts';
import { PATH_REFUSED, resolveLogFile, type LogFolders, type LogKind } from './log-files.ts';

export type LogSourceKind = 'local' | 'remote' | 'none';

/**
 * Why no log lines came, as a code the console words (the `error` text beside it stays for the API
 * and the service log): a path outside the allowed folders, a local file that cannot be read, the
 * AI service refusing the token, nothing found anywhere, or a followed AI service that went quiet.
 */
export const LOG_ERROR_CODES = ['path_refused', 'unreadable', 'token_refused', 'not_found', 'remote_stopped'] as const;
export type LogErrorCode = (typeof LOG_ERROR_CODES)[number];

export interface LogTail {
  kind: LogKind;
  /** The file read, the remote path it reported, or what was refused; '' when nothing was found. */
  path: string;
  lines: string[];
  error: string | null;
  /** The code of `error` when no lines came; null with lines (a remote warning keeps only `error`). */
  errorCode: LogErrorCode | null;
  source: LogSourceKind;
  /** Local files and the remote URL that were tried, in order. */
  tried: string[];
}

export const TOKEN_REFUSED_HINT =
  'the AI service refused the Bearer token (HTTP 401): make the token in the AI extension settings match CHORUS_AI_API_TOKEN on the AI side';

interface RemoteLogs {
  ok: boolean;
  lines: string[];
  path: string;
  error: string | null;
  /** The refused token, which the caller reports as such. */
  unauthorised: boolean;
  url: string;
}

export async function fetchRemoteLogs(
  fetchImpl: typeof fetch,
  config: AiExtensionConfig,
  kind: LogKind,
  lines: number,
): Promise<RemoteLogs> {
  const url = `${aiApiUrl(config.base_url, config.api_prefix, '/ops/logs')}?kind=${encodeURIComponent(kind)}&n=${lines}`;
  const response = await callAiRaw(fetchImpl, {
    method: 'GET',
    url,
    token: config.token,
    timeoutMs: config.timeout_sec * 1000,
  });
  const failed = (error: string, unauthorised = false): RemoteLogs => ({
    ok: false,
    lines: [],
    path: url,
    error,
    unauthorised,
    url,
  });
  if (response.status === null) return failed(response.error ?? 'no answer');
  if (response.status === 401 || response.status === 403) return failed(TOKEN_REFUSED_HINT, true);
  if (response.status < 200 || response.status >= 300) return failed(`HTTP ${response.status}`);
  if (response.error !== null) return failed(response.error);
  // Only the last `lines` lines are kept: an AI service may answer more than it was asked.
  const answer = await readLogAnswer(response.body.toString('utf8'), lines);
  if (!answer.object) return failed('the answer is not a JSON object');
  if (answer.error !== null && answer.lines.length === 0) return failed(answer.error);
  return { ok: true, lines: answer.lines, path: answer.path ?? url, error: answer.error, unauthorised: false, url };
}

function nothingFoundHint(tried: readonly string[], remote: RemoteLogs): string {
  const local = tried.length > 0 ? tried.join(', ') : 'no candidate paths';
  return (
    `no AI log file on this machine (tried ${local}) and the AI service did not provide it ` +
    `(GET ${remote.url}: ${remote.error ?? 'no answer'}). Check that the AI service is running, reachable ` +
    'from Chorus and serves /api/ops/logs, or set the log file path in the AI extension settings.'
  );
}

export async function readLogTail(
  fetchImpl: typeof fetch,
  config: AiExtensionConfig,
  folders: LogFolders,
  kind: LogKind,
  lines: number,
): Promise<LogTail> {
  const resolved = await resolveLogFile(config, kind, folders);
  if (resolved.status === 'refused') {
    const refused = { error: PATH_REFUSED, errorCode: 'path_refused' as const };
    return { kind, path: resolved.path, lines: [], ...refused, source: 'none', tried: [resolved.path] };
  }
  if (resolved.status === 'file') {
    try {
      const tail = await tailFile(resolved.path, { maxBytes: LOG_TAIL_MAX_BYTES, lines });
      return {
        kind,
        path: resolved.path,
        lines: tail,
        error: null,
        errorCode: null,
        source: 'local',
        tried: [resolved.path],
      };
    } catch (error) {
      const message = `cannot read ${resolved.path}: ${(error as Error).message}`;
      const unreadable = { error: message, errorCode: 'unreadable' as const };
      return { kind, path: resolved.path, lines: [], ...unreadable, source: 'local', tried: [resolved.path] };
    }
  }
  const remote = await fetchRemoteLogs(fetchImpl, config, kind, lines);
  const tried = [...resolved.tried, remote.url];
  if (remote.ok) {
    return {
      kind,
      path: remote.path,
      lines: remote.lines,
      error: remote.error,
      errorCode: null,
      source: 'remote',
      tried,
    };
  }
  if (remote.unauthorised) {
    const refused = { error: remote.error, errorCode: 'token_refused' as const };
    return { kind, path: remote.url, lines: [], ...refused, source: 'remote', tried };
  }
  const nothing = { error: nothingFoundHint(resolved.tried, remote), errorCode: 'not_found' as const };
  return { kind, path: '', lines: [], ...nothing, source: 'none', tried };
}

export type LogStreamPlan =
  | {
      readonly status: 'refused' | 'unavailable';
      readonly path: string;
      readonly error: string;
      readonly code: LogErrorCode;
      /** What was tried before giving up (local files, then the remote URL). */
      readonly tried: readonly string[];
    }
  | {
      readonly status: 'open';
      readonly source: LineSource;
      readonly origin: 'local' | 'remote';
      readonly path: string;
      readonly pollMs: number;
    };

export interface StreamTiming {
  localPollMs: number;
  remotePollMs: number;
}

/** What a live stream of `kind` follows; `resumeAt` is a byte offset a client saw last. */
export async function planLogStream(
  fetchImpl: typeof fetch,
  config: AiExtensionConfig,
  folders: LogFolders,
  kind: LogKind,
  resumeAt: number | null,
  timing: StreamTiming,
): Promise<LogStreamPlan> {
  const resolved = await resolveLogFile(config, kind, folders);
  if (resolved.status === 'refused') {
    return {
      status: 'refused',
      path: resolved.path,
      error: PATH_REFUSED,
      code: 'path_refused',
      tried: [resolved.path],
    };
  }
  if (resolved.status === 'file') {
    const follower = new FileFollower(resolved.path, {
      resumeAt,
      initialBytes: LOG_STREAM_INITIAL_BYTES,
      chunkBytes: LOG_STREAM_CHUNK_BYTES,
    });
    return { status: 'open', source: follower, origin: 'local', path: resolved.path, pollMs: timing.localPollMs };
  }
  const first = await fetchRemoteLogs(fetchImpl, config, kind, REMOTE_STREAM_LINES);
  if (!first.ok) {
    const error = first.unauthorised ? (first.error ?? TOKEN_REFUSED_HINT) : nothingFoundHint(resolved.tried, first);
    const code = first.unauthorised ? 'token_refused' : 'not_found';
    return { status: 'unavailable', path: first.url, error, code, tried: [...resolved.tried, first.url] };
  }
  const source = new RemotePoller(() => fetchRemoteLogs(fetchImpl, config, kind, REMOTE_STREAM_LINES), first.lines);
  return { status: 'open', source, origin: 'remote', path: first.url, pollMs: timing.remotePollMs };
}

/**
 * Polls the remote endpoint and passes on only the lines that are new since the previous answer
 * (see newLines); the first read passes on the answer that opened the stream. It keeps one answer:
 * at most REMOTE_STREAM_LINES lines, however many the AI service sends (fetchRemoteLogs).
 */
class RemotePoller implements LineSource {
  #previous: readonly string[] = [];
  #pending: readonly string[] | null;

  constructor(
    private readonly poll: () => Promise<RemoteLogs>,
    first: readonly string[],
  ) {
    this.#pending = first;
  }

  async read(): Promise<LineBatch> {
    let current: readonly string[];
    if (this.#pending !== null) {
      current = this.#pending;
      this.#pending = null;
    } else {
      const answer = await this.poll();
      if (!answer.ok) return { error: `the AI service stopped answering: ${answer.error ?? 'no answer'}` };
      current = answer.lines;
    }
    const fresh = newLines(this.#previous, current);
    this.#previous = current;
    return { lines: fresh.map((text) => ({ text })), more: false };
  }
}
