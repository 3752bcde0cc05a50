/** The OneBot adapter's fixed limits, with units in their names (docs/rules.md#style-limits). */

/** Where implementations connect (docs/rules.md#names), outside the console's base url. */
export const ONEBOT_WS_PATH = '/onebot/v11/ws';

/**
 * Every path the endpoint answers: guides for NoneBot and go-cqhttp write the address with a
 * trailing slash or without the `ws`, and a 404 there only shows as endless reconnects.
 */
export const ONEBOT_WS_PATHS: ReadonlySet<string> = new Set([ONEBOT_WS_PATH, `${ONEBOT_WS_PATH}/`, '/onebot/v11/']);

/** Larger frames are refused by ws (close code 1009); real events are far below this. */
export const ONEBOT_MAX_FRAME_BYTES = 8 * 1024 * 1024;

/** Friend and group requests kept for the console; the oldest is dropped first. */
export const ONEBOT_PENDING_REQUESTS_MAX = 200;

/** `close()` waits this long for peers to acknowledge the close frame, then cuts the sockets. */
export const ONEBOT_CLOSE_GRACE_MS = 2000;

/** Distinct kinds of ignored events noted in the log (each once); beyond this they are not. */
export const ONEBOT_IGNORED_KINDS_LOGGED_MAX = 64;

/** WebSocket close codes this adapter sends (4000-4999 are for applications). */
export const ONEBOT_CLOSE_CODE = {
  replaced: 4000,
  shutdown: 1001,
  tokenChanged: 4001,
  disconnected: 4002,
  /** Judged dead by liveness.ts (no pong, or heartbeats stopped). */
  unresponsive: 4003,
} as const;

/**
 * One group message: more characters (summed over the values of its segments as stored, the
 * per-delivery extras such as a face's `raw` dropped) or more segments than this, and it is
 * dropped and counted before it is learned or answered. Real messages, JSON cards included,
 * stay far below (docs/guide/troubleshooting.md#limits).
 */
export const ONEBOT_MESSAGE_MAX_CHARS = 16_384;
export const ONEBOT_MESSAGE_MAX_SEGMENTS = 256;

/**
 * What a message may carry as sent, extras included (a CQ string's length, or summed over an
 * array's values), checked before it is parsed: room for every segment to bring a NapCat-sized
 * extra (~410 characters a face) while a megabyte of text is still refused unparsed.
 */
export const ONEBOT_MESSAGE_MAX_RAW_CHARS = ONEBOT_MESSAGE_MAX_CHARS + ONEBOT_MESSAGE_MAX_SEGMENTS * 1024;

/**
 * Frames a connection may send: a token bucket per connection, refilled at `perSecond` up to
 * `burst`, counting frames and bytes. What exceeds it is shed unparsed and counted, so a flooding
 * peer costs a comparison per frame instead of a queue. Set well above a busy account (the
 * repeater benchmark sends 1,000 messages a second per account).
 */
export const ONEBOT_FRAME_RATE = {
  framesPerSecond: 5000,
  framesBurst: 10_000,
  bytesPerSecond: 32 * 1024 * 1024,
  bytesBurst: 64 * 1024 * 1024,
} as const;

/** Longest event-kind name kept for the "ignored" log line (peers choose these names). */
export const ONEBOT_KIND_MAX_CHARS = 64;

/**
 * Forward WebSocket (forward-dialer.ts): the wait before the first retry after a failed dial or a
 * lost connection, doubled after each further failure up to the cap (with ±20 % jitter so many
 * targets do not retry in step).
 */
export const ONEBOT_FORWARD_RETRY_FIRST_MS = 1000;
export const ONEBOT_FORWARD_RETRY_MAX_MS = 60_000;
/** A dial whose upgrade is not answered within this is given up and retried. */
export const ONEBOT_FORWARD_HANDSHAKE_TIMEOUT_MS = 10_000;
/** After the upgrade: how long to wait for the account number (get_login_info or an event's self_id). */
export const ONEBOT_FORWARD_IDENTIFY_TIMEOUT_MS = 10_000;
/** Frames kept while the account is not known yet; more are dropped (a peer does not flood before login). */
export const ONEBOT_FORWARD_EARLY_FRAMES_MAX = 64;

/**
 * Fetching a picture's bytes into the media cache (media-cache.ts): how long one download may
 * take, how many run at once (off the message path, a background trickle), and how many wait;
 * pictures beyond that are not fetched this time (the next sighting tries again).
 */
export const MEDIA_FETCH_TIMEOUT_MS = 15_000;
export const MEDIA_FETCH_CONCURRENCY = 2;
export const MEDIA_FETCH_QUEUE_MAX = 200;
/**
 * Picture names a send found stale (the implementation no longer had them), per process: later
 * sends of them go as base64 at once instead of failing first. Bounded; the oldest are forgotten.
 */
export const MEDIA_STALE_NAMES_MAX = 10_000;
