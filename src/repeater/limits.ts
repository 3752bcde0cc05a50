import { EVERYWHERE_GROUP } from '../domain/activity.ts';

/**
 * The repeater's fixed limits, with units in the names (docs/rules.md#style-limits). Tunables with defaults
 * and bounds are config keys (src/config/sections/repeater.ts); these are constants.
 */
export const WINDOW = {
  /** Messages kept per group in memory (repeat detection, predecessors, recent texts). */
  messagesPerGroup: 100,
  /** Message ids (and event keys) remembered per group for duplicate detection. */
  seenIdsPerGroup: 100,
  /** The predecessor is searched among this many newest messages (docs/rules.md#learn-predecessor). */
  predecessorTail: 8,
  /** Recent topic tokens per group (docs/rules.md#rep-records). */
  topicsPerGroup: 16,
  /** Window messages whose raw text makes a low-count answer look stale (docs/rules.md#rep-reply). */
  recentMessages: 10,
  /** A group (window and reply records) untouched this long is dropped. */
  idleMs: 6 * 3600_000,
  /** How often idle groups are looked for. */
  pruneEveryMs: 600_000,
} as const;

export const REPLIES = {
  /** Reply records kept per bot and group (docs/rules.md#rep-records). */
  recordsPerBot: 100,
  /** Answer keywords of this many newest replies are not used again (docs/rules.md#rep-reply duplicate_reply). */
  recentReplyKeywords: 10,
  /** Texts of this many newest replies are not said again. */
  recentReplyTexts: 10,
  /** An answer below this count is skipped when its text is among the recent messages (docs/rules.md#rep-reply). */
  staleAnswerCount: 3,
  /** Answer weight is its count capped at this (docs/rules.md#rep-reply). */
  weightCountCap: 10,
  /** Weight added per recent-topic occurrence of an answer keyword (docs/rules.md#rep-reply topics_importance). */
  topicsImportance: 10_000,
  /** A sample starting with a nickname is kept only when addressed and longer than this (docs/rules.md#rep-reply). */
  nicknameSampleMinChars: 6,
  /** Raw keys of this length or more (long cards) are never looked up (docs/rules.md#rep-reply). */
  rawKeyMaxChars: 256,
  /** Most full-width commas a reply may have to be split (docs/rules.md#rep-reply). */
  splitMaxCommas: 3,
} as const;

export const BUNDLE_CACHE = {
  /** Entries kept (docs/rules.md#cache-bundle). */
  maxEntries: 8192,
} as const;

export const MESSAGE_LOG = {
  /** Messages waiting to be written; beyond it new ones are dropped and counted. */
  capacity: 4096,
  /** A flush starts once this many are waiting, and writes at most this many per statement batch. */
  batchSize: 256,
  /** Waiting messages are written at least this often. */
  flushEveryMs: 2000,
} as const;

export const MAINTENANCE = {
  /** Contexts older than this and below the answer threshold are deleted (docs/rules.md#maintenance). */
  expireAfterSec: 15 * 86400,
  /** find_for_cleanup's trigger threshold (docs/rules.md#maintenance). */
  cleanupTriggerThreshold: 100,
} as const;

/** The pseudo group whose blacklist applies to every group (docs/rules.md#bans). */
export const GLOBAL_BAN_GROUP = EVERYWHERE_GROUP;

/** The fleet claim on a group message (docs/rules.md#fleet-claims). */
export const FLEET_CLAIMS = {
  /** The longest a message waits for its claim. */
  waitMs: 250,
  /** The most keys one claim statement carries. */
  batchMax: 256,
  /** Expired claims are pruned about this often, by whichever process claims then. */
  pruneEveryMs: 60_000,
  /** Claims made here, remembered so a second account of this process does not ask again. */
  memoMax: 10_000,
  memoTtlMs: 60_000,
} as const;

/** Talking first when a group goes quiet (docs/repeater.md#proactive-speech; the origin's numbers). */
export const PROACTIVE = {
  /** A group needs this many window messages before its average interval means anything. */
  minWindowMessages: 10,
  /** Lines said in one go at most. */
  maxLines: 2,
  /** Chance of going on to one more line. */
  continueProbability: 0.5,
  /** Proactive lines of this many newest, per group, are not said again. */
  recentLines: 10,
  /** Groups whose recent proactive lines are remembered; the longest unspoken-in is forgotten first. */
  groupsRemembered: 10_000,
} as const;

/** Learning from a group's history (src/repeater/history-seed.ts, docs/guide/groups.md). */
export const HISTORY_SEED = {
  /** Messages a seed reads back when the operator names no depth. */
  defaultDepth: 2000,
  /** The deepest seed the console may ask for. */
  maxDepth: 20_000,
  /** Messages asked per `get_group_msg_history` call (implementations may answer fewer). */
  pageSize: 50,
  /** At least this long between two history calls of one seed, so the protocol side is not flooded. */
  pageIntervalMs: 500,
  /** Offering waits while the learning queue is fuller than this share of its pressure level. */
  learnPressureMax: 0.5,
  /** How long a seed waits before looking at the learning queue again. */
  learnWaitMs: 25,
  /** Progress is reported after this many messages learned or skipped. */
  progressEvery: 50,
} as const;
