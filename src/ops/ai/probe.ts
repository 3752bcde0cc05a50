/**
 * The connection test: each health path in order (not under the API prefix), with the Bearer token
 * when one is set and the configured timeout; the first 2xx answer wins. The answer always says
 * which URLs were tried and, for a healthy service, the health summaries its JSON body carries.
 */
import { callAi } from './ai-http.ts';
import type { AiExtensionConfig } from './config-file.ts';
import { normalisePath } from './config-file.ts';

/** Summaries the AI service's health body may carry, passed on as it reports them. */
export const HEALTH_SUMMARY_KEYS = ['media_tasks', 'llm_health', 'tts_health', 'image_circuit'] as const;
type SummaryKey = (typeof HEALTH_SUMMARY_KEYS)[number];

export interface ProbeResult extends Record<SummaryKey, Record<string, unknown> | null> {
  ok: boolean;
  status_code: number | null;
  /** The URL that answered, or the first one that failed. */
  health_url: string;
  tried_urls: string[];
  error: string | null;
  /** The health body's `status` text, when it has one. */
  status: string | null;
  llm_detail: string | null;
  elapsed_ms: number;
}

const NO_HEALTH_PATH = 'no health path answered';

export async function probeAi(
  fetchImpl: typeof fetch,
  config: AiExtensionConfig,
  now: () => number,
): Promise<ProbeResult> {
  const started = now();
  const tried: string[] = [];
  let firstFailed = '';
  let lastError: string | null = null;
  let lastStatus: number | null = null;
  for (const path of config.health_paths) {
    const url = `${config.base_url}${normalisePath(path) || '/'}`;
    tried.push(url);
    const response = await callAi(fetchImpl, {
      method: 'GET',
      url,
      token: config.token,
      timeoutMs: config.timeout_sec * 1000,
    });
    if (response.status !== null && response.status >= 200 && response.status < 300) {
      return {
        ...summaries(response.json),
        ok: true,
        status_code: response.status,
        health_url: url,
        tried_urls: tried,
        error: null,
        elapsed_ms: now() - started,
      };
    }
    firstFailed ||= url;
    lastStatus = response.status;
    lastError =
      response.status === null
        ? (response.error ?? 'no answer')
        : response.status === 401 || response.status === 403
          ? `HTTP ${response.status}: the AI service refused the token (compare the token here with CHORUS_AI_API_TOKEN on the AI side)`
          : `HTTP ${response.status}`;
  }
  return {
    ...summaries(undefined),
    ok: false,
    status_code: lastStatus,
    health_url: firstFailed,
    tried_urls: tried,
    error: lastError ?? NO_HEALTH_PATH,
    elapsed_ms: now() - started,
  };
}

function summaries(body: unknown): Pick<ProbeResult, SummaryKey | 'status' | 'llm_detail'> {
  const object =
    typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  // A service may wrap its health in the usual {ok, data} envelope.
  const data =
    typeof object.data === 'object' && object.data !== null && !Array.isArray(object.data)
      ? (object.data as Record<string, unknown>)
      : object;
  const pick = (key: SummaryKey) => {
    const value = data[key];
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  };
  return {
    status: typeof data.status === 'string' ? data.status : null,
    llm_detail: typeof data.llm_detail === 'string' ? data.llm_detail : null,
    media_tasks: pick('media_tasks'),
    llm_health: pick('llm_health'),
    tts_health: pick('tts_health'),
    image_circuit: pick('image_circuit'),
  };
}
