/**
 * What each hub endpoint does, between the routes (HTTP shapes) and the store (rows): token
 * checks, policy enforcement (403 / 429), de-identification and cleaning of what is stored, and
 * the wire shapes of the origin's protocol (docs/rules.md#hub-protocol).
 */
import type { Clock } from '../common/clock.ts';
import { stripNul } from '../common/text.ts';
import { keywordsHash } from '../domain/keywords-hash.ts';
import { communityAnswer, withheldCounters, withheldKeywords, type WithheldSink } from '../domain/deidentify.ts';
import { hotItems, hotItemsOf, insertOf, upsertOf, wirePolicy } from './clean.ts';
import { badRequest, forbidden, HttpError, invalidToken, missingBearer, tooManyRequests } from './errors.ts';
import type { Agreement, Deployment, HubStore } from './hub-store.ts';
import {
  CONTRIBUTE_WINDOW_SEC,
  HOT,
  HOT_PERIOD_SEC,
  HOT_SNAPSHOT_RETENTION_SEC,
  READ_WINDOW_SEC,
  STATS,
} from './limits.ts';
import {
  contributeCheck,
  enrollChecks,
  heartbeatCheck,
  RateWindows,
  reportCheck,
  type Admission,
  type RateCheck,
  type RefusalReason,
} from './rate-windows.ts';
import { corpusStats, fleetStats } from './hub-stats.ts';
import { contributionTime } from './merge.ts';
import type {
  ContextResponse,
  ContributeResponse,
  EnrollResponse,
  HeartbeatBody,
  HeartbeatResponse,
  HotResponse,
  HotUploadResponse,
  UsageResponse,
  HotMode,
  HotPeriod,
  HotSnapshotBody,
  InsertBody,
  UpsertAnswerBody,
  StatsResponse,
  CorpusStatsResponse,
} from './schemas.ts';
import type { HubSettings } from './settings.ts';
import { bearerToken, newCorpusToken, sameSecret, tokenHash } from './tokens.ts';

export interface HubServiceDeps {
  store: HubStore;
  settings: HubSettings;
  clock: Clock;
}

export class HubService {
  /** What was not stored or served because it may not be shared, per reason (GET /health). */
  readonly withheld = withheldCounters();
  readonly #withhold: WithheldSink = (reason) => this.withheld.sink(reason);
  /** Rate windows in memory and what they refused (GET /health; docs/hub.md#rates). */
  readonly rates = new RateWindows();
  readonly #store: HubStore;
  readonly #settings: HubSettings;
  readonly #clock: Clock;

  constructor(deps: HubServiceDeps) {
    this.#store = deps.store;
    this.#settings = deps.settings;
    this.#clock = deps.clock;
  }

