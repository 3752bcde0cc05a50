import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
} from 'fastify';
import type { RawServerDefault } from 'fastify';
import type { AccessLevel, ConsoleAuth } from './auth.ts';
import type { ConsoleDeps } from './deps.ts';
import type { LoginBudget } from './login-budget.ts';
import type { LoginLimiter } from './login-limiter.ts';
import type { ReadCache } from './read-cache.ts';
import type { StreamSlots } from './sse/stream-slots.ts';

export type ConsoleApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** Who is calling: the best valid credential presented, if any. */
export interface Access {
  level: AccessLevel | null;
  via: 'session' | 'header' | 'query' | null;
  /** Unix seconds, when the level comes from a session. */
  expiresAt: number | null;
  /** Whether any credential was presented at all (401 wording). */
  presented: boolean;
}

/** What the route modules share. */
export interface RouteContext {
  readonly deps: ConsoleDeps;
  readonly auth: ConsoleAuth;
  readonly limiter: LoginLimiter;
  /** Failed credentials from every address together; paces token checks past its budget. */
  readonly loginBudget: LoginBudget;
  readonly cache: ReadCache;
  /** Event streams open now, per client and in all. */
  readonly streams: StreamSlots;
  /** `{base_url}/api` */
  readonly apiPrefix: string;
  /** Path of the session cookie: the console base, or `/`. */
  readonly cookiePath: string;
}

export type RouteAuth = 'public' | 'read' | 'write';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Console API routes only: who may call (default read). */
    auth?: RouteAuth;
    /** Console API routes only: false for the routes docs/rules.md#console-envelope lists as not enveloped. */
    envelope?: boolean;
    /** Console API routes only: the answer holds member numbers, masked below write (src/console/member-mask.ts). */
    members?: boolean;
  }
  interface FastifyRequest {
    consoleAccess: Access | null;
  }
}
