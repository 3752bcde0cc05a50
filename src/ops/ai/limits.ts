/** Fixed limits of the AI extension, with units in their names. */

/** Bounds of the extension config (data/ai_extension.json). */
export const AI_CONFIG_BOUNDS = {
  baseUrlChars: { min: 7, max: 200 },
  apiPrefixChars: { min: 1, max: 50 },
  tokenMaxChars: 300,
  healthPathsMax: 8,
  healthPathMaxChars: 200,
  logFileMaxChars: 500,
  timeoutSec: { min: 2, max: 30, default: 8 },
} as const;

/** Where the AI service listens when nothing says otherwise. */
export const DEFAULT_AI_PORT = 9099;
export const DEFAULT_AI_BASE_URL = `http://127.0.0.1:${DEFAULT_AI_PORT}`;

/** Log tails: GET /logs reads at most this much from the end of a file. */
export const LOG_TAIL_MAX_BYTES = 256_000;
export const LOG_LINES = { min: 1, max: 2000, default: 200 } as const;
/** A live stream without a resume point starts this far before the end of the file. */
export const LOG_STREAM_INITIAL_BYTES = 64_000;
/** A live stream reads at most this much per step. */
export const LOG_STREAM_CHUNK_BYTES = 64_000;
/** Lines asked of the AI service per poll of a remote live stream. */
export const REMOTE_STREAM_LINES = 300;

/** Reading bodies of the AI service: at most this many bytes are kept. */
export const AI_RESPONSE_MAX_BYTES = 2_000_000;
/** Reading a log answer lets other work run after each this many characters (see log-answer.ts). */
export const LOG_ANSWER_SLICE_CHARS = 8000;

/** Install status: how long the external-runtime probe waits at most. */
export const EXTERNAL_PROBE_TIMEOUT_MS = 2000;

/** Git and bootstrap time limits. */
export const GIT_TIMEOUT_MS = { clone: 600_000, fetch: 300_000, local: 30_000, statusFetch: 15_000 } as const;
export const BOOTSTRAP_TIMEOUT_MS = 3_600_000;
/** Characters of bootstrap output kept in the job result. */
export const BOOTSTRAP_OUTPUT_TAIL_CHARS = 8000;

/** Progress bands of an install job (percent). */
export const INSTALL_PROGRESS = {
  cloneStart: 10,
  updateStart: 12,
  fetchedOrCloned: 40,
  bootstrapStart: 45,
  bootstrapEnd: 88,
  writeBack: 92,
} as const;

/** Timing of the live streams and caches; tests shorten them. */
export interface AiTiming {
  heartbeatMs: number;
  localPollMs: number;
  remotePollMs: number;
  /** Reconnect delay suggested to EventSource clients. */
  retryMs: number;
  /** How long an upstream check (git fetch) answer is reused by the install status. */
  updateCheckTtlMs: number;
}

export const DEFAULT_AI_TIMING: AiTiming = {
  heartbeatMs: 15_000,
  localPollMs: 750,
  remotePollMs: 1000,
  retryMs: 3000,
  updateCheckTtlMs: 60_000,
};

/** The managed checkout, inside the data folder, and the file that marks it as Chorus's own. */
export const MANAGED_RUNTIME_DIR = ['runtimes', 'ai'] as const;
export const MANAGED_MARKER = '.chorus-managed';
export const BOOTSTRAP_SCRIPT = 'scripts/ai_bootstrap.sh';
/** The extension config, inside the data folder. */
export const AI_CONFIG_FILE = 'ai_extension.json';
