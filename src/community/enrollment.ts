/**
 * Corpus enrollment with the community hub (docs/rules.md#enroll). `POST {hub}/corpus/enroll {deployment_id}` gives a corpus token; the
 * `corpus_community` block is stored and the caller refreshes what depends on it.
 *
 * When it runs: community reporting is on (enabled, a hub endpoint, not a shard worker) AND the
 * community library is wanted AND auto-enroll is on AND no manual credential is set. Otherwise it
 * reports whether a credential exists, without HTTP.
 *
 * A valid stored enrollment is kept, unless contribution is wanted and the stored policy says
 * contribute=false (re-enroll to avoid a lock-out), or a forced refresh after a 401/403. Attempts
 * are at most one per cool-down (5 min), counted from the last attempt, successful or not
 * (docs/rules.md#enroll), so a broken hub is never hammered; the first attempt of the process is free.
 */
import type { Clock } from '../common/clock.ts';
import { RateLimitedLog, type Log } from '../common/log.ts';
import { SingleFlight } from '../common/single-flight.ts';
import type { TaskSet } from '../common/task-set.ts';
import { parseEnrollAnswer } from './codec.ts';
import type { AuthFailureSource } from './community-client.ts';
import type { CommunityView } from './community-view.ts';
import { requestJson, type FetchLike } from './http.ts';
import { WORKER_AUTH_RELOAD_MS } from './limits.ts';
import type { CommunityStateFile } from './state-file.ts';
import { errorMessage } from '../common/errors.ts';

export const ENROLL_COOLDOWN_MS = 300_000;
export const ENROLL_TIMEOUT_MS = 15_000;

export interface EnrollmentOptions {
  view: CommunityView;
  state: CommunityStateFile;
  /** Called after a new enrollment was stored: rebuild the repository, clear the find cache. */
  onEnrolled: () => void;
  /** Runs fire-and-forget refreshes (401 on a read or a contribution). */
  tasks: TaskSet;
  fetch?: FetchLike;
  clock: Clock;
  log: Log;
}

export interface EnrollmentCounters {
  attempts: number;
  enrolled: number;
  failed: number;
  /** Attempts wanted but refused because the last one was less than the cool-down ago. */
  skippedCooldown: number;
  /** Policy contribute=false while contribution is wanted: re-enrolled to avoid a lock-out. */
  policyReenrolls: number;
  authFailures: number;
}

/** Why enrollment does not run, or null when it does. */
export type EnrollmentIdleReason =
  'shard_worker' | 'stats_disabled' | 'no_hub' | 'not_wanted' | 'auto_enroll_off' | 'manual_credentials';

export class Enrollment {
  readonly counters: EnrollmentCounters = {
    attempts: 0,
    enrolled: 0,
    failed: 0,
    skippedCooldown: 0,
    policyReenrolls: 0,
    authFailures: 0,
  };
  readonly #options: EnrollmentOptions;
  readonly #log: RateLimitedLog;
  #lastAttemptMs: number | null = null;
  readonly #flight = new SingleFlight<'enroll', boolean>();
  #lastWorkerReloadMs = Number.NEGATIVE_INFINITY;
  #idleLogged = false;

  constructor(options: EnrollmentOptions) {
    this.#options = options;
    this.#log = new RateLimitedLog(options.log, () => options.clock.monotonicMs());
  }

  /** Monotonic ms of the last attempt (null before the first). */
  get lastAttemptMs(): number | null {
    return this.#lastAttemptMs;
  }

  idleReason(): EnrollmentIdleReason | null {
    const { view } = this.#options;
    const config = view.config();
    if (view.isShardWorker()) return 'shard_worker';
    if (!config.communityStats.enabled) return 'stats_disabled';
    const { community } = view.activation();
    if (!community.wanted) return 'not_wanted';
    if (!community.autoEnroll) return 'auto_enroll_off';
    if (community.manualConfigured) return 'manual_credentials';
    if (view.endpoints() === null) return 'no_hub';
    return null;
  }

