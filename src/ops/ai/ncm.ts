/**
 * The AI service's music-service (NCM) login, proxied: status, sending a verification code,
 * verifying it, logging out. Every answer is wrapped the same way whatever the AI service says, so
 * the page can show it: `{ok, status_code, url, data, error}`. The phone number and the code go
 * in the request body only; they are never part of a URL, an error text or a log line.
 */
import { aiApiUrl, callAi } from './ai-http.ts';
import type { AiExtensionConfig } from './config-file.ts';

export interface NcmReply {
  /** Whether the AI service answered 2xx. */
  ok: boolean;
  status_code: number | null;
  url: string;
  /** The AI service's JSON, `{raw}` for a non-JSON body, `{}` for none. */
  data: Record<string, unknown>;
  error: string | null;
}

export const NCM_PATHS = {
  status: '/ncm/login/status',
  sendSms: '/ncm/login/cellphone/send-sms',
  verifySms: '/ncm/login/cellphone/verify-sms',
  logout: '/ncm/login/logout',
} as const;

export async function callNcm(
  fetchImpl: typeof fetch,
  config: AiExtensionConfig,
  method: 'GET' | 'POST',
  path: string,
  body?: Record<string, unknown>,
): Promise<NcmReply> {
  const url = aiApiUrl(config.base_url, config.api_prefix, path);
  const response = await callAi(fetchImpl, {
    method,
    url,
    token: config.token,
    timeoutMs: config.timeout_sec * 1000,
    ...(body !== undefined ? { body } : {}),
  });
  const ok = response.status !== null && response.status >= 200 && response.status < 300;
  let data: Record<string, unknown>;
  if (typeof response.json === 'object' && response.json !== null && !Array.isArray(response.json)) {
    data = response.json as Record<string, unknown>;
  } else if (response.json !== undefined) {
    data = { value: response.json };
  } else {
    data = response.text !== '' ? { raw: response.text.slice(0, 4000) } : {};
  }
  const error = ok ? null : response.status === null ? response.error : `HTTP ${response.status}`;
  return { ok, status_code: response.status, url, data, error };
}
