/**
 * The community HTTP source (docs/rules.md#community-http): reads
 * `GET {base}/context`, contributes `POST {base}/contribute`, reads `GET {base}/usage`, trying
 * every base in order. Building one stores only the bases and the token; requests go through
 * Node's fetch with per-request timeouts, so nothing connects before the first call.
 */
import type { Context, LearnInput } from '../domain/corpus.ts';
import type { CommunityUsage } from '../corpus/status.ts';
import type { RemoteCorpusSource } from '../ports/remote-corpus.ts';
import { RateLimitedLog, type Log } from '../common/log.ts';
import { insertBody, parseContext, parseUsage, parseWithdrawn, upsertBody, type WithdrawnPage } from './codec.ts';
import { isObject, requestJson, TransportError, type FetchLike } from './http.ts';

export type AuthFailureSource = 'read' | 'contribute' | 'usage';

export interface CommunityTimeouts {
  readMs: number;
  contributeMs: number;
  usageMs: number;
}

export interface CommunityClientOptions {
  bases: readonly string[];
  token: string;
  /** Read on every request, so a configuration change applies to the next one. */
  timeouts: () => CommunityTimeouts;
  /**
   * A 401 (read, usage) or 401/403 (contribute): the token is no longer good. Reads and
   * contributions do not wait for it (fire and forget); usage waits (docs/rules.md#enroll, #usage).
   */
  onAuthFailure: (source: AuthFailureSource) => void | Promise<void>;
  fetch?: FetchLike;
  log: Log;
  /** Monotonic ms, for the rate-limited log. */
  now: () => number;
  /** Counters to add to (shared across rebuilt clients); a fresh set by default. */
  counters?: CommunityClientCounters;
}

/** How a contribution ended: accepted (200/202), refused by every base, or refused for the token. */
export type ContributeOutcome = 'ok' | 'rejected' | 'auth';

export interface CommunityClientCounters {
  reads: number;
  readHits: number;
  readMisses: number;
  readFailovers: number;
  readAuthFailures: number;
  contributeOk: number;
  contributeRejected: number;
  contributeAuthFailures: number;
  contributeFailovers: number;
  usageRequests: number;
}

export function newClientCounters(): CommunityClientCounters {
  return {
    reads: 0,
    readHits: 0,
    readMisses: 0,
    readFailovers: 0,
    readAuthFailures: 0,
    contributeOk: 0,
    contributeRejected: 0,
    contributeAuthFailures: 0,
    contributeFailovers: 0,
    usageRequests: 0,
  };
}

export class CommunityClient implements RemoteCorpusSource {
  readonly counters: CommunityClientCounters;
  readonly bases: readonly string[];
  readonly token: string;
  readonly #options: CommunityClientOptions;
  readonly #log: RateLimitedLog;

  constructor(options: CommunityClientOptions) {
    // Bases not starting with "http" are skipped (docs/rules.md#community-http).
    this.bases = options.bases.filter((base) => /^https?:\/\//i.test(base));
    this.token = options.token;
    this.counters = options.counters ?? newClientCounters();
    this.#options = options;
    this.#log = new RateLimitedLog(options.log, options.now);
  }

  /**
   * The community's context for a key, or null (404, a non-object body, a 401, or every base
   * answering another status). Throws the last transport error when no base answered at all.
   */
  async findByKeywords(keywords: string): Promise<Context | null> {
    const key = keywords.trim();
    if (key === '' || this.bases.length === 0) return null;
    this.counters.reads++;
    let lastError: TransportError | undefined;
    for (const base of this.bases) {
      let result;
      try {
        result = await requestJson(this.#fetch, {
          method: 'GET',
          url: `${base}/context?keywords=${encodeURIComponent(key)}`,
          token: this.token,
          timeoutMs: this.#options.timeouts().readMs,
        });
      } catch (error) {
        if (!(error instanceof TransportError)) throw error;
        lastError = error;
        this.counters.readFailovers++;
        continue;
      }
      if (result.status === 401) {
        this.counters.readAuthFailures++;
        this.#authFailure('read');
        return null;
      }
      if (result.status === 404) return this.#miss();
      if (result.status !== 200) {
        this.counters.readFailovers++;
        this.#log.warn(`read-${base}`, { base, status: result.status, bytes: result.bytes }, 'community read refused');
        continue;
      }
      if (!isObject(result.json)) return this.#miss();
      this.counters.readHits++;
      return parseContext(result.json);
    }
    if (lastError) throw lastError;
    return this.#miss();
  }

  /** Contribute a whole context (group 0 on every answer, no bans on the wire). */
  insert(context: Context): Promise<ContributeOutcome> {
    return this.#contribute(insertBody(context));
  }

  /** Contribute one learn event (group 0 on the wire). */
  upsertAnswer(input: LearnInput): Promise<ContributeOutcome> {
    return this.#contribute(upsertBody(input));
  }

