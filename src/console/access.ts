/** Who is calling: the best valid credential a request presents, and the level check. */
import { fastifyCookie } from '@fastify/cookie';
import type { FastifyRequest } from 'fastify';
import type { AccessLevel } from './auth.ts';
import type { Access, RouteContext } from './context.ts';
import { CodedError, HttpError } from './errors.ts';
import { foreignOrigin, isWriteMethod } from './same-origin.ts';
import { SESSION_COOKIE, TOKEN_HEADER } from './limits.ts';

/** Enforces a route's level (after the per-address credential limit); returns the error to raise. */
export function authorise(request: FastifyRequest, ctx: RouteContext, needed: AccessLevel): HttpError | undefined {
  let access: Access;
  try {
    access = gatedAccess(request, ctx);
  } catch (error) {
    if (error instanceof HttpError) return error;
    throw error;
  }
  request.consoleAccess = access;
  if (access.level === null) {
    return access.presented
      ? new CodedError(401, 'invalid_credentials', {}, 'invalid token or session')
      : new CodedError(
          401,
          'authentication_required',
          {},
          `authentication required: send the ${TOKEN_HEADER} header, ?token= or log in`,
        );
  }
  if (needed === 'write' && access.level !== 'write') {
    return new CodedError(403, 'write_required', {}, 'write access required: these credentials are read-only');
  }
  return access.via === 'session' ? refuseForeignOrigin(request) : undefined;
}

/**
 * A change made with the session cookie must come from the console's own origin
 * (docs/rules.md#console-origin); a token in the header or the query is never sent by a browser on
 * its own, so those requests are not asked.
 */
function refuseForeignOrigin(request: FastifyRequest): HttpError | undefined {
  if (!isWriteMethod(request.method)) return undefined;
  const foreign = foreignOrigin(request);
  if (foreign === null) return undefined;
  return new CodedError(
    403,
    'foreign_origin',
    { origin: foreign.presented, expected: foreign.expected },
    `refused: a change with the session cookie from ${foreign.presented}, not from the console's origin ${foreign.expected}`,
  );
}

/** Keeps the stronger of two credentials (write over read; the first of equals). */
function better(access: Access, level: AccessLevel | null, via: Access['via'], expiresAt: number | null): void {
  if (level === null || access.level === 'write' || (access.level === 'read' && level === 'read')) return;
  access.level = level;
  access.via = via;
  access.expiresAt = expiresAt;
}

/** The best valid credential the request presents (also used by GET /auth/status). */
export function resolveAccess(request: FastifyRequest, ctx: RouteContext): Access {
  const access: Access = { level: null, via: null, expiresAt: null, presented: false };
  const header = request.headers[TOKEN_HEADER];
  if (typeof header === 'string' && header !== '') {
    access.presented = true;
    better(access, ctx.auth.levelOfToken(header), 'header', null);
  }
  const query = (request.query as Record<string, unknown> | undefined)?.token;
  if (typeof query === 'string' && query !== '') {
    access.presented = true;
    better(access, ctx.auth.levelOfToken(query), 'query', null);
  }
  // Parsed here, not by the cookie plugin (which only the login and logout routes load).
  const cookieHeader = request.headers.cookie;
  const cookie = cookieHeader ? fastifyCookie.parse(cookieHeader)[SESSION_COOKIE] : undefined;
  if (typeof cookie === 'string' && cookie !== '') {
    access.presented = true;
    const session = ctx.auth.verifySession(cookie);
    better(access, session?.level ?? null, 'session', session?.expiresAt ?? null);
  }
  return access;
}

/*
 * One limit on wrong credentials per client address, whatever route they come through (the
 * login form, the X-Chorus-Token header, ?token=, a session cookie, GET /auth/status): each
 * presented credential that grants nothing counts as a failure in the login limiter. Once an
 * address reaches the limit, every request from it that presents a credential is refused with
 * 429 and Retry-After, the right credential included, so the answer cannot tell a guesser
 * whether a guess was right (docs/guide/troubleshooting.md#limits).
 */

/** The caller's access, after the address limit and the console's budget; throws 429 when refused. */
export function gatedAccess(request: FastifyRequest, ctx: RouteContext): Access {
  const access = resolveAccess(request, ctx);
  if (!access.presented) return access;
  refuseDuringLockout(request.ip, ctx);
  // Only a token can be guessed: a session cookie is an HMAC, so a cookie alone is not paced.
  if (presentsToken(request)) paceTokenCheck(ctx);
  if (access.level === null) noteFailure(request.ip, ctx, access.via ?? 'credential');
  return access;
}

function presentsToken(request: FastifyRequest): boolean {
  const header = request.headers[TOKEN_HEADER];
  const query = (request.query as Record<string, unknown> | undefined)?.token;
  return (typeof header === 'string' && header !== '') || (typeof query === 'string' && query !== '');
}

export function refuseDuringLockout(address: string, ctx: RouteContext): void {
  const verdict = ctx.limiter.check(address);
  if (verdict.allowed) return;
  throw new CodedError(
    429,
    'login_locked',
    { seconds: verdict.retryAfterSec },
    `too many failed credentials from this address; retry in ${verdict.retryAfterSec} s`,
    { 'retry-after': String(verdict.retryAfterSec) },
  );
}

/**
 * Past the console's failure budget every token check waits its turn, the right token included,
 * so the answer says nothing about the token (src/console/login-budget.ts).
 */
export function paceTokenCheck(ctx: RouteContext): void {
  const verdict = ctx.loginBudget.admit();
  if (verdict.allowed) return;
  throw new CodedError(
    429,
    'login_slowed',
    { seconds: verdict.retryAfterSec },
    `too many failed credentials on this console; logins are slowed, retry in ${verdict.retryAfterSec} s`,
    { 'retry-after': String(verdict.retryAfterSec) },
  );
}

export function noteFailure(address: string, ctx: RouteContext, via: string): void {
  ctx.limiter.recordFailure(address);
  ctx.deps.logger.warn({ client: address, via }, 'console credential refused');
  if (ctx.loginBudget.recordFailure()) {
    const { budget } = ctx.loginBudget.stats();
    ctx.deps.logger.warn(
      { budget },
      'console failure budget used up: token checks are slowed for the rest of the window',
    );
  }
}
