/**
 * The console HTTP server (docs/rules.md#console-envelope): every API route under `{base_url}/api` is
 * authenticated unless it is one of the five public routes, answers `{ok: true, data}` (one hook
 * adds it) or `{ok: false, detail}` (one error handler; `code` and `params` beside it, src/console/errors.ts), and is described by its schema, from which
 * the OpenAPI document is generated. `GET {base_url}/login` serves the login page.
 *
 * The returned instance is not listening and not ready: the caller may still add routes (the
 * benchmark adds a bare one) before `listen` or `ready`.
 */
import { fastifyCookie } from '@fastify/cookie';
import fastifySwagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type onRequestHookHandler,
  type preSerializationHookHandler,
  type RouteOptions,
} from 'fastify';
import type { TSchema } from 'typebox';
import { ConfigValidationError } from '../config/index.ts';
import { PoolTimeoutError, ValidationError, errorMessage } from '../common/errors.ts';
import { ConsoleAuth, type AccessLevel } from './auth.ts';
import { authorise } from './access.ts';
import type { ConsoleApp, RouteContext } from './context.ts';
import type { ConsoleDeps } from './deps.ts';
import { CodedError, type ErrorParams, HttpError } from './errors.ts';
import { EVENT_STREAMS, LOGIN_BUDGET, LOGIN_LIMITER_MAX_ADDRESSES, READ_CACHE } from './limits.ts';
import { LoginBudget } from './login-budget.ts';
import { LoginLimiter } from './login-limiter.ts';
import { loginPage } from './login-page.ts';
import { memberMaskHook } from './member-mask.ts';
import { openapiOptions, SECURITY_SCHEMES } from './openapi.ts';
import { ReadCache } from './read-cache.ts';
import { securityHeaders } from './security-headers.ts';
import { StreamSlots } from './sse/stream-slots.ts';
import { isUpstreamStatus, UpstreamState } from './upstream-state.ts';
import { agentCatchphraseRoutes } from './routes/agent-catchphrases.ts';
import { aiExtensionRoutes } from './routes/ai-extension.ts';
import { authRoutes } from './routes/auth.ts';
import { botConfigRoutes } from './routes/bot-configs.ts';
import { historySeedRoutes } from './routes/history-seeds.ts';
import { agentMemoryRoutes } from './routes/agent-memory.ts';
import { agentTaskRoutes } from './routes/agent-tasks.ts';
import { agentChatRoutes } from './routes/agent-chat.ts';
import { chatControlRoutes } from './routes/chat-controls.ts';
import { chatControlStreamRoutes } from './routes/chat-control-stream.ts';
import { requestRoutes } from './routes/requests.ts';
import { chatListRoutes } from './routes/chat-lists.ts';
import { instanceRoutes } from './routes/instances.ts';
import { suspectRoutes } from './routes/suspects.ts';
import { configRoutes } from './routes/config.ts';
import { corpusRoutes } from './routes/corpus.ts';
import { databaseRoutes } from './routes/database.ts';
import { metaRoutes } from './routes/meta.ts';
import { dailyStatsRoutes } from './routes/daily-stats.ts';
import { dashboardRoutes } from './routes/dashboard.ts';
import { homeRoutes } from './routes/home.ts';
import { decisionRoutes } from './routes/decisions.ts';
import { logRoutes } from './routes/logs.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { moderationRoutes } from './routes/moderation.ts';
import { activityRoutes } from './routes/activity.ts';
import { onebotRoutes } from './routes/onebot.ts';
import { forwardTargetRoutes } from './routes/forward-targets.ts';
import { updateRoutes } from './routes/update.ts';
import { envelope, ErrorBody } from './schemas.ts';
import { serviceRoutes } from './routes/service.ts';
import { webUiRoutes } from './web-ui.ts';
import { consoleValidatorCompiler, formatSchemaErrors } from './validation.ts';

export type { ConsoleApp } from './context.ts';