  /**
   * Reports an answer this deployment banned (docs/hub.md#moderation): context and answer keywords
   * only. 'ok' when a base accepted it; 'rejected' when every base refused it (a 4xx other than
   * 401/403/429 is final: the queue drops it); throws when no base answered, so the queue retries.
   */
  async report(keywords: string, answerKeywords: string): Promise<'ok' | 'rejected' | 'retry'> {
    let lastError: TransportError | undefined;
    let retry = false;
    for (const base of this.bases) {
      let result;
      try {
        result = await requestJson(this.#fetch, {
          method: 'POST',
          url: `${base}/report`,
          token: this.token,
          body: { keywords, answer_keywords: answerKeywords },
          timeoutMs: this.#options.timeouts().contributeMs,
        });
      } catch (error) {
        if (!(error instanceof TransportError)) throw error;
        lastError = error;
        continue;
      }
      if (result.status === 200) return 'ok';
      if (result.status === 401) this.#authFailure('contribute');
      // Retried later: the token is being renewed, the hub is busy, or it predates reports (404).
      if ([401, 403, 404, 429].includes(result.status) || result.status >= 500) retry = true;
      this.#log.warn(`report-${base}`, { base, status: result.status }, 'community report refused');
    }
    if (lastError && !retry) throw lastError;
    return retry || lastError ? 'retry' : 'rejected';
  }

  /**
   * The answers the hub withdrew from `since` (unix s) on, oldest first, and the hub's time; null
   * when no base answered 200 (a hub without moderation answers 404).
   */
  async withdrawn(since: number): Promise<WithdrawnPage | null> {
    for (const base of this.bases) {
      let result;
      try {
        result = await requestJson(this.#fetch, {
          method: 'GET',
          url: `${base}/withdrawn?since=${Math.max(0, Math.floor(since))}`,
          token: this.token,
          timeoutMs: this.#options.timeouts().readMs,
        });
      } catch (error) {
        if (!(error instanceof TransportError)) throw error;
        continue;
      }
      if (result.status === 401) this.#authFailure('read');
      if (result.status === 200 && isObject(result.json)) return parseWithdrawn(result.json);
    }
    return null;
  }

  /**
   * The deployment's usage figures (docs/rules.md#usage): the first base answering 200 with an object. A 401
   * awaits the re-enrollment and gives null; other failures try the next base, then null.
   */
  async usage(): Promise<CommunityUsage | null> {
    if (this.bases.length === 0 || this.token === '') return null;
    this.counters.usageRequests++;
    for (const base of this.bases) {
      let result;
      try {
        result = await requestJson(this.#fetch, {
          method: 'GET',
          url: `${base}/usage`,
          token: this.token,
          timeoutMs: this.#options.timeouts().usageMs,
        });
      } catch (error) {
        if (!(error instanceof TransportError)) throw error;
        continue;
      }
      if (result.status === 401) {
        await this.#options.onAuthFailure('usage');
        return null;
      }
      if (result.status === 200 && isObject(result.json)) return parseUsage(result.json);
    }
    return null;
  }

  get #fetch(): FetchLike {
    return this.#options.fetch ?? fetch;
  }

  #miss(): null {
    this.counters.readMisses++;
    return null;
  }

  /**
   * docs/rules.md#community-http: 200 or 202 ends it; 401/403 schedules re-enrollment and tries the next base; another
   * status tries the next base; a transport error too, and is thrown when no base accepted.
   */
  async #contribute(body: Record<string, unknown>): Promise<ContributeOutcome> {
    let lastError: TransportError | undefined;
    let authRefused = false;
    for (const base of this.bases) {
      let result;
      try {
        result = await requestJson(this.#fetch, {
          method: 'POST',
          url: `${base}/contribute`,
          token: this.token,
          body,
          timeoutMs: this.#options.timeouts().contributeMs,
        });
      } catch (error) {
        if (!(error instanceof TransportError)) throw error;
        lastError = error;
        this.counters.contributeFailovers++;
        continue;
      }
      if (result.status === 200 || result.status === 202) {
        this.counters.contributeOk++;
        return 'ok';
      }
      if (result.status === 401 || result.status === 403) {
        authRefused = true;
        this.counters.contributeAuthFailures++;
        this.#authFailure('contribute');
      } else {
        this.counters.contributeFailovers++;
      }
      this.#log.warn(`contribute-${base}`, { base, status: result.status }, 'community contribution refused');
    }
    if (lastError) throw lastError;
    this.counters.contributeRejected++;
    return authRefused ? 'auth' : 'rejected';
  }

  #authFailure(source: AuthFailureSource): void {
    try {
      void Promise.resolve(this.#options.onAuthFailure(source)).catch(() => undefined);
    } catch {
      // The callback owns its failures; a read never fails because of it.
    }
  }
}
