/**
 * The hub operator's admin API and page (docs/hub.md#moderation), under `/admin`: every API
 * route needs `Authorization: Bearer <CHORUS_HUB_ADMIN_TOKEN>` (401 without it, 404 while no
 * token is configured). The token is compared in constant time and never logged. Public
 * statistics stay counts-only; what is listed here is for the operator.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { HttpError, missingBearer } from './errors.ts';
import { registerAdminPage } from './admin-page.ts';
import type { HubModeration } from './moderation.ts';
import {
  AnswerBody,
  AuditQuery,
  BlockResponse,
  ChangeResponse,
  DeploymentParams,
  DeploymentsQuery,
  SearchQuery,
} from './moderation-schemas.ts';
import { ErrorBody } from './schemas.ts';
import { bearerToken, sameSecret } from './tokens.ts';

export const ADMIN_API = '/admin/api';

export interface AdminRoutesDeps {
  moderation: HubModeration;
  adminToken: string;
  /** The built web console (web/dist): the page is its `hub-admin.html` entry. */
  webRoot: string | null;
}

export function registerAdminRoutes(app: FastifyInstance, deps: AdminRoutesDeps): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { moderation, adminToken } = deps;
  const errors = { '4xx': ErrorBody, '5xx': ErrorBody };

  const adminAuth = async (request: FastifyRequest) => {
    if (adminToken === '') throw new HttpError(404, 'hub moderation is off: set CHORUS_HUB_ADMIN_TOKEN');
    const presented = bearerToken(request.headers.authorization);
    if (presented === null) throw missingBearer();
    if (!sameSecret(presented, adminToken)) throw new HttpError(401, 'invalid admin token');
  };
  const guarded = { onRequest: adminAuth };

  api.get(`${ADMIN_API}/session`, { ...guarded }, async () => ({ ok: true, now: moderation.now() }));

  api.get(`${ADMIN_API}/answers`, { ...guarded, schema: { querystring: SearchQuery } }, async (request) => {
    const { q = '', limit = 50, offset = 0 } = request.query;
    const items = await moderation.store.searchAnswers(q.trim(), limit, offset);
    return {
      items: items.map((item) => ({
        keywords: item.keywords,
        answer_keywords: item.answerKeywords,
        count: item.count,
        time: item.time,
        reports: item.reports,
        // Distinct agreeing deployments come with the agreement rule (0002_agreement); null until then.
        deployments: null,
        withdrawn: item.withdrawn,
      })),
    };
  });

  api.post(
    `${ADMIN_API}/withdraw`,
    { ...guarded, schema: { body: AnswerBody, response: { 200: ChangeResponse, ...errors } } },
    async (request) => moderation.withdraw(moderation.answerRef(request.body), request.ip),
  );
  api.post(
    `${ADMIN_API}/restore`,
    { ...guarded, schema: { body: AnswerBody, response: { 200: ChangeResponse, ...errors } } },
    async (request) => moderation.restore(moderation.answerRef(request.body), request.ip),
  );

  api.get(`${ADMIN_API}/deployments`, { ...guarded, schema: { querystring: DeploymentsQuery } }, async (request) => {
    const { q = '', limit = 50 } = request.query;
    const items = await moderation.store.deployments(q.trim().toLowerCase(), limit);
    return {
      items: items.map((item) => ({
        deployment_id: item.deploymentId,
        enrolled_at: item.enrolledAt,
        blocked: item.blocked,
        contribute_ok: item.contributeOk,
        reports: item.reports,
      })),
    };
  });
  for (const blocked of [true, false]) {
    api.post(
      `${ADMIN_API}/deployments/:id/${blocked ? 'block' : 'unblock'}`,
      { ...guarded, schema: { params: DeploymentParams, response: { 200: BlockResponse, ...errors } } },
      async (request) => moderation.setBlocked(request.params.id, blocked, request.ip),
    );
  }

  api.get(`${ADMIN_API}/rates`, { ...guarded }, async () => ({
    note: 'per hub process, since it started',
    items: moderation.rates.top(moderation.now(), 100),
  }));

  api.get(`${ADMIN_API}/audit`, { ...guarded, schema: { querystring: AuditQuery } }, async (request) => ({
    items: (await moderation.store.auditLog(request.query.limit ?? 100)).map((entry) => ({
      id: entry.id,
      at: entry.at,
      action: entry.action,
      target: entry.target,
      address: entry.address,
    })),
  }));

  registerAdminPage(app, deps.webRoot);
}
