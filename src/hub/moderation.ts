/**
 * Moderation of the shared pool (docs/hub.md#moderation, docs/rules.md#hub-moderation): deployments report answers they banned
 * (POST /v1/corpus/report), an answer reported by `reportThreshold` distinct deployments or
 * withdrawn by a moderator is no longer served and is listed by GET /v1/corpus/withdrawn, and
 * the operator's admin API (admin-routes.ts) withdraws, restores, blocks and reads the audit log.
 */
import type { Clock } from '../common/clock.ts';
import { stripNul } from '../common/text.ts';
import { keywordsHash } from '../domain/keywords-hash.ts';
import { badRequest, forbidden, HttpError } from './errors.ts';
import type { AnswerRef, HubModerationStore } from './moderation-store.ts';
import type { HubSettings } from './settings.ts';

/**
 * How long a process trusts its copies of the blocked deployments and the withdrawn answers
 * (several hubs may share a database; this process's own changes apply at once). Both sets are
 * small, and a context read then costs no query for them.
 */
const REFRESH_MS = 5_000;
/** Most withdrawals one GET /withdrawn answers; the bot asks again from the last one's time. */
export const WITHDRAWN_PAGE_MAX = 500;
/** Addresses whose rates are kept in memory; the least recently seen goes first. */
const RATE_ADDRESSES_MAX = 2_000;

export type RatePurpose = 'enroll' | 'contribute';

interface AddressRate {
  lastAt: number;
  /** Per purpose: [minute start, count in it, hour start, count in it]. */
  counts: Record<RatePurpose, [number, number, number, number]>;
}

export interface AddressRateView {
  address: string;
  last_at: number;
  enroll_per_minute: number;
  enroll_per_hour: number;
  contribute_per_minute: number;
  contribute_per_hour: number;
}

/**
 * Enrollments and contributions per client address, in this process's memory (a count per
 * fixed minute and hour): what the admin page shows, never a database write per request.
 */
export class AddressRates {
  readonly #rates = new Map<string, AddressRate>();

  note(purpose: RatePurpose, address: string, now: number): void {
    let rate = this.#rates.get(address);
    if (rate) this.#rates.delete(address);
    else {
      rate = { lastAt: now, counts: { enroll: [0, 0, 0, 0], contribute: [0, 0, 0, 0] } };
      if (this.#rates.size >= RATE_ADDRESSES_MAX) {
        const oldest = this.#rates.keys().next().value;
        if (oldest !== undefined) this.#rates.delete(oldest);
      }
    }
    // Re-inserted: the map's order is least recently seen first.
    this.#rates.set(address, rate);
    rate.lastAt = now;
    const counts = rate.counts[purpose];
    const minute = now - (now % 60);
    const hour = now - (now % 3600);
    if (counts[0] !== minute) counts.splice(0, 2, minute, 0);
    if (counts[2] !== hour) counts.splice(2, 2, hour, 0);
    counts[1]++;
    counts[3]++;
  }

  /** The busiest addresses of the last hour, busiest first. */
  top(now: number, limit: number): AddressRateView[] {
    const minute = now - (now % 60);
    const hour = now - (now % 3600);
    const views: AddressRateView[] = [];
    for (const [address, rate] of this.#rates) {
      const per = (purpose: RatePurpose) => {
        const [m, mc, h, hc] = rate.counts[purpose];
        return { minute: m === minute ? mc : 0, hour: h === hour ? hc : 0 };
      };
      const enroll = per('enroll');
      const contribute = per('contribute');
      if (enroll.hour + contribute.hour === 0) continue;
      views.push({
        address,
        last_at: rate.lastAt,
        enroll_per_minute: enroll.minute,
        enroll_per_hour: enroll.hour,
        contribute_per_minute: contribute.minute,
        contribute_per_hour: contribute.hour,
      });
    }
    views.sort((a, b) => b.enroll_per_hour + b.contribute_per_hour - (a.enroll_per_hour + a.contribute_per_hour));
    return views.slice(0, limit);
  }
}

export interface HubModerationDeps {
  store: HubModerationStore;
  settings: Pick<HubSettings, 'reportThreshold' | 'maxKeywordsChars'>;
  clock: Clock;
}

export class HubModeration {
  readonly rates = new AddressRates();
  readonly #deps: HubModerationDeps;
  #blocked: { ids: Set<string>; at: number } | null = null;
  #withdrawn: { byContext: Map<string, Set<string>>; at: number } | null = null;
  #loadingWithdrawn: Promise<Map<string, Set<string>>> | null = null;
  /** Moves on each change made here: a read begun before it is not cached after it. */
  #withdrawnGeneration = 0;

  constructor(deps: HubModerationDeps) {
    this.#deps = deps;
  }

  get store(): HubModerationStore {
    return this.#deps.store;
  }

