/**
 * Fixed limits of the hub, with units in their names (docs/rules.md#style-limits). Configurable values (body
 * size, string lengths, answers per insert, policy defaults) live in the `hub` config section.
 */

/** Issued corpus tokens: this prefix plus this many random bytes, base64url (docs/rules.md#hub-protocol). */
export const TOKEN_PREFIX = 'pc_';
export const TOKEN_RANDOM_BYTES = 32;

/** A stored answer keeps at most this many distinct messages; later ones are not added. */
export const STORED_MESSAGES_PER_ANSWER_MAX = 32;
/** A contributed answer may carry at most this many messages (400 beyond). */
export const CONTRIBUTED_MESSAGES_PER_ANSWER_MAX = 1000;
/** A context read returns at most this many answers (the most counted first). */
export const CONTEXT_ANSWERS_MAX = 500;
/** Contributed counts, and hot-word scores, are capped here so one deployment cannot dominate. */
export const COUNT_MAX = 1_000_000;

/** Hot words (docs/rules.md#hub-protocol). */
export const HOT = {
  /** Items one snapshot upload may carry (400 beyond). */
  uploadItemsMax: 40,
  limitMin: 5,
  limitMax: 80,
  limitDefault: 40,
  /** Answers shown per hot keyword (pool and recent). */
  answersPerItem: 3,
  /** Answers fetched per candidate keyword, so that ones with no displayable text can be skipped. */
  answerCandidatesPerItem: 8,
  /** Fleet mode sums uploads newer than this. */
  fleetWindowSec: 86_400,
  /** Cache-Control max-age of GET /v1/corpus/hot. */
  cacheMaxAgeSec: 120,
  /** Shortest interval between two POST /v1/corpus/hot of one deployment (429 sooner). */
  uploadMinIntervalSec: 60,
} as const;

/** `recent` hot words: the window of each period. */
export const HOT_PERIOD_SEC = { day: 86_400, week: 604_800, month: 2_592_000 } as const;

/** Rate windows: reads per minute, contributions per UTC day, address limits per minute and hour. */
export const READ_WINDOW_SEC = 60;
export const CONTRIBUTE_WINDOW_SEC = 86_400;
export const MINUTE_SEC = 60;
export const HOUR_SEC = 3600;
/**
 * In-memory rate windows kept at most (docs/hub.md#rates): beyond, the oldest keys are dropped.
 * A dropped key starts a fresh window, so an attacker spraying addresses costs memory bounded here.
 */
export const RATE_KEYS_MAX = 100_000;

/** The contributor that answers stored before agreement (migration 0002) are credited to. */
export const LEGACY_CONTRIBUTOR = 'legacy';

/** Housekeeping, run by every hub process (idempotent): hot uploads past retention. */
export const HOUSEKEEPING_INTERVAL_MS = 10 * 60_000;
/** Hot snapshot rows older than this are deleted (no mode reads them any more). */
export const HOT_SNAPSHOT_RETENTION_SEC = 31 * 86_400;

/** A PoolTimeoutError answers 503 with this Retry-After. */
export const BUSY_RETRY_AFTER_SEC = 2;

/** Public statistics (GET /v1/stats, /v1/stats/corpus; docs/rules.md#hub-protocol). */
export const STATS = {
  /** A deployment whose last heartbeat is younger than this counts as online. */
  onlineTtlSec: 900,
  /** "Recent" enrollments: within this many seconds. */
  recentSec: 86_400,
  /** Cache-Control max-age of both routes. */
  cacheMaxAgeSec: 30,
} as const;
