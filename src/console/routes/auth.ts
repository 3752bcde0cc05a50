/**
 * Login, logout and the caller's status (DECISIONS.md "Console"). All three are public; login is
 * rate limited per client address on failures and never logs the token.
 */
import Type from 'typebox';
import type { ConsoleApp, RouteContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { SESSION_COOKIE, SESSION_TTL_SEC, TOKEN_MAX_CHARS } from '../limits.ts';
import { AuthStatus } from '../schemas.ts';
import { resolveAccess } from '../access.ts';

const LoginBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: TOKEN_MAX_CHARS, description: 'The read or write token.' }) },
  { additionalProperties: false },
);

const LoginResult = Type.Object({
  level: Type.String({ enum: ['read', 'write'] }),
  expires_at: Type.Integer({ description: 'Unix seconds when the session cookie ends.' }),
});

export function authRoutes(api: ConsoleApp, ctx: RouteContext): void {
  api.post(
    '/auth/login',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['auth'],
        summary: 'Exchange a token for the session cookie chorus_console_session (read or write level)',
        body: LoginBody,
        response: { 200: LoginResult },
      },
    },
    async (request, reply) => {
      const address = request.ip;
      const verdict = ctx.limiter.check(address);
      if (!verdict.allowed) {
        throw new HttpError(429, `too many failed logins from this address; retry in ${verdict.retryAfterSec} s`, {
          'retry-after': String(verdict.retryAfterSec),
        });
      }
      const level = ctx.auth.levelOfToken(request.body.token);
      if (level === null) {
        ctx.limiter.recordFailure(address);
        ctx.deps.logger.warn({ client: address }, 'console login failed');
        throw new HttpError(401, 'invalid token');
      }
      const { value, session } = ctx.auth.issueSession(level);
      reply.setCookie(SESSION_COOKIE, value, {
        path: ctx.cookiePath,
        httpOnly: true,
        sameSite: 'lax',
        secure: request.protocol === 'https',
        maxAge: SESSION_TTL_SEC,
      });
      ctx.deps.logger.info({ client: address, level }, 'console login');
      return { level, expires_at: session.expiresAt };
    },
  );

  api.post(
    '/auth/logout',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['auth'],
        summary: 'Clear the session cookie',
        response: { 200: Type.Object({ logged_out: Type.Literal(true) }) },
      },
    },
    async (request, reply) => {
      reply.clearCookie(SESSION_COOKIE, {
        path: ctx.cookiePath,
        httpOnly: true,
        sameSite: 'lax',
        secure: request.protocol === 'https',
      });
      return { logged_out: true as const };
    },
  );

  api.get(
    '/auth/status',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['auth'],
        summary: 'Whether the caller is authenticated, and at which level',
        response: { 200: AuthStatus },
      },
    },
    async (request) => {
      const access = request.consoleAccess ?? resolveAccess(request, ctx);
      return {
        authenticated: access?.level != null,
        level: access?.level ?? null,
        via: access?.level != null ? access.via : null,
        expires_at: access?.level != null ? access.expiresAt : null,
      };
    },
  );
}