export function createConsoleServer(deps: ConsoleDeps): ConsoleApp {
  const app = Fastify({
    // Fastify's own info lines ("Server listening at") would repeat ours; it keeps warnings and errors.
    loggerInstance: deps.logger.child({}, { level: 'warn' }) as FastifyBaseLogger,
    // Per-request lines would carry query strings (`?token=`) into the log.
    logController: new LogController({ disableRequestLogging: true }),
    // Idle keep-alive sockets must not hold shutdown past its deadline.
    forceCloseConnections: true,
    // Behind a trusted proxy the client address (login limit) and https (Secure cookie) come from it.
    trustProxy: deps.trustProxy === '' ? false : deps.trustProxy,
    exposeHeadRoutes: false,
    schemaErrorFormatter: formatSchemaErrors,
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(consoleValidatorCompiler);

  const apiPrefix = `${deps.baseUrl}/api`;
  const ctx: RouteContext = {
    deps,
    auth: new ConsoleAuth(deps.credentials, () => deps.clock.nowMs()),
    limiter: new LoginLimiter(
      () => {
        const settings = deps.settings.current().console;
        return { maxFailures: settings.loginMaxFailures, windowMs: settings.loginWindowSec * 1000 };
      },
      () => deps.clock.monotonicMs(),
      LOGIN_LIMITER_MAX_ADDRESSES,
    ),
    loginBudget: new LoginBudget(
      () => {
        const settings = deps.settings.current().console;
        return {
          budget: Math.max(LOGIN_BUDGET.minFailures, settings.loginMaxFailures * LOGIN_BUDGET.addressesWorth),
          windowMs: settings.loginWindowSec * 1000,
          spacingMs: LOGIN_BUDGET.spacingMs,
        };
      },
      () => deps.clock.monotonicMs(),
    ),
    cache: new ReadCache({
      now: () => deps.clock.monotonicMs(),
      maxEntries: READ_CACHE.maxEntries,
      // Only the route part of the key: a community key also holds the hub's address.
      onRefreshError: (key, error) =>
        deps.logger.warn(
          { cache: key.split(':')[0], err: { message: errorMessage(error) } },
          'console cache refresh failed; serving stale',
        ),
    }),
    streams: new StreamSlots(EVENT_STREAMS),
    apiPrefix,
    cookiePath: deps.baseUrl === '' ? '/' : deps.baseUrl,
  };

  app.decorateRequest('consoleAccess', null);
  app.addHook('onSend', securityHeaders);
  // Auth and the envelope are hooks of each API route (set in onRoute), so routes outside the
  // API and the not-found handler run none of them and no hook looks up its route's options.
  const hooks = routeHooks(ctx);
  app.addHook('onRoute', (route) => completeApiRoute(route, apiPrefix, hooks));

  app.register(fastifySwagger, openapiOptions(apiPrefix, deps.version));
  app.register(
    async (api) => {
      metaRoutes(api, ctx);
      // Only the login and logout routes set cookies: the plugin's hooks stay in their context
      // (the session cookie is read by the auth hook for every route).
      await api.register(async (auth) => {
        await auth.register(fastifyCookie);
        authRoutes(auth, ctx);
      });
      corpusRoutes(api, ctx);
      moderationRoutes(api, ctx);
      activityRoutes(api, ctx);
      configRoutes(api, ctx);
      botConfigRoutes(api, ctx);
      chatControlRoutes(api, ctx);
      chatControlStreamRoutes(api, ctx);
      historySeedRoutes(api, ctx);
      agentMemoryRoutes(api, ctx);
      agentTaskRoutes(api, ctx);
      requestRoutes(api, ctx);
      chatListRoutes(api, ctx);
      instanceRoutes(api, ctx);
      suspectRoutes(api, ctx);
      aiExtensionRoutes(api, ctx);
      databaseRoutes(api, ctx);
      onebotRoutes(api, ctx);
      forwardTargetRoutes(api, ctx);
      updateRoutes(api, ctx);
      logRoutes(api, ctx);
      dashboardRoutes(api, ctx);
      decisionRoutes(api, ctx);
      dailyStatsRoutes(api, ctx);
      homeRoutes(api, ctx);
      metricsRoutes(api, ctx);
      serviceRoutes(api, ctx);
      agentCatchphraseRoutes(api, ctx);
      agentChatRoutes(api, ctx);
    },
    { prefix: apiPrefix },
  );

  const webUi = webUiRoutes(app, deps.baseUrl, apiPrefix, deps.webRoot ?? null, deps.webRelease);
  const login = loginPage(deps.baseUrl);
  // The SPA has its own login page; the plain form stays for a console without a build.
  app.get(`${deps.baseUrl}/login`, async (request, reply) =>
    (await webUi.available())
      ? webUi.sendIndex(reply, request)
      : reply
          .type('text/html; charset=utf-8')
          .header('cache-control', 'no-store')
          .header('content-security-policy', login.contentSecurityPolicy)
          .header('x-content-type-options', 'nosniff')
          .header('referrer-policy', 'no-referrer')
          .send(login.html),
  );

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const detail =
      path.startsWith(`${apiPrefix}/`) || path === apiPrefix ? `no such route: ${request.method} ${path}` : 'not found';
    return reply.code(404).send({ ok: false, detail, code: 'no_such_route', params: { method: request.method, path } });
  });

  const upstream = new UpstreamState();
  app.setErrorHandler((error: unknown, request, reply) => {
    const { status, detail, headers, coded, uncoded } = describeError(error);
    const route = `${request.method} ${request.routeOptions.url ?? ''}`;
    if (uncoded) deps.logger.warn({ route, status, detail }, 'console error without a code');
    if (isUpstreamStatus(status)) {
      if (upstream.failed(route, detail)) deps.logger.warn({ route, status, detail }, 'console dependency failing');
    } else if (status >= 500) {
      request.log.error({ err: error, route }, 'console request failed');
    }
    return reply
      .code(status)
      .headers(headers)
      .send({ ok: false, detail, ...coded });
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (upstream.failingRoutes > 0 && reply.statusCode < 400) {
      const route = `${request.method} ${request.routeOptions.url ?? ''}`;
      if (upstream.recovered(route)) deps.logger.info({ route }, 'console dependency answering again');
    }
    done();
  });

  return app;
}

