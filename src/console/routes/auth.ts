/**
 * Login, logout and the caller's status (docs/rules.md#console-auth). All three are public; login is
 * rate limited per client address on failures, paced past the console's failure budget, and never
 * logs the token.
 */
import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import type { AccessLevel, Session } from '../auth.ts';
import type { ConsoleApp, RouteContext } from '../context.ts';
import { CodedError } from '../errors.ts';
import { SESSION_COOKIE, SESSION_TTL_SEC, TOKEN_MAX_CHARS } from '../limits.ts';
import { AuthStatus } from '../schemas.ts';
import { gatedAccess, noteFailure, paceTokenCheck, refuseDuringLockout } from '../access.ts';

const LoginBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: TOKEN_MAX_CHARS, description: 'The read or write token.' }) },
  { additionalProperties: false },
);

const LoginResult = Type.Object({
  level: Type.String({ enum: ['read', 'write'] }),
  expires_at: Type.Integer({ description: 'Unix seconds when the session cookie ends.' }),
});

/** A new session cookie; Secure when the request came over https (directly or via a trusted proxy). */
function setSessionCookie(reply: FastifyReply, protocol: string, ctx: RouteContext, level: AccessLevel): Session {
  const { value, session } = ctx.auth.issueSession(level);
  reply.setCookie(SESSION_COOKIE, value, {
    path: ctx.cookiePath,
    httpOnly: true,
    sameSite: 'lax',
    secure: protocol === 'https',
    maxAge: SESSION_TTL_SEC,
  });
  return session;
}

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
      refuseDuringLockout(address, ctx);
      paceTokenCheck(ctx);
      const level = ctx.auth.levelOfToken(request.body.token);
      if (level === null) {
        noteFailure(address, ctx, 'login');
        throw new CodedError(401, 'invalid_token', {}, 'invalid token');
      }
      const session = setSessionCookie(reply, request.protocol, ctx, level);
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

  api.post(
    '/auth/sessions/revoke',
    {
      config: { auth: 'write' },
      schema: {
        tags: ['auth'],
        summary: 'Log out everywhere: a new session secret ends every session cookie made before',
        description:
          'Tokens keep working. A caller who came with a session cookie gets a new one at the same level, ' +
          'so the browser that asked stays logged in; every other session must log in again.',
        response: {
          200: Type.Object({
            revoked: Type.Literal(true),
            session_reissued: Type.Boolean({ description: "Whether the caller's own session was renewed." }),
          }),
        },
      },
    },
    async (request, reply) => {
      await ctx.deps.revokeSessions();
      const access = request.consoleAccess;
      const reissue = access?.via === 'session' && access.level !== null;
      if (reissue && access.level !== null) setSessionCookie(reply, request.protocol, ctx, access.level);
      return { revoked: true as const, session_reissued: reissue };
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
      // Public, but it tells whether a credential is valid: it counts toward the same limit.
      const access = request.consoleAccess ?? gatedAccess(request, ctx);
      return {
        authenticated: access?.level != null,
        level: access?.level ?? null,
        via: access?.level != null ? access.via : null,
        expires_at: access?.level != null ? access.expiresAt : null,
      };
    },
  );
}
