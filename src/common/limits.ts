/**
 * Every threshold and fixed limit of the service, with its unit in the name (docs/rules.md#style-limits).
 * Configurable values (keys with defaults and bounds) live in src/config; these are constants.
 * Pressure thresholds compare with `>=` (docs/rules.md#store-pressure).
 */
export const POOL_PRESSURE = {
  /** Reply lookups (repeater and the local snapshot) are skipped at or above this. */
  replySkip: 0.55,
  /** Remote reads on the hot path are gated at this. */
  remoteHotPathGate: 0.7,
  /** Remote work in the background is gated at this (stricter than the hot path). */
  remoteBackgroundGate: 0.55,
  /** Prefetch is not scheduled at or above this. */
  prefetchGate: 0.15,
  /** The learn worker waits at or above this (docs/rules.md#learn-queue); the enqueue never reads it. */
  learnWorkerWait: 0.25,
  /** Mirror enqueue and backfill items are dropped at or above this. */
  mirrorDrop: 0.78,
} as const;

/**
 * The learn worker's batches (docs/rules.md#learn-write): at most `max` pairs per unit of work;
 * a batch smaller than that waits `lingerMs` for more before it is written. SQLite runs a batch
 * synchronously, holding the event loop, so its bound is smaller (`sqliteMax`).
 */
export const LEARN_BATCH = { max: 256, sqliteMax: 64, lingerMs: 2 } as const;

/** The share of the pool the prefetch workers may hold (docs/rules.md#pool-cap). */
export const PREFETCH_POOL_SHARE = 0.05;
/** After a pool-timeout error a key's reply queries are skipped for this long. */
export const DB_FAILURE_NEGATIVE_CACHE_MS = 2000;

/** Snapshot caps are tightened for very short keys (by character length of the keywords). */
export const REPLY_SHORT_KEY_CAPS = [
  { maxChars: 2, messages: 6, answers: 48 },
  { maxChars: 3, messages: 8, answers: 64 },
] as const;

/** SQLite: a write is checkpointed from the WAL into the database file this long after it (at most). */
export const SQLITE_CHECKPOINT_INTERVAL_MS = 200;

/**
 * SQLite: a WAL file larger than this is cut back to it by the first commit after a checkpoint
 * has emptied it (a burst can grow it to hundreds of MB, and SQLite otherwise reuses the file at
 * its largest size).
 */
export const SQLITE_WAL_MAX_BYTES = 64 * 1024 * 1024;

/** SQLite: the window over which busy time is measured for pool pressure. */
export const SQLITE_PRESSURE_WINDOW_MS = 1000;

/** Bulk store work is cut into chunks so that no synchronous SQLite call holds the loop long. */
export const STORE_CHUNK = {
  /** Ids scanned per delete_expired / find_for_cleanup step (bounds the work of one call). */
  scanIds: 4000,
  /** Ids of the first delete_expired step (it grows or shrinks to the time budget from there). */
  deleteIds: 256,
  /** Contexts fully loaded per find_for_cleanup page. */
  cleanupPage: 200,
  /** Answers whose messages are loaded per find_for_cleanup step (it adapts from there). */
  cleanupMessageAnswers: 500,
  /** Answers upserted per replace_answers transaction. */
  replaceAnswers: 250,
  /** Orphan answer ids deleted per statement in replace_answers. */
  orphanDelete: 1000,
  /** Answers, messages and bans inserted per statement in save/insert. */
  insertRows: 200,
  /** Reply-usage rows upserted per unit of work when the buffer flushes. */
  usageRows: 250,
} as const;

/** Lookups slower than this are logged (rate limited), docs/rules.md#slow-log. */
export const SLOW_PATH_MS = { find: 80, exists: 30 } as const;

/** The learning fallback's existence cache (docs/rules.md#cache-exists). */
export const EXISTENCE_CACHE = { ttlMs: 45_000, max: 100_000 } as const;

/** Local hot keywords (docs/rules.md#local-hot): clamps and the answer message cut. */
export const LOCAL_HOT_KEYWORDS = {
  limitMin: 5,
  limitMax: 80,
  limitDefault: 40,
  answersMin: 1,
  answersMax: 8,
  answersDefault: 3,
  /** A message longer than this many characters (code points) is cut... */
  messageMaxChars: 120,
  /** ...to this many, followed by '…'. */
  messageCutChars: 117,
} as const;

/**
 * What the corpus keeps (docs/guide/troubleshooting.md#limits): a pair whose answer (its raw CQ form) or whose
 * keywords are longer is not learned and counted (`learning.tooLong`), and a message whose
 * keywords are longer is never looked up. The corpus is of short replies; a paragraph is not one.
 * A message that is not plain text has its raw CQ form as keywords, so the two limits are equal:
 * a flood of 40 QQ faces (640 characters, a classic) learns like any other answer (keys are
 * stored and looked up by hash, docs/rules.md#store-keys; the hub accepts 2,000 too).
 */
export const CORPUS_TEXT_LIMITS = { answerMaxChars: 2000, keywordsMaxChars: 2000 } as const;

/**
 * A corpus file's line (one context) is read up to this many bytes; a longer one is dropped as it
 * arrives and counted (docs/rules.md#import-limits). A context within the text limits above needs
 * thousands of the longest answers to come near it.
 */
export const CORPUS_FILE_LINE_MAX_BYTES = 16 * 1024 * 1024;