/**
 * Every API route: default auth `read` (fail closed), the envelope around its 2xx schemas, the
 * error body for 4xx/5xx and its security requirement in the OpenAPI document. A route without a
 * tag or a response schema is a programming error and stops startup.
 */
function completeApiRoute(route: RouteOptions, apiPrefix: string, hooks: RouteHooks): void {
  if (!route.url.startsWith(`${apiPrefix}/`)) return;
  const config = (route.config ??= {}) as { auth?: 'public' | AccessLevel; envelope?: boolean; members?: boolean };
  config.auth ??= 'read';
  const schema = (route.schema ??= {}) as {
    tags?: string[];
    response?: Record<string, unknown>;
    security?: Record<string, string[]>[];
  };
  if (!schema.tags?.length || !schema.response) {
    throw new Error(`console route ${route.method} ${route.url} needs tags and a response schema`);
  }
  const response: Record<string, unknown> = { ...schema.response };
  if (config.envelope !== false) {
    for (const code of Object.keys(response)) {
      if (code.startsWith('2')) response[code] = envelope(response[code] as TSchema);
    }
  }
  response['4xx'] ??= ErrorBody;
  response['5xx'] ??= ErrorBody;
  schema.response = response;
  const auth = config.auth;
  schema.security =
    auth === 'public' ? [] : Object.keys(SECURITY_SCHEMES).map((scheme) => ({ [scheme]: [auth as AccessLevel] }));
  if (auth !== 'public') route.onRequest = [...asList(route.onRequest), hooks.require[auth]];
  if (config.members) {
    const note =
      'Member numbers: below the write level each is a negative stand-in (docs/rules.md#console-member-numbers).';
    (schema as { description?: string }).description = [(schema as { description?: string }).description, note]
      .filter(Boolean)
      .join('\n\n');
    route.preSerialization = [...asList(route.preSerialization), memberMaskHook];
  }
  if (config.envelope !== false) route.preSerialization = [...asList(route.preSerialization), hooks.envelope];
}

function asList<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

interface RouteHooks {
  require: Record<AccessLevel, onRequestHookHandler>;
  envelope: preSerializationHookHandler<unknown>;
}

function routeHooks(ctx: RouteContext): RouteHooks {
  const requireLevel =
    (needed: AccessLevel): onRequestHookHandler =>
    (request, _reply, done) =>
      done(authorise(request, ctx, needed));
  // A cached value is shared and immutable, so its enveloped text is kept beside it and a cache
  // hit skips serialisation (bench:console).
  const serialised = new WeakMap<object, string>();
  const asIs = (text: unknown) => text as string;
  const envelopeHook: preSerializationHookHandler<unknown> = (_request, reply, payload, done) => {
    if (reply.statusCode >= 300) return done(null, payload);
    if (!ctx.cache.holds(payload)) return done(null, { ok: true, data: payload });
    const data = payload as object;
    let text = serialised.get(data);
    if (text === undefined) {
      text =
        reply.getSerializationFunction(String(reply.statusCode))?.({ ok: true, data }) ??
        JSON.stringify({ ok: true, data });
      serialised.set(data, text);
    }
    reply.serializer(asIs);
    return done(null, text);
  };
  return { require: { read: requireLevel('read'), write: requireLevel('write') }, envelope: envelopeHook };
}

interface ErrorReply {
  status: number;
  detail: string;
  headers: Record<string, string>;
  coded?: { code: string; params: ErrorParams };
  /** An HttpError raised without a code: answered, and logged as a bug (every console error is coded). */
  uncoded?: boolean;
}

function describeError(error: unknown): ErrorReply {
  if (error instanceof CodedError) {
    const coded = { code: error.code, params: error.params };
    return { status: error.statusCode, detail: error.detail, headers: { ...error.headers }, coded };
  }
  if (error instanceof HttpError) {
    // Every console error is coded (src/console/errors.ts); one without a code is a bug to fix.
    return { status: error.statusCode, detail: error.detail, headers: { ...error.headers }, uncoded: true };
  }
  if (error instanceof ConfigValidationError) {
    return coded(400, 'invalid_setting', { field: error.field, reason: 'invalid' }, error.message);
  }
  if (error instanceof ValidationError) {
    // Domain checks name the body's field (`base_url`); the API names it by its path.
    const field = /^(body|query|params)\b/.test(error.field) ? error.field : `body.${error.field}`;
    return coded(400, 'invalid_field', { field, reason: 'invalid' }, error.message);
  }
  if (error instanceof PoolTimeoutError) {
    return {
      ...coded(503, 'database_busy', {}, 'the database is busy; retry shortly'),
      headers: { 'retry-after': '2' },
    };
  }
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // Fastify's own request errors (JSON, media type, size): their messages name the problem.
    return coded(status, 'invalid_request', {}, errorMessage(error));
  }
  // A 5xx never shows internals.
  return coded(500, 'internal_error', {}, 'internal error');
}

function coded(status: number, code: string, params: ErrorParams, detail: string): ErrorReply {
  return { status, detail, headers: {}, coded: { code, params } };
}
