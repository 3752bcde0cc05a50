/**
 * Writes made with the session cookie must come from the console's own pages
 * (docs/rules.md#console-origin). SameSite=Lax keeps the cookie off cross-site requests, but a
 * page on another port of the same host is the same site, so the browser sends the cookie with its
 * POST; what the browser says about the request's initiator tells such a page apart.
 *
 * `Sec-Fetch-Site` comes first when present: the browser sets it (a page cannot), comparing the
 * page's origin with the URL it fetched, so it stays right behind a proxy that rewrites Host.
 * Without it (older browsers) the `Origin` is compared with the console's own origin: the scheme
 * and host the request arrived with, which Fastify takes from X-Forwarded-Proto / X-Forwarded-Host
 * only when the connection comes from a proxy listed in CHORUS_TRUST_PROXY. An https Origin over
 * plain http with the same host is accepted too: a TLS-terminating proxy that passes Host on but
 * is not trusted shows the console as http. Requests with neither header (scripts, tools) are not
 * refused: no browser sent them on a page's behalf.
 */
import type { FastifyRequest } from 'fastify';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Sec-Fetch-Site values of a request the console's own page (or the user, typing) made. */
const OWN_FETCH_SITES = new Set(['same-origin', 'none']);
/** The refusal repeats what the browser sent, cut to this length. */
const PRESENTED_MAX_CHARS = 200;

export interface ForeignOrigin {
  /** What the browser said: the Origin, or `sec-fetch-site: <value>`. */
  presented: string;
  /** The console's own origin as this request shows it. */
  expected: string;
}

/** Whether a method changes state (every method but GET, HEAD and OPTIONS). */
export function isWriteMethod(method: string): boolean {
  return !SAFE_METHODS.has(method);
}

/** The mismatch when the browser says the request came from another origin; null when it did not. */
export function foreignOrigin(request: FastifyRequest): ForeignOrigin | null {
  const expected = ownOrigin(request);
  const origin = single(request.headers.origin);
  const site = single(request.headers['sec-fetch-site'])?.trim().toLowerCase();
  if (site !== undefined) {
    return OWN_FETCH_SITES.has(site) ? null : { presented: shown(origin ?? `sec-fetch-site: ${site}`), expected };
  }
  if (origin !== undefined) {
    return sameOrigin(origin, expected, request.protocol) ? null : { presented: shown(origin), expected };
  }
  return null;
}

function ownOrigin(request: FastifyRequest): string {
  try {
    return new URL(`${request.protocol}://${request.host}`).origin;
  } catch {
    return `${request.protocol}://${request.host}`;
  }
}

function sameOrigin(presented: string, expected: string, protocol: string): boolean {
  let url: URL;
  try {
    url = new URL(presented);
  } catch {
    return false; // `null` (a sandboxed frame, a redirect across origins) or garbage
  }
  if (url.origin === expected) return true;
  // The scheme upgrade only: the browser spoke https to a proxy that forwards plain http.
  return protocol === 'http' && url.protocol === 'https:' && url.host === new URL(expected).host;
}

function shown(text: string): string {
  return text.length > PRESENTED_MAX_CHARS ? `${text.slice(0, PRESENTED_MAX_CHARS)}…` : text;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
