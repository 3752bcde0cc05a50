/**
 * What a forward-WebSocket target is, apart from the dialling (forward-link.ts): its address with
 * the token masked for logs and the console, the token to present, an id for the console that
 * reveals nothing of the address, its state as the console shows it, and the back-off.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { ONEBOT_FORWARD_RETRY_FIRST_MS, ONEBOT_FORWARD_RETRY_MAX_MS } from './limits.ts';

/** connecting: dialling or waiting for the account number; waiting: to retry at `nextAttemptAt`. */
export type ForwardState = 'connecting' | 'connected' | 'waiting';

/**
 * Why the last attempt failed or the last connection ended, as a code with parameters (the web
 * words them): `network` {errno}, `unauthorized` {status}, `http_status` {status}, `timeout`,
 * `no_self_id`, `closed` {code}, `replaced` (another connection of the same account took over).
 */
export interface ForwardError {
  readonly code: 'network' | 'unauthorized' | 'http_status' | 'timeout' | 'no_self_id' | 'closed' | 'replaced';
  readonly params: Readonly<Record<string, string | number>>;
  /** Unix ms. */
  readonly at: number;
}

export interface ForwardTargetStatus {
  readonly id: string;
  /** The address with its access token masked. */
  readonly url: string;
  readonly state: ForwardState;
  /** The account on the other side, once known (kept while waiting to retry). */
  readonly selfId: number | null;
  /** Failed attempts in a row (0 once connected). */
  readonly failures: number;
  /** Unix ms of the current connection's start; null when not connected. */
  readonly connectedAt: number | null;
  /** Unix ms of the next attempt while waiting. */
  readonly nextAttemptAt: number | null;
  readonly lastError: ForwardError | null;
}

const MASK = '***';

/** The address as it may be logged or shown: the `access_token` value replaced by `***`. */
export function maskedUrl(href: string): string {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return '(invalid address)';
  }
  if (url.searchParams.has('access_token')) url.searchParams.set('access_token', MASK);
  url.username = '';
  url.password = '';
  // URLSearchParams writes `*` as `%2A`: keep the mask readable.
  return url.href.replaceAll('%2A%2A%2A', MASK);
}

/** The token in `?access_token=`, presented again as `Authorization: Bearer`; null when none. */
export function tokenOf(href: string): string | null {
  try {
    const token = new URL(href).searchParams.get('access_token');
    return token === null || token === '' ? null : token;
  } catch {
    return null;
  }
}

/** `host:port` of the address (what the console shows as the remote address). */
export function hostOf(href: string): string {
  try {
    return new URL(href).host;
  } catch {
    return '';
  }
}

/**
 * Ids for the console, stable for the life of the process: a keyed hash with a key made at start,
 * so a reader of the console cannot test guesses of a token against an id.
 */
export class TargetIds {
  readonly #key = randomBytes(32);

  of(href: string): string {
    return createHmac('sha256', this.#key).update(href, 'utf8').digest('hex').slice(0, 16);
  }
}

/**
 * The wait before attempt `failures + 1`: doubling from the first delay, with ±20 % jitter
 * (`random` in [0, 1)), never above the cap.
 */
export function retryDelayMs(failures: number, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.min(failures - 1, 30));
  const base = Math.min(ONEBOT_FORWARD_RETRY_MAX_MS, ONEBOT_FORWARD_RETRY_FIRST_MS * 2 ** exponent);
  return Math.min(ONEBOT_FORWARD_RETRY_MAX_MS, Math.round(base * (0.8 + 0.4 * random())));
}
