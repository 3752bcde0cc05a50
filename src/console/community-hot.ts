/**
 * Community hot words for GET /api/community-corpus-hot: read from the hub's public
 * `GET {hub}/v1/corpus/hot?mode&period&limit` (rule hub-protocol). The hub's /v1 base is
 * the community API base (`<hub>/v1/corpus`) without its trailing `/corpus`. No configured hub is
 * a 409 (the request cannot succeed until one is set); a hub that cannot be reached, times out or
 * answers badly is a 502 saying which of these happened.
 */
import { badGateway, conflict } from './errors.ts';

export const HOT_MODES = ['fleet', 'pool', 'recent'] as const;
export const HOT_PERIODS = ['day', 'week', 'month'] as const;

export interface HotQuery {
  mode: (typeof HOT_MODES)[number];
  period: (typeof HOT_PERIODS)[number];
  limit: number;
}

export interface HotAnswer {
  answer_keywords: string;
  message: string;
  count: number;
}

export interface HotItem {
  keywords: string;
  score: number;
  answers: HotAnswer[];
}

export interface HotPayload {
  mode: string;
  period: string;
  window_sec: number;
  as_of: string;
  items: HotItem[];
}

/** A hot-words answer larger than this is refused rather than parsed. */
const MAX_BODY_CHARS = 2_000_000;

/** `<hub>/v1/corpus` → `<hub>/v1/corpus/hot`; a base without `/corpus` gets it appended. */
export function hubHotUrl(apiBase: string): URL {
  const trimmed = apiBase.trim().replace(/\/+$/, '');
  const hubV1 = trimmed.endsWith('/corpus') ? trimmed.slice(0, -'/corpus'.length) : trimmed;
  let url: URL;
  try {
    url = new URL(`${hubV1}/corpus/hot`);
  } catch {
    throw conflict('the community API base is not a valid URL: fix community_api_base on the core plugin page');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw conflict('the community API base must be an http(s) URL');
  }
  return url;
}

export async function fetchCommunityHot(
  fetchFn: typeof fetch,
  apiBase: string,
  query: HotQuery,
  timeoutMs: number,
): Promise<HotPayload> {
  if (apiBase.trim() === '') {
    throw conflict('no community hub is configured: set community_api_base on the core plugin page or enroll');
  }
  const url = hubHotUrl(apiBase);
  url.searchParams.set('mode', query.mode);
  url.searchParams.set('period', query.period);
  url.searchParams.set('limit', String(query.limit));
  let response: Response;
  try {
    response = await fetchFn(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    const reason = timedOut ? `no answer within ${Math.round(timeoutMs / 1000)} s` : connectionProblem(error);
    throw badGateway(`community hub unreachable: ${reason}`);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw badGateway(`community hub answered HTTP ${response.status}`);
  }
  const text = await response.text().catch(() => '');
  if (text.length > MAX_BODY_CHARS) throw badGateway('community hub answer is too large');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw badGateway('community hub answered with invalid JSON');
  }
  const payload = normalise(body, query);
  if (payload === null) throw badGateway('community hub answered with an unexpected shape');
  return payload;
}

function connectionProblem(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  return typeof cause?.code === 'string' ? cause.code : 'connection failed';
}

function normalise(body: unknown, query: HotQuery): HotPayload | null {
  if (typeof body !== 'object' || body === null || !Array.isArray((body as { items?: unknown }).items)) return null;
  const raw = body as Record<string, unknown>;
  const items: HotItem[] = [];
  for (const item of raw.items as unknown[]) {
    if (typeof item !== 'object' || item === null) continue;
    const { keywords, score, answers } = item as Record<string, unknown>;
    if (typeof keywords !== 'string') continue;
    items.push({
      keywords,
      score: typeof score === 'number' && Number.isFinite(score) ? score : 0,
      answers: Array.isArray(answers) ? answers.flatMap(hotAnswer) : [],
    });
  }
  return {
    mode: typeof raw.mode === 'string' ? raw.mode : query.mode,
    period: typeof raw.period === 'string' ? raw.period : query.period,
    window_sec: typeof raw.window_sec === 'number' ? raw.window_sec : 0,
    as_of: typeof raw.as_of === 'string' ? raw.as_of : '',
    items: items.slice(0, query.limit),
  };
}

function hotAnswer(answer: unknown): HotAnswer[] {
  if (typeof answer !== 'object' || answer === null) return [];
  const { answer_keywords, message, count } = answer as Record<string, unknown>;
  if (typeof answer_keywords !== 'string') return [];
  return [
    {
      answer_keywords,
      message: typeof message === 'string' ? message : '',
      count: typeof count === 'number' && Number.isFinite(count) ? count : 0,
    },
  ];
}