  /**
   * Makes sure a credential exists (the state table's "startup or scheduled enrollment" and the
   * policy lock-out rule). `force` re-enrolls even with a valid stored credential (401/403).
   * Resolves to whether a credential is configured afterwards; never rejects.
   */
  async ensure(options: { force?: boolean } = {}): Promise<boolean> {
    const { view } = this.#options;
    const idle = this.idleReason();
    const { community } = view.activation();
    if (idle !== null) {
      if (idle === 'no_hub' && !this.#idleLogged) {
        this.#idleLogged = true;
        this.#options.log.info(
          { key: 'CHORUS_COMMUNITY_STATS_ENDPOINT' },
          'community corpus wanted with auto-enroll, but no community hub is configured: enrollment stays idle',
        );
      }
      return community.configured;
    }
    const stored = community.enrollment;
    const lockedOut = community.enrolledValid && community.contributeWanted && stored?.contribute === false;
    if (community.enrolledValid && !options.force && !lockedOut) return true;
    const running = this.#flight.get('enroll');
    if (running) return running;
    const now = this.#options.clock.monotonicMs();
    if (this.#lastAttemptMs !== null && now - this.#lastAttemptMs < ENROLL_COOLDOWN_MS) {
      this.counters.skippedCooldown++;
      return community.enrolledValid;
    }
    if (lockedOut) this.counters.policyReenrolls++;
    this.#lastAttemptMs = now;
    return this.#flight.run('enroll', () => this.#enroll()).promise;
  }

  /**
   * The hub refused our token. A shard worker cannot enroll (its primary does): it re-reads the
   * state file, at most every few seconds however many requests are refused meanwhile. Otherwise
   * usage waits for a forced re-enrollment and reads and contributions trigger one in the
   * background, both within the cool-down (docs/rules.md#enroll).
   */
  handleAuthFailure(source: AuthFailureSource): void | Promise<void> {
    if (this.#options.view.isShardWorker()) {
      const now = this.#options.clock.monotonicMs();
      if (now - this.#lastWorkerReloadMs < WORKER_AUTH_RELOAD_MS) return;
      this.#lastWorkerReloadMs = now;
      this.#options.tasks.run('community state reload', () => this.reloadStored());
      return;
    }
    if (source === 'usage') return this.refreshNow().then(() => undefined);
    this.onAuthFailure();
  }

  /** A shard worker picks up what its primary stored; a change counts as a new enrollment. */
  async reloadStored(): Promise<void> {
    if (await this.#options.state.reloadIfChanged()) this.#options.onEnrolled();
  }

  /**
   * The token was refused (401 on a read or usage, 401/403 on a contribution): a forced
   * re-enrollment, within the cool-down. Does not wait; `refreshNow` is the awaited form.
   */
  onAuthFailure(): void {
    this.counters.authFailures++;
    this.#options.tasks.run('community re-enrollment', () => this.ensure({ force: true }));
  }

  refreshNow(): Promise<boolean> {
    this.counters.authFailures++;
    return this.ensure({ force: true });
  }

  async #enroll(): Promise<boolean> {
    const { view, state, clock } = this.#options;
    const endpoints = view.endpoints();
    if (!endpoints) return view.activation().community.configured;
    this.counters.attempts++;
    // A re-enrollment proves it holds the deployment's current token (expired or refused as it
    // may be): the hub rotates a token only for its holder (docs/hub.md#enrollment). A first one
    // carries the statistics token, as the origin's bot does.
    const token = state.enrollment()?.token || view.config().communityStats.token;
    let problem: Record<string, unknown>;
    try {
      const result = await requestJson(this.#options.fetch ?? fetch, {
        method: 'POST',
        url: endpoints.enroll,
        token,
        body: { deployment_id: state.deploymentId },
        timeoutMs: ENROLL_TIMEOUT_MS,
      });
      const answer = result.status === 200 ? parseEnrollAnswer(result.json) : null;
      if (answer) {
        // The base we talk to is the one derived from the configured hub (as the origin does in
        // its automatic mode): the hub's own idea of its address may be a proxy's.
        // In memory at once; a failed write is logged by the state file and costs a re-enrollment
        // after a restart, nothing more.
        await state
          .setEnrollment({
            apiBase: endpoints.apiBase,
            token: answer.token,
            enrolledAt: Math.floor(clock.nowMs() / 1000),
            expiresAt: answer.expiresAt,
            contribute: answer.contribute,
          })
          .catch(() => undefined);
        this.counters.enrolled++;
        this.#options.log.info(
          { api_base: endpoints.apiBase, contribute: answer.contribute, expires_at: answer.expiresAt },
          'enrolled with the community corpus',
        );
        this.#options.onEnrolled();
        return true;
      }
      problem = { status: result.status, detail: result.status === 200 ? 'no corpus_token in the answer' : undefined };
    } catch (error) {
      problem = { error: errorMessage(error) };
    }
    this.counters.failed++;
    this.#log.warn('enroll', { url: endpoints.enroll, ...problem }, 'community corpus enrollment failed');
    return view.activation().community.configured;
  }
}
