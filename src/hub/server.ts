/**
 * The hub's HTTP server (docs/rules.md#hub-protocol): thin routes over HubService.
 * Every error is `{detail}` with its status; schema violations are 400 naming the field (not the
 * origin's 422); a body over the configured size is 413; a 5xx never shows internals.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { PoolTimeoutError, errorMessage } from '../common/errors.ts';
import { errorCode } from '../sql/engine.ts';
import type { Log } from '../common/log.ts';
import { forbidden, HttpError } from './errors.ts';
import type { Deployment } from './hub-store.ts';
import type { HubService } from './hub-service.ts';
import { BUSY_RETRY_AFTER_SEC, HOT, STATS } from './limits.ts';
import {
  CorpusStatsResponse,
  StatsResponse,
  ContextQuery,
  ContextResponse,
  ContributeEnvelope,
  ContributeResponse,
  contributionSchemas,
  EnrollBody,
  EnrollResponse,
  ErrorBody,
  HealthResponse,
  HeartbeatResponse,
  heartbeatSchema,
  HotQuery,
  HotResponse,
  hotSnapshotSchema,
  HotUploadResponse,
  UsageResponse,
  type InsertBody,
  type UpsertAnswerBody,
} from './schemas.ts';
import type { HubSettings } from './settings.ts';
import { registerAdminRoutes } from './admin-routes.ts';
import type { HubModeration } from './moderation.ts';
import { AnswerBody, ReportResponse, WithdrawnQuery, WithdrawnResponse } from './moderation-schemas.ts';
import { compileCheck, formatSchemaErrors, hubValidatorCompiler } from './validation.ts';

export const CORPUS_PREFIX = '/v1/corpus';

export interface HubServerDeps {
  service: HubService;
  settings: HubSettings;
  moderation: HubModeration;
  /** The built web console holding the moderation page (hub-admin.html), or null. */
  webRoot: string | null;
  log: Log;
}

type Permission = 'read' | 'contribute' | null;