  now(): number {
    return Math.floor(this.#deps.clock.nowMs() / 1000);
  }

  /** The answer a request names, checked: 400 naming the field when blank or too long. */
  answerRef(body: { keywords: string; answer_keywords: string }, where: 'body' | 'query' = 'body'): AnswerRef {
    const max = this.#deps.settings.maxKeywordsChars;
    const check = (value: string, field: string) => {
      const text = stripNul(value);
      if (text.trim() === '') throw badRequest(`${where}.${field}: must not be blank`);
      if (text.length > max) throw badRequest(`${where}.${field}: must not have more than ${max} characters`);
      return text;
    };
    const keywords = check(body.keywords, 'keywords');
    const answerKeywords = check(body.answer_keywords, 'answer_keywords');
    return { keywords, hash: keywordsHash(keywords), answerKeywords, answerHash: keywordsHash(answerKeywords) };
  }

  /** POST /v1/corpus/report: one deployment's report; withdraws at the configured line. */
  async report(deploymentId: string, body: { keywords: string; answer_keywords: string }) {
    const ref = this.answerRef(body);
    const result = await this.store.report(ref, deploymentId, this.#deps.settings.reportThreshold, this.now());
    if (result.withdrawn) this.#invalidateWithdrawn();
    return { ok: true as const, reports: result.reports, withdrawn: result.withdrawn };
  }

  /** GET /v1/corpus/withdrawn?since=: what is withdrawn from `since` (unix s) on, oldest first. */
  async withdrawnSince(since: number, limit: number) {
    const items = await this.store.withdrawnSince(since, Math.min(limit, WITHDRAWN_PAGE_MAX));
    return {
      as_of: this.now(),
      items: items.map((item) => ({
        keywords: item.keywords,
        answer_keywords: item.answerKeywords,
        reason: item.reason,
        withdrawn_at: item.withdrawnAt,
      })),
    };
  }

  /** The context's answers without the withdrawn ones (each answer keyed by its keywords' md5). */
  async servable<A extends { keywords: string }>(contextKeywords: string, answers: A[]): Promise<A[]> {
    if (answers.length === 0) return answers;
    const withdrawn = (await this.#withdrawnNow()).get(keywordsHash(contextKeywords));
    if (!withdrawn) return answers;
    return answers.filter((answer) => !withdrawn.has(keywordsHash(answer.keywords)));
  }

  /** Hot words' answers without the withdrawn ones (one lookup per item that has answers). */
  async servableHot<I extends { keywords: string; answers: { answer_keywords: string }[] }>(items: I[]): Promise<I[]> {
    const result: I[] = [];
    for (const item of items) {
      if (item.answers.length === 0) {
        result.push(item);
        continue;
      }
      const withdrawn = (await this.#withdrawnNow()).get(keywordsHash(item.keywords));
      const answers = withdrawn
        ? item.answers.filter((answer) => !withdrawn.has(keywordsHash(answer.answer_keywords)))
        : item.answers;
      result.push({ ...item, answers });
    }
    return result;
  }

  /** 403 for a blocked deployment; the blocked set is re-read at most every few seconds. */
  async refuseBlocked(deploymentId: string): Promise<void> {
    const nowMs = this.#deps.clock.nowMs();
    if (!this.#blocked || nowMs - this.#blocked.at > REFRESH_MS) {
      this.#blocked = { ids: await this.store.blockedDeployments(), at: nowMs };
    }
    if (this.#blocked.ids.has(deploymentId)) throw forbidden('deployment blocked by the hub operator');
  }

  async withdraw(ref: AnswerRef, address: string) {
    const changed = await this.store.withdraw(ref, this.now());
    this.#invalidateWithdrawn();
    if (changed) await this.#audit('withdraw', `${ref.keywords} → ${ref.answerKeywords}`, address);
    return { ok: true as const, changed };
  }

  async restore(ref: AnswerRef, address: string) {
    const changed = await this.store.restore(ref, this.now());
    this.#invalidateWithdrawn();
    if (changed) await this.#audit('restore', `${ref.keywords} → ${ref.answerKeywords}`, address);
    return { ok: true as const, changed };
  }

  async setBlocked(deploymentId: string, blocked: boolean, address: string) {
    const id = deploymentId.toLowerCase();
    const found = blocked ? await this.store.blockDeployment(id) : await this.store.unblockDeployment(id);
    if (!found) throw new HttpError(404, `params.id: no deployment ${id}`);
    // This process applies it at once; others within REFRESH_MS.
    this.#blocked = null;
    await this.#audit(blocked ? 'block' : 'unblock', id, address);
    return { ok: true as const, deployment_id: id, blocked };
  }

  /** The withdrawn answers by context hash, re-read when older than REFRESH_MS (one read at a time). */
  async #withdrawnNow(): Promise<Map<string, Set<string>>> {
    const nowMs = this.#deps.clock.nowMs();
    const cached = this.#withdrawn;
    if (cached && nowMs - cached.at <= REFRESH_MS) return cached.byContext;
    const generation = this.#withdrawnGeneration;
    const loading = (this.#loadingWithdrawn ??= this.store.withdrawnNow().then((byContext) => {
      if (generation === this.#withdrawnGeneration) this.#withdrawn = { byContext, at: nowMs };
      return byContext;
    }));
    // A failed read is the request's error (5xx); it is not kept, so the next request reads again.
    loading
      .finally(() => {
        if (this.#loadingWithdrawn === loading) this.#loadingWithdrawn = null;
      })
      .catch(() => undefined);
    return loading;
  }

  #invalidateWithdrawn(): void {
    this.#withdrawnGeneration++;
    this.#withdrawn = null;
    this.#loadingWithdrawn = null;
  }

  #audit(action: string, target: string, address: string): Promise<void> {
    return this.store.audit({ at: this.now(), action, target, address, detail: '' });
  }
}
