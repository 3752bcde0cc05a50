/** The Milky adapter's fixed limits, with units in their names (docs/rules.md#style-limits). */

/** The first wait before dialling an implementation again; it doubles per failure up to the max. */
export const MILKY_RECONNECT_MIN_MS = 500;
export const MILKY_RECONNECT_MAX_MS = 30_000;

/** Larger event frames are refused by ws (the connection closes, then reconnects). */
export const MILKY_MAX_FRAME_BYTES = 8 * 1024 * 1024;

/** An API answer larger than this is not read (real answers are far below). */
export const MILKY_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** Distinct kinds of ignored events noted in the log (each once); beyond this they are not. */
export const MILKY_IGNORED_KINDS_LOGGED_MAX = 64;

/**
 * The event stream is pinged this often; a ping still unanswered at the next one means the
 * connection died silently (a network drop): it is cut and dialled again.
 */
export const MILKY_PING_INTERVAL_MS = 30_000;
