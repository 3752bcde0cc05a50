/**
 * The console's fixed limits, with units in their names (docs/rules.md#style-limits). Configurable values
 * (tokens, login rate limit) live in the `console` config section.
 */

/** Read caches of the routes (docs/rules.md#style-limits, #console-cache). */
export const READ_CACHE = {
  corpusStatus: { ttlMs: 15_000, staleMs: 90_000 },
  localCorpusHot: { ttlMs: 60_000, staleMs: 180_000 },
  communityCorpusHot: { ttlMs: 120_000, staleMs: 300_000 },
  communityStats: { ttlMs: 30_000, staleMs: 120_000 },
  /** Entries kept at most; the oldest is dropped first (keys include a group id and a limit). */
  maxEntries: 512,
} as const;

/** The session cookie lives this long (docs/rules.md#console-auth: 72 h). */
export const SESSION_TTL_SEC = 72 * 3600;

export const SESSION_COOKIE = 'chorus_console_session';
export const TOKEN_HEADER = 'x-chorus-token';

/** Longest token accepted anywhere; longer input is refused before any hashing. */
export const TOKEN_MAX_CHARS = 512;

/** Client addresses tracked by the login limiter at most (older windows are dropped first). */
export const LOGIN_LIMITER_MAX_ADDRESSES = 10_000;

/**
 * The console-wide failure budget (src/console/login-budget.ts): within the login window, failed
 * credentials from all addresses together may reach `addressesWorth` addresses' worth of the
 * per-address limit (at least `minFailures`); past it token checks are paced to one per `spacingMs`.
 */
export const LOGIN_BUDGET = { addressesWorth: 10, minFailures: 50, spacingMs: 1000 } as const;

/** The community hub's hot words: bounds of `limit` and the default (docs/rules.md#hub-protocol). */
export const HOT_LIMIT = { min: 5, max: 80, default: 40 } as const;

/** Bot config lists: at most this many entries, each at most this long. */
export const BOT_CONFIG_LIMITS = { listMax: 200, nicknameMaxChars: 32 } as const;

/**
 * Corpus moderation: page sizes, the deepest offset a page may start at (deep offsets scan), and
 * how long an action can be undone (at least a day, so a mistake noticed the next morning can be).
 */
export const MODERATION = { defaultLimit: 20, maxLimit: 100, maxOffset: 10_000, undoWindowSec: 7 * 86_400 } as const;

/** The service-log routes: page sizes, and the SSE stream's heartbeat and reconnect delay. */
export const LOG_ROUTES = {
  defaultLimit: 200,
  maxLimit: 2000,
  defaultExport: 2000,
  maxExport: 5000,
  defaultErrors: 120,
  maxErrors: 500,
  /** Entries read from the ring per step of a stream; the socket must drain before the next. */
  streamBatch: 100,
  heartbeatMs: 15_000,
  retryMs: 3000,
} as const;

/**
 * Event streams (SSE) open at once, per client address and in all (src/console/sse/stream-slots.ts;
 * 429 `too_many_streams` past them); a stream whose socket read nothing for `stallMs` is ended.
 */
export const EVENT_STREAMS = { perClient: 8, total: 64, stallMs: 60_000, retryAfterSec: 5 } as const;

/** Dashboards: read caches, the overview's deadline per part, the nickname cache. */
export const DASHBOARD = {
  systemCache: { ttlMs: 1000, staleMs: 10_000 },
  overviewCache: { ttlMs: 1000, staleMs: 5000 },
  sliceTimeoutMs: 2000,
  nicknameTtlMs: 10 * 60_000,
  nicknameTimeoutMs: 1500,
  /** GET /console-daily-stats: days per answer, rows per answer. */
  dailyMaxDays: 366,
  dailyMaxRows: 5000,
} as const;