  /** Unix seconds. */
  now(): number {
    return Math.floor(this.#clock.nowMs() / 1000);
  }

  /** The serving rule (docs/hub.md#agreement). */
  get agreement(): Agreement {
    return {
      minDeployments: this.#settings.minDeployments,
      countPerDeploymentMax: this.#settings.countPerDeploymentMax,
    };
  }

  /**
   * Issue a token for a new deployment id, or rotate the token of an enrolled one when the request
   * carries that token (expired or not) as its Bearer; an unproven re-enrollment is a 409 and
   * leaves the deployment's token valid (docs/hub.md#enrollment).
   */
  async enroll(input: {
    deploymentId: string;
    address: string;
    authorization: string | undefined;
    derivedApiBase: string;
  }): Promise<EnrollResponse> {
    const now = this.now();
    const settings = this.#settings;
    this.#admit(enrollChecks(settings, input.address), now);
    const deploymentId = input.deploymentId.toLowerCase();
    const token = newCorpusToken();
    const presented = bearerToken(input.authorization);
    const ttl = settings.tokenTtlSec;
    const expiresAt = ttl > 0 ? now + ttl : null;
    const enrolled = await this.#store.enroll({
      deploymentId,
      tokenHash: tokenHash(token),
      proofHash: presented === null ? null : tokenHash(presented),
      addressHash: tokenHash(input.address),
      cohortCutoff: settings.cohortWindowSec > 0 ? now - settings.cohortWindowSec : null,
      now,
      expiresAt,
      policy: {
        read: this.#settings.defaultRead,
        contribute: this.#settings.defaultContribute,
        readPerMinute: this.#settings.readPerMinute,
        contributionsPerDay: this.#settings.contributionsPerDay,
      },
    });
    if (enrolled.refused) {
      throw new HttpError(
        409,
        'deployment_id: already enrolled; re-enrolling needs its current corpus token as the Bearer',
      );
    }
    const policy = enrolled.policy;
    return {
      corpus_token: token,
      api_base: this.#settings.publicApiBase || input.derivedApiBase,
      deployment_id: deploymentId,
      enrolled_at: now,
      ...(expiresAt !== null ? { expires_at: expiresAt } : {}),
      policy: wirePolicy(policy),
    };
  }

  /**
   * The deployment behind an `Authorization: Bearer` header; 401 when missing, unknown or expired,
   * 403 when the hub's operator blocked it.
   */
  async authenticate(authorization: string | undefined): Promise<Deployment> {
    const token = bearerToken(authorization);
    if (token === null) throw missingBearer();
    const deployment = await this.#store.deploymentByToken(tokenHash(token));
    if (!deployment) throw invalidToken();
    if (deployment.expiresAt !== null && deployment.expiresAt < this.now()) throw invalidToken();
    if (deployment.blocked) throw forbidden('deployment blocked by the hub operator');
    return deployment;
  }

  async context(deployment: Deployment, rawKeywords: string): Promise<ContextResponse> {
    if (!deployment.policy.read) throw forbidden('read not allowed');
    const keywords = stripNul(rawKeywords).trim();
    if (keywords === '') throw badRequest('query.keywords: required');
    if (keywords.length > this.#settings.maxKeywordsChars) {
      throw badRequest(`query.keywords: must not have more than ${this.#settings.maxKeywordsChars} characters`);
    }
    const now = this.now();
    const limit = deployment.policy.readPerMinute;
    const window = windowStart(now, READ_WINDOW_SEC);
    const result = await this.#store.readContext({
      deploymentId: deployment.deploymentId,
      hash: keywordsHash(keywords),
      now,
      window,
      limit,
      agreement: this.agreement,
    });
    if (result.limited) {
      this.#refuse('read_per_minute', `read limit reached: ${limit} per minute`, window + READ_WINDOW_SEC - now);
    }
    const context = result.context;
    if (!context) throw new HttpError(404, 'context not found');
    // What is served passes the same rule as what is stored: rows written before the rule, or by
    // an older hub, are cleaned on the way out.
    if (withheldKeywords(context.keywords) !== null) throw new HttpError(404, 'context not found');
    const answers: ContextResponse['answers'] = [];
    for (const answer of context.answers) {
      const shared = communityAnswer({ ...answer, groupId: 0 }, this.#withhold, true);
      if (!shared) continue;
      answers.push({
        keywords: shared.keywords,
        group_id: 0,
        count: shared.count,
        time: shared.time,
        messages: shared.messages,
      });
    }
    return {
      keywords: context.keywords,
      time: context.time,
      trigger_count: context.triggerCount,
      clear_time: 0,
      answers,
      ban: [],
    };
  }

  /**
   * Merge one contribution. The body was checked against its op's schema; this cleans and
   * de-identifies it (src/domain/deidentify.ts). What may not be stored is not (`accepted: false`).
   */
  async contribute(deployment: Deployment, body: UpsertAnswerBody | InsertBody): Promise<ContributeResponse> {
    if (!deployment.policy.contribute) throw forbidden('contribute not allowed');
    const now = this.now();
    this.#admit([contributeCheck(this.#settings, deployment.deploymentId)], now);
    const contribution =
      body.op === 'insert' ? insertOf(body, now, this.#withhold) : upsertOf(body, now, this.#withhold);
    if (contribution === null) return { ok: true, accepted: false };
    const limit = deployment.policy.contributionsPerDay;
    const window = windowStart(now, CONTRIBUTE_WINDOW_SEC);
    const { limited } = await this.#store.contribute({
      deploymentId: deployment.deploymentId,
      now,
      window,
      limit,
      contribution,
    });
    if (limited) {
      const detail = `contribution limit reached: ${limit} per day`;
      this.#refuse('contribute_per_day', detail, window + CONTRIBUTE_WINDOW_SEC - now);
    }
    return { ok: true, accepted: true };
  }

  async usage(deployment: Deployment): Promise<UsageResponse> {
    const usage = await this.#store.usage(deployment.deploymentId);
    return {
      deployment_id: deployment.deploymentId,
      read_lookups: usage.readLookups,
      read_hits: usage.readHits,
      contribute_ok: usage.contributeOk,
      updated_at: usage.updatedAt,
    };
  }

  /** POST /v1/corpus/hot: replace the deployment's snapshot, at most once per minute. */
  async uploadHot(deployment: Deployment, body: HotSnapshotBody): Promise<HotUploadResponse> {
    if (!deployment.policy.contribute) throw forbidden('contribute not allowed');
    const now = this.now();
    const items = hotItems(body.items, this.#withhold);
    const gate = await this.#store.uploadHot({
      deploymentId: deployment.deploymentId,
      now,
      asOf: contributionTime(body.as_of, now),
      items,
      minIntervalSec: HOT.uploadMinIntervalSec,
    });
    if (!gate.ok) {
      const detail = `hot words uploaded less than ${HOT.uploadMinIntervalSec} s ago`;
      this.#refuse('hot_upload_interval', detail, gate.retryAt - now);
    }
    return { ok: true, items: items.length };
  }

  /** GET /v1/stats: deployments reporting, online and their bots, and the corpus in brief. */
  async stats(): Promise<StatsResponse> {
    const now = this.now();
    const cutoff = now - STATS.onlineTtlSec;
    const [fleet, corpus] = await Promise.all([
      fleetStats(this.#store.engine, cutoff),
      corpusStats(this.#store.engine, cutoff, now - STATS.recentSec),
    ]);
    return {
      ...fleet,
      online_ttl_sec: STATS.onlineTtlSec,
      as_of: new Date(now * 1000).toISOString(),
      corpus: {
        contexts_total: corpus.contexts_total,
        answers_total: corpus.answers_total,
        enrollments_total: corpus.enrollments_total,
        contribute_enabled_total: corpus.contribute_enabled_total,
      },
    };
  }

  /** GET /v1/stats/corpus: the shared corpus and its enrollments. */
  async corpusStats(): Promise<CorpusStatsResponse> {
    const now = this.now();
    const corpus = await corpusStats(this.#store.engine, now - STATS.onlineTtlSec, now - STATS.recentSec);
    return { online_ttl_sec: STATS.onlineTtlSec, as_of: new Date(now * 1000).toISOString(), corpus };
  }

  async hot(query: { mode?: HotMode; period?: HotPeriod; limit?: number }): Promise<HotResponse> {
    const mode = query.mode ?? 'fleet';
    const period = query.period ?? 'day';
    const limit = query.limit ?? HOT.limitDefault;
    const now = this.now();
    const windowSec = mode === 'pool' ? 0 : mode === 'fleet' ? HOT.fleetWindowSec : HOT_PERIOD_SEC[period];
    // Items whose label or answers clean to nothing are dropped, so ask for more than `limit`.
    const fetch = Math.min(limit * 2, HOT.limitMax * 2);
    const candidates =
      mode === 'fleet'
        ? await this.#store.fleetHot(now - windowSec, fetch, this.agreement)
        : await this.#store.corpusHot(mode === 'pool' ? null : now - windowSec, fetch, this.agreement);
    return {
      mode,
      period,
      window_sec: windowSec,
      as_of: new Date(now * 1000).toISOString(),
      items: hotItemsOf(candidates, mode !== 'fleet', this.#withhold).slice(0, limit),
    };
  }

  /**
   * A heartbeat: with a heartbeat token configured it must be presented; without one heartbeats
   * are open and rate limited per client address and per deployment (docs/rules.md#hub-protocol).
   */
  async heartbeat(input: {
    body: HeartbeatBody;
    authorization: string | undefined;
    address: string;
  }): Promise<HeartbeatResponse> {
    const settings = this.#settings;
    const now = this.now();
    const open = settings.heartbeatToken === '';
    if (!open) {
      const presented = bearerToken(input.authorization);
      if (presented === null) throw missingBearer();
      if (!sameSecret(presented, settings.heartbeatToken)) throw new HttpError(401, 'invalid heartbeat token');
    }
    const body = input.body;
    if (body.ts !== undefined && settings.maxClockSkewSec > 0 && Math.abs(body.ts - now) > settings.maxClockSkewSec) {
      throw badRequest(`body.ts: skew too large (more than ${settings.maxClockSkewSec} s from the hub clock)`);
    }
    if (open) this.#admit([heartbeatCheck(settings, input.address)], now);
    const minIntervalSec = open ? settings.heartbeatMinIntervalSec : 0;
    const snapshot = body.corpus_hot_snapshot;
    const gate = await this.#store.heartbeat({
      heartbeat: {
        deploymentId: body.deployment_id.toLowerCase(),
        version: body.version ?? '',
        onlineBots: body.online_bots ?? 0,
        catalogBots: body.catalog_bots ?? 0,
        sharded: body.sharded ?? false,
        shardWorkers: body.shard_workers ?? null,
      },
      now,
      minIntervalSec,
      hot: snapshot
        ? { asOf: contributionTime(snapshot.as_of, now), items: hotItems(snapshot.items, this.#withhold) }
        : null,
    });
    if (!gate.ok) {
      const detail = `heartbeat sooner than ${minIntervalSec} s after the last`;
      this.#refuse('heartbeat_interval', detail, gate.retryAt - now);
    }
    return { ok: true, server_ts: now };
  }

  /** Deletes hot snapshots nobody reads any more. */
  housekeeping(): Promise<void> {
    return this.#store.housekeeping(this.now() - HOT_SNAPSHOT_RETENTION_SEC);
  }

  /**
   * Blocks a deployment (the hub operator's admin API): its token gets 403 from now on and its
   * contributions stop counting toward what is served. False when no such deployment is enrolled.
   */
  blockDeployment(deploymentId: string): Promise<boolean> {
    return this.#store.setBlocked(deploymentId, true);
  }

  /** Lifts a block: the token works again and its contributions count again. */
  unblockDeployment(deploymentId: string): Promise<boolean> {
    return this.#store.setBlocked(deploymentId, false);
  }

  /** Counts one answer report of the deployment; 429 beyond the reports per hour (POST /report). */
  admitReport(deployment: Deployment): void {
    this.#admit([reportCheck(this.#settings, deployment.deploymentId)], this.now());
  }

  /** 429 with Retry-After for the first check without room; nothing counted then. */
  #admit(checks: readonly RateCheck[], now: number): void {
    const admission: Admission = this.rates.admit(checks, now);
    if (!admission.ok) throw tooManyRequests(admission.detail, admission.retryAfterSec);
  }

  /** A refusal decided by the database or an interval: counted, then 429. */
  #refuse(reason: RefusalReason, detail: string, retryAfterSec: number): never {
    const refusal = this.rates.refuse(reason, detail, retryAfterSec);
    throw tooManyRequests(refusal.detail, refusal.retryAfterSec);
  }
}

function windowStart(now: number, lengthSec: number): number {
  return now - (now % lengthSec);
}
