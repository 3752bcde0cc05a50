/**
 * The AI extension's config, connection test and music-service (NCM) login proxy. The proxy's
 * status is cached briefly (3 s, stale up to 30 s) and dropped by every login action and config
 * save. Phone numbers and codes only pass through: they are never logged.
 */
import type { preValidationHookHandler } from 'fastify';
import {
  AiConfig,
  AI_CONFIG_BODY_FIELDS,
  AiConfigBody,
  NcmReply,
  ProbeResult,
  SavedAiConfig,
  SendSmsBody,
  VerifySmsBody,
} from '../ai-schemas.ts';
import type { ConsoleApp, RouteContext } from '../context.ts';
import { invalidField } from '../errors.ts';
import { aiInstallRoutes } from './ai-install.ts';
import { aiLogRoutes } from './ai-logs.ts';

const tags = ['ai-extension'];
const NCM_STATUS_KEY = 'ai-extension:ncm-status';
const NCM_STATUS_FRESHNESS = { ttlMs: 3000, staleMs: 30_000 };
const DEFAULT_COUNTRY_CODE = 86;

/** Every unknown field of the config body in one 400 (the schema check would name only the first). */
const refuseUnknownFields: preValidationHookHandler = (request, _reply, done) => {
  const body = request.body;
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const known: readonly string[] = AI_CONFIG_BODY_FIELDS;
    const unknown = Object.keys(body).filter((key) => !known.includes(key));
    if (unknown.length > 0) {
      done(
        invalidField(
          `body.${unknown[0] ?? ''}`,
          'extra',
          `body: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (known: ${known.join(', ')})`,
        ),
      );
      return;
    }
  }
  done();
};

export function aiExtensionRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const ai = ctx.deps.aiExtension;
  /** A login action changes the status: the cached one goes when the action is done. */
  const dropStatusAfter = async <T>(action: Promise<T>): Promise<T> => {
    try {
      return await action;
    } finally {
      ctx.cache.invalidate(NCM_STATUS_KEY);
    }
  };

  api.get(
    '/ai-extension/config',
    {
      schema: {
        tags,
        summary: 'AI extension config (data/ai_extension.json; the token is never shown)',
        response: { 200: AiConfig },
      },
    },
    () => ai.config(),
  );

  api.put(
    '/ai-extension/config',
    {
      config: { auth: 'write', envelope: false },
      preValidation: refuseUnknownFields,
      schema: {
        tags,
        summary: 'Save the AI extension config; also sets CHORUS_AI_SERVER_HOST/PORT and CHORUS_AI_API_TOKEN to match',
        body: AiConfigBody,
        response: { 200: SavedAiConfig },
      },
    },
    async (request) => {
      const saved = await ai.saveConfig(request.body);
      ctx.cache.invalidate(NCM_STATUS_KEY);
      return {
        ok: true as const,
        data: saved.config,
        synced_ai_server: saved.synced_ai_server,
        synced_ai_token: saved.synced_ai_token,
        ai_token_source: saved.ai_token_source,
        sync_error: saved.sync_error,
      };
    },
  );

  api.post(
    '/ai-extension/test',
    {
      config: { auth: 'write' },
      schema: {
        tags,
        summary: 'Probe the AI service: the health paths in order; always 200 with ok true or false',
        response: { 200: ProbeResult },
      },
    },
    () => ai.test(),
  );

  api.get(
    '/ai-extension/ncm/status',
    {
      schema: {
        tags,
        summary: 'Music-service login status from the AI service (cached 3 s)',
        response: { 200: NcmReply },
      },
    },
    () => ctx.cache.get(NCM_STATUS_KEY, NCM_STATUS_FRESHNESS, () => ai.ncmStatus()),
  );

  api.post(
    '/ai-extension/ncm/send-sms',
    {
      config: { auth: 'write' },
      schema: {
        tags,
        summary: 'Ask the AI service to send a login code by SMS',
        body: SendSmsBody,
        response: { 200: NcmReply },
      },
    },
    (request) => dropStatusAfter(ai.ncmSendSms(request.body.phone, request.body.ctcode ?? DEFAULT_COUNTRY_CODE)),
  );

  api.post(
    '/ai-extension/ncm/verify-sms',
    {
      config: { auth: 'write' },
      schema: {
        tags,
        summary: 'Log in to the music service with the SMS code',
        body: VerifySmsBody,
        response: { 200: NcmReply },
      },
    },
    (request) => {
      const { phone, captcha, ctcode } = request.body;
      return dropStatusAfter(ai.ncmVerifySms(phone, captcha, ctcode ?? DEFAULT_COUNTRY_CODE));
    },
  );

  api.post(
    '/ai-extension/ncm/logout',
    {
      config: { auth: 'write' },
      schema: { tags, summary: 'Log out of the music service', response: { 200: NcmReply } },
    },
    () => dropStatusAfter(ai.ncmLogout()),
  );

  aiInstallRoutes(api, ctx);
  aiLogRoutes(api, ctx);
}