export function createHubServer(deps: HubServerDeps): FastifyInstance {
  const { service, settings, moderation, log } = deps;
  const app = Fastify({
    logger: false,
    bodyLimit: settings.maxBodyBytes,
    trustProxy: settings.trustProxy,
    // Idle keep-alive sockets must not hold shutdown.
    forceCloseConnections: true,
    exposeHeadRoutes: false,
    schemaErrorFormatter: (errors, dataVar) => formatSchemaErrors(errors, dataVar),
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(hubValidatorCompiler);

  /** The authenticated deployment of a request (set by the route's onRequest hook). */
  const deployments = new WeakMap<FastifyRequest, Deployment>();
  const deploymentOf = (request: FastifyRequest): Deployment => {
    const deployment = deployments.get(request);
    if (!deployment) throw new Error('route without corpus authentication');
    return deployment;
  };
  // Runs before the body is read: 401 and 403 come before 413 and 400.
  const corpusAuth = (permission: Permission) => async (request: FastifyRequest) => {
    const deployment = await service.authenticate(request.headers.authorization);
    // A deployment blocked by the hub's operator is refused whatever it asks (docs/hub.md#moderation).
    await moderation.refuseBlocked(deployment.deploymentId);
    if (permission === 'read' && !deployment.policy.read) throw forbidden('read not allowed');
    if (permission === 'contribute' && !deployment.policy.contribute) throw forbidden('contribute not allowed');
    deployments.set(request, deployment);
  };

  const errors = { '4xx': ErrorBody, '5xx': ErrorBody };
  const contributions = contributionSchemas(settings);
  const checkUpsert = compileCheck<UpsertAnswerBody>(contributions.upsert, 'body');
  const checkInsert = compileCheck<InsertBody>(contributions.insert, 'body');
  const hotSnapshot = hotSnapshotSchema(settings);
  const heartbeat = heartbeatSchema(settings);

  app.get('/health', { schema: { response: { 200: HealthResponse } } }, async () => ({
    status: 'ok' as const,
    withheld: { ...service.withheld.counts },
    refused: { ...service.rates.refused },
  }));

  app.post(
    `${CORPUS_PREFIX}/enroll`,
    { schema: { body: EnrollBody, response: { 200: EnrollResponse, ...errors } } },
    async (request) => {
      moderation.rates.note('enroll', request.ip, moderation.now());
      return service.enroll({
        deploymentId: request.body.deployment_id,
        address: request.ip,
        authorization: request.headers.authorization,
        derivedApiBase: `${request.protocol}://${request.host}${CORPUS_PREFIX}`,
      });
    },
  );

  app.get(
    `${CORPUS_PREFIX}/context`,
    {
      onRequest: corpusAuth('read'),
      schema: { querystring: ContextQuery, response: { 200: ContextResponse, ...errors } },
    },
    async (request) => {
      const context = await service.context(deploymentOf(request), request.query.keywords);
      // Withdrawn answers are not served (reported by enough deployments, or by a moderator).
      return { ...context, answers: await moderation.servable(context.keywords, context.answers) };
    },
  );

  app.post(
    `${CORPUS_PREFIX}/contribute`,
    {
      onRequest: corpusAuth('contribute'),
      schema: { body: ContributeEnvelope, response: { 200: ContributeResponse, ...errors } },
    },
    async (request) => {
      const body = request.body.op === 'insert' ? checkInsert(request.body) : checkUpsert(request.body);
      moderation.rates.note('contribute', request.ip, moderation.now());
      return service.contribute(deploymentOf(request), body);
    },
  );

  // Bans that travel (docs/hub.md#moderation): de-identified reports in, withdrawn answers out.
  app.post(
    `${CORPUS_PREFIX}/report`,
    { onRequest: corpusAuth(null), schema: { body: AnswerBody, response: { 200: ReportResponse, ...errors } } },
    async (request) => moderation.report(deploymentOf(request).deploymentId, request.body),
  );
  app.get(
    `${CORPUS_PREFIX}/withdrawn`,
    {
      onRequest: corpusAuth(null),
      schema: { querystring: WithdrawnQuery, response: { 200: WithdrawnResponse, ...errors } },
    },
    async (request) => moderation.withdrawnSince(request.query.since, request.query.limit ?? 500),
  );

  registerAdminRoutes(app, { moderation, adminToken: settings.adminToken, webRoot: deps.webRoot });

  app.get(
    `${CORPUS_PREFIX}/usage`,
    { onRequest: corpusAuth(null), schema: { response: { 200: UsageResponse, ...errors } } },
    async (request) => service.usage(deploymentOf(request)),
  );

  const hotSchema = { querystring: HotQuery, response: { 200: HotResponse, ...errors } };
  app.get(`${CORPUS_PREFIX}/hot`, { schema: hotSchema }, async (request, reply) => {
    const result = await service.hot(request.query);
    void reply.header('cache-control', `public, max-age=${HOT.cacheMaxAgeSec}`);
    // A withdrawn answer is not shown as a hot word's answer either.
    return { ...result, items: await moderation.servableHot(result.items) };
  });

  app.post(
    `${CORPUS_PREFIX}/hot`,
    {
      onRequest: corpusAuth('contribute'),
      schema: { body: hotSnapshot, response: { 200: HotUploadResponse, ...errors } },
    },
    async (request) => service.uploadHot(deploymentOf(request), request.body),
  );

  // Public statistics: counts only, cached briefly by whoever asks (docs/rules.md#hub-protocol).
  app.get('/v1/stats', { schema: { response: { 200: StatsResponse, ...errors } } }, async (_request, reply) => {
    void reply.header('cache-control', `public, max-age=${STATS.cacheMaxAgeSec}`);
    return service.stats();
  });
  app.get('/v1/stats/corpus', { schema: { response: { 200: CorpusStatsResponse, ...errors } } }, async (_r, reply) => {
    void reply.header('cache-control', `public, max-age=${STATS.cacheMaxAgeSec}`);
    return service.corpusStats();
  });

  app.post(
    '/v1/heartbeat',
    {
      // The origin's bot sends `corpus_hot_snapshot: null` when it has nothing to attach.
      preValidation: async (request) => {
        const body: unknown = request.body;
        if (
          typeof body === 'object' &&
          body !== null &&
          'corpus_hot_snapshot' in body &&
          body.corpus_hot_snapshot === null
        )
          Reflect.deleteProperty(body, 'corpus_hot_snapshot');
      },
      schema: { body: heartbeat, response: { 200: HeartbeatResponse, ...errors } },
    },
    async (request) =>
      service.heartbeat({ body: request.body, authorization: request.headers.authorization, address: request.ip }),
  );

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    return reply.code(404).send({ detail: `no such route: ${request.method} ${path}` });
  });

  app.setErrorHandler((error: unknown, request, reply) => sendError(error, request, reply, settings, log));

  return app;
}

function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply, settings: HubSettings, log: Log) {
  if (error instanceof HttpError)
    return reply.code(error.statusCode).headers(error.headers).send({ detail: error.detail });
  if (error instanceof PoolTimeoutError) {
    return reply
      .code(503)
      .header('retry-after', String(BUSY_RETRY_AFTER_SEC))
      .send({ detail: 'the database is busy; retry shortly' });
  }
  const code = errorCode(error);
  const statusCode =
    typeof error === 'object' && error !== null && 'statusCode' in error ? error.statusCode : undefined;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return reply.code(413).send({ detail: `body: larger than ${settings.maxBodyBytes} bytes` });
  }
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    // Fastify's own request errors (JSON syntax, media type): their messages name the problem.
    const message = errorMessage(error);
    const part = typeof code === 'string' && code.startsWith('FST_ERR_CTP_') ? 'body: ' : '';
    return reply.code(statusCode).send({ detail: `${part}${message}` });
  }
  log.error({ err: { message: errorMessage(error) }, route: request.routeOptions.url }, 'hub request failed');
  return reply.code(500).send({ detail: 'internal error' });
}
