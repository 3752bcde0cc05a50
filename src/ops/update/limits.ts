/** Time limits and caps of the update domain (tests shorten them). */
export interface UpdateTiming {
  /** Job streams: heartbeat comment and the reconnect delay suggested to EventSource clients. */
  heartbeatMs: number;
  retryMs: number;
  /** Reading the release feed. */
  feedTimeoutMs: number;
  /** A check's answer is reused this long (0: always ask the feed). */
  checkCacheMs: number;
  /** One asset download, start to end. */
  downloadTimeoutMs: number;
  maxArchiveBytes: number;
  /** What one archive may unpack to, in bytes and in members (docs/rules.md#archive-bounds). */
  maxUnpackedBytes: number;
  maxUnpackedFiles: number;
  /** The release feed's body (docs/rules.md#archive-bounds). */
  maxFeedBytes: number;
  /** `npm ci` of a version whose lockfile changed. */
  installTimeoutMs: number;
  /** `chorus migrate` of the new version. */
  migrateTimeoutMs: number;
}

export const DEFAULT_UPDATE_TIMING: UpdateTiming = {
  heartbeatMs: 15_000,
  retryMs: 3000,
  feedTimeoutMs: 15_000,
  checkCacheMs: 120_000,
  downloadTimeoutMs: 300_000,
  maxArchiveBytes: 512 * 1024 * 1024,
  // A release is the compiled code and the web console (tens of MB); its dependencies come from npm.
  maxUnpackedBytes: 256 * 1024 * 1024,
  maxUnpackedFiles: 20_000,
  // GitHub's releases page is 30 releases with notes: well under a megabyte.
  maxFeedBytes: 8 * 1024 * 1024,
  installTimeoutMs: 15 * 60_000,
  migrateTimeoutMs: 5 * 60_000,
};

/** The job kind of every update (bot, web console, rollback): one at a time. */
export const UPDATE_JOB = 'update';
