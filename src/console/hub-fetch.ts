/**
 * Reading the community hub's public routes for the console (hot words, statistics). The hub's
 * /v1 base is the community API base (`<hub>/v1/corpus`) without its trailing `/corpus`. No
 * configured hub is a 409 (the request cannot succeed until one is set); a hub that cannot be
 * reached, times out or answers badly is a 502 saying which of these happened.
 */
import { badGateway, conflict } from './errors.ts';

/** A hub answer larger than this is refused rather than parsed. */
const MAX_BODY_CHARS = 2_000_000;

/** `<hub>/v1/corpus` + `corpus/hot` → `<hub>/v1/corpus/hot`; a base without `/corpus` is the /v1 base. */
export function hubV1Url(apiBase: string, path: string): URL {
  if (apiBase.trim() === '') {
    throw conflict(
      'hub_not_configured',
      {},
      'no community hub is configured: set community_api_base on the core plugin page or enroll',
    );
  }
  const trimmed = apiBase.trim().replace(/\/+$/, '');
  const hubV1 = trimmed.endsWith('/corpus') ? trimmed.slice(0, -'/corpus'.length) : trimmed;
  let url: URL;
  try {
    url = new URL(`${hubV1}/${path}`);
  } catch {
    throw conflict(
      'hub_url_invalid',
      {},
      'the community API base is not a valid URL: fix community_api_base on the core plugin page',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw conflict('hub_url_invalid', {}, 'the community API base must be an http(s) URL');
  }
  return url;
}

/** GET `url` as JSON within `timeoutMs`; every failure is a 502 naming what happened. */
export async function fetchHubJson(fetchFn: typeof fetch, url: URL, timeoutMs: number): Promise<unknown> {
  let response: Response;
  try {
    response = await fetchFn(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    const reason = timedOut ? `no answer within ${Math.round(timeoutMs / 1000)} s` : connectionProblem(error);
    throw timedOut
      ? badGateway('hub_timeout', { seconds: Math.round(timeoutMs / 1000) }, `community hub unreachable: ${reason}`)
      : badGateway('hub_unreachable', {}, `community hub unreachable: ${reason}`);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw badGateway('hub_http_status', { status: response.status }, `community hub answered HTTP ${response.status}`);
  }
  const text = await response.text().catch(() => '');
  if (text.length > MAX_BODY_CHARS) throw badGateway('hub_bad_answer', {}, 'community hub answer is too large');
  try {
    return JSON.parse(text);
  } catch {
    throw badGateway('hub_bad_answer', {}, 'community hub answered with invalid JSON');
  }
}

function connectionProblem(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  return typeof cause?.code === 'string' ? cause.code : 'connection failed';
}
