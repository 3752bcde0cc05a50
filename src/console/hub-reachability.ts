/**
 * Whether the community hub answers, and since when (the home page's health strip and the 社区
 * page). A hub that is configured says nothing about whether it can be reached: this asks its
 * public `GET /v1/stats` at most once per `everyMs` (callers in between share the last answer) and
 * remembers when the answer last changed. Any HTTP status below 500 counts as reachable; no
 * answer, a refused connection or a 5xx does not.
 */
import { hubV1Url } from './hub-fetch.ts';

export type HubState = 'not_configured' | 'reachable' | 'unreachable';

export interface HubReachabilityReport {
  state: HubState;
  /** Unix ms since when this process has seen the hub in this state; null when not configured. */
  since: number | null;
  /** Unix ms of the last answer or failure; null when not configured. */
  checked_at: number | null;
  /** Why it is unreachable: `timeout`, `connection` (with the system's code) or `http_status`. */
  problem: { code: 'timeout' | 'connection' | 'http_status'; detail: string } | null;
  api_base: string;
}

export interface HubReachabilityOptions {
  fetch: typeof fetch;
  nowMs: () => number;
  everyMs?: number;
  timeoutMs?: number;
}

export class HubReachability {
  #last: HubReachabilityReport | null = null;
  #flight: Promise<HubReachabilityReport> | null = null;

  constructor(private readonly options: HubReachabilityOptions) {}

  /** The hub's state; asks it again when the last answer is older than `everyMs` or for another base. */
  async report(apiBase: string): Promise<HubReachabilityReport> {
    const base = apiBase.trim();
    if (base === '') {
      this.#last = null;
      return { state: 'not_configured', since: null, checked_at: null, problem: null, api_base: '' };
    }
    const last = this.#last;
    const fresh = last && last.api_base === base && this.options.nowMs() - (last.checked_at ?? 0) < this.#everyMs;
    if (fresh) return last;
    this.#flight ??= this.#probe(base).finally(() => (this.#flight = null));
    return this.#flight;
  }

  get #everyMs(): number {
    return this.options.everyMs ?? 15_000;
  }

  async #probe(base: string): Promise<HubReachabilityReport> {
    let problem: HubReachabilityReport['problem'] = null;
    try {
      const url = hubV1Url(base, 'stats');
      const timeoutMs = this.options.timeoutMs ?? 3000;
      const response = await this.options.fetch(url, {
        signal: AbortSignal.timeout(timeoutMs),
        headers: { accept: 'application/json' },
        redirect: 'manual',
      });
      await response.body?.cancel().catch(() => undefined);
      if (response.status >= 500) problem = { code: 'http_status', detail: String(response.status) };
    } catch (error) {
      problem = describe(error);
    }
    const now = this.options.nowMs();
    const state: HubState = problem ? 'unreachable' : 'reachable';
    const previous = this.#last;
    const since = previous && previous.api_base === base && previous.state === state ? previous.since : now;
    this.#last = { state, since, checked_at: now, problem, api_base: base };
    return this.#last;
  }
}

function describe(error: unknown): NonNullable<HubReachabilityReport['problem']> {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return { code: 'timeout', detail: '' };
  }
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  // A base that is not a valid http(s) URL (hubV1Url's 409) cannot be reached either.
  const detail = typeof cause?.code === 'string' ? cause.code : error instanceof Error ? error.message : '';
  return { code: 'connection', detail };
}
