import type { ConfigSnapshot, CorpusConfig, CorpusSourceName, RemoteFindMode, Tristate } from '../config/index.ts';
import { resolveRemoteFindMode } from '../config/index.ts';

/** The persisted `corpus_community` block (docs/rules.md#cfg-files), when enrolled. */
export interface StoredEnrollment {
  apiBase: string;
  token: string;
  enrolledAt: number | null;
  /** Unix seconds; past it the credential counts as not configured. */
  expiresAt: number | null;
  /** The central policy: may this deployment contribute? Absent = yes. */
  contribute: boolean | null;
}

/** Why the community cannot be used although it is wanted, as a code the console words. */
export const COMMUNITY_HINT_CODES = [
  'manual_token_missing',
  'manual_base_missing',
  'stats_disabled',
  'hub_missing',
  'credentials_missing',
] as const;
export type CommunityHintCode = (typeof COMMUNITY_HINT_CODES)[number];

/** A hint: its code and the configuration keys that would resolve it (docs/rules.md#status). */
export interface CommunityHint {
  code: CommunityHintCode;
  keys: readonly string[];
}

/** Everything the corpus derives from configuration and stored credentials (docs/rules.md#corpus-sources, #corpus-contribute). */
export interface CommunityState {
  wanted: boolean;
  manualConfigured: boolean;
  enrolledValid: boolean;
  configured: boolean;
  autoEnroll: boolean;
  on: boolean;
  contributeWanted: boolean;
  contributeEnabled: boolean;
  apiBases: string[];
  token: string;
  enrollment: StoredEnrollment | null;
  /** Why the community cannot be used although it is wanted (null when nothing stands in the way). */
  hint: CommunityHint | null;
}

export interface CorpusActivation {
  compositeActive: boolean;
  fedConfigured: boolean;
  fedOn: boolean;
  /** No federated source exists yet: never true. */
  fedContribute: false;
  community: CommunityState;
  remoteFindMode: RemoteFindMode;
  mergeOrder: readonly CorpusSourceName[];
  mergeStrategy: CorpusConfig['mergeStrategy'];
  onRemoteFailure: CorpusConfig['onRemoteFailure'];
  /** The count at which an answer is reply-ready; below it a local hit is weak. */
  answerThreshold: number;
  /**
   * How long a reply may wait for its lookup (CHORUS_REPEATER_BUNDLE_TIMEOUT_SEC; 0 = unbounded,
   * then the remote timeout bounds it): remote reads on the hot path end within it.
   */
  replyBudgetMs: number;
}

export interface ActivationInput {
  corpus: CorpusConfig;
  enrollment: StoredEnrollment | null;
  /** An endpoint derived from the community-statistics settings (community issue), if any. */
  derivedApiBase?: string;
  /** CHORUS_COMMUNITY_STATS_ENABLED: enrollment runs only while reporting is on (default true). */
  statsEnabled?: boolean;
  /** Whether a second database for a federated source is configured (never, for now). */
  fedConfigured?: boolean;
  nowSec: number;
  /** CHORUS_REPEATER_ANSWER_THRESHOLD. */
  answerThreshold: number;
  /** See `replyBudgetMs` below. */
  replyBudgetMs: number;
}

/** The reply budget of a configuration: the repeater's lookup wait, else the remote read timeout. */
export function replyBudgetMs(config: {
  repeater: { bundleTimeoutSec: number };
  remote: { remoteTimeoutSec: number };
}): number {
  const bundleMs = config.repeater.bundleTimeoutSec * 1000;
  return bundleMs > 0 ? bundleMs : config.remote.remoteTimeoutSec * 1000;
}

export function resolveActivation(input: ActivationInput): CorpusActivation {
  const { corpus } = input;
  const fedConfigured = input.fedConfigured ?? false;
  const fedOn = tristate(corpus.fedEnabled, fedConfigured);
  const community = resolveCommunity(input);
  return {
    compositeActive: fedOn || community.on,
    fedConfigured,
    fedOn,
    fedContribute: false,
    community,
    remoteFindMode: resolveRemoteFindMode(corpus.remoteFindEnabled),
    mergeOrder: corpus.mergeOrder,
    mergeStrategy: corpus.mergeStrategy,
    onRemoteFailure: corpus.onRemoteFailure,
    answerThreshold: input.answerThreshold,
    replyBudgetMs: input.replyBudgetMs,
  };
}

function resolveCommunity(input: ActivationInput): CommunityState {
  const { corpus, nowSec } = input;
  // A comma-separated list: the client fails over from one base to the next.
  const manualBases = dedupe(
    corpus.communityApiBase
      .split(',')
      .map(normaliseBase)
      .filter((base) => base !== ''),
  );
  const derivedBase = normaliseBase(input.derivedApiBase ?? '');
  const manualConfigured = corpus.communityToken.trim() !== '' && manualBases.length > 0;
  const stored = input.enrollment;
  const enrolledValid =
    stored !== null &&
    stored.token !== '' &&
    stored.apiBase !== '' &&
    (stored.expiresAt === null || stored.expiresAt >= nowSec);
  const configured = manualConfigured || enrolledValid;
  // A persisted enrollment alone does not make "auto" wanted (docs/rules.md#corpus-sources).
  const wanted = tristate(corpus.communityEnabled, manualConfigured);
  const autoEnroll = tristate(corpus.autoEnroll, wanted);
  // Chorus has no official central hub: enrolling needs the hub's endpoint (a manual API base is
  // no place to enroll) and reporting on, as the enrollment itself does (src/community/enrollment.ts).
  const statsEnabled = input.statsEnabled ?? true;
  const canEnroll = autoEnroll && statsEnabled && derivedBase !== '';
  const contributeWanted = corpus.communityContribute !== false;
  const policy = enrolledValid ? (stored?.contribute ?? null) : null;
  // The manual list, else the hub the endpoint points at, else the one enrolled with (an enrolled
  // token belongs to its hub: a new endpoint replaces it rather than joining it).
  const enrolledBase = enrolledValid ? normaliseBase(stored?.apiBase ?? '') : '';
  const fallbackBase = derivedBase || enrolledBase;
  const apiBases = manualBases.length > 0 ? manualBases : fallbackBase !== '' ? [fallbackBase] : [];
  const token = corpus.communityToken.trim() || (enrolledValid ? (stored?.token ?? '') : '');
  const hint =
    wanted && !configured && !canEnroll
      ? communityHint({
          manualBase: manualBases.length > 0,
          manualToken: corpus.communityToken.trim() !== '',
          autoEnroll,
          hubEndpoint: derivedBase !== '',
        })
      : null;
  return {
    wanted,
    manualConfigured,
    enrolledValid,
    configured,
    autoEnroll,
    on: wanted && (configured || canEnroll),
    contributeWanted,
    contributeEnabled: contributeWanted && policy !== false,
    apiBases,
    token,
    enrollment: enrolledValid ? stored : null,
    hint,
  };
}

/**
 * What stands in the way of a wanted community that is neither configured nor able to enroll:
 * half a manual credential first (the operator's evident intent), then what automatic enrollment
 * lacks, else that nothing is configured.
 */
function communityHint(given: {
  manualBase: boolean;
  manualToken: boolean;
  autoEnroll: boolean;
  hubEndpoint: boolean;
}): CommunityHint {
  if (given.manualBase && !given.manualToken) {
    return { code: 'manual_token_missing', keys: ['CHORUS_CORPUS_COMMUNITY_TOKEN'] };
  }
  if (given.manualToken && !given.manualBase) {
    return { code: 'manual_base_missing', keys: ['CHORUS_CORPUS_COMMUNITY_API_BASE'] };
  }
  if (given.autoEnroll && given.hubEndpoint) {
    return { code: 'stats_disabled', keys: ['CHORUS_COMMUNITY_STATS_ENABLED'] };
  }
  if (given.autoEnroll) return { code: 'hub_missing', keys: ['CHORUS_COMMUNITY_STATS_ENDPOINT'] };
  return {
    code: 'credentials_missing',
    keys: ['CHORUS_CORPUS_AUTO_ENROLL', 'CHORUS_CORPUS_COMMUNITY_API_BASE', 'CHORUS_CORPUS_COMMUNITY_TOKEN'],
  };
}

function tristate(value: Tristate, auto: boolean): boolean {
  return value === 'auto' ? auto : value;
}

function normaliseBase(base: string): string {
  return base.trim().replace(/\/+$/, '');
}

function dedupe(values: string[]): string[] {
  return [...new Set(values)];
}

export interface ActivationSourceOptions {
  config: () => ConfigSnapshot;
  enrollment: () => StoredEnrollment | null;
  /** The API base derived from the community-statistics endpoint ('' without a hub). */
  derivedApiBase: () => string;
  nowMs: () => number;
}

/**
 * The activation as it is now, asked on every lookup: recomputed only when the config snapshot,
 * the enrollment object, the derived base or the second changes. One per process, shared by the
 * corpus and community sides (docs/ARCHITECTURE.md#lifecycle).
 */
export class ActivationSource {
  #memo: {
    config: ConfigSnapshot;
    enrollment: StoredEnrollment | null;
    derivedApiBase: string;
    second: number;
    value: CorpusActivation;
  } | null = null;

  constructor(private readonly options: ActivationSourceOptions) {}

  current(): CorpusActivation {
    const config = this.options.config();
    const enrollment = this.options.enrollment();
    const derivedApiBase = this.options.derivedApiBase();
    const second = Math.floor(this.options.nowMs() / 1000);
    const memo = this.#memo;
    if (
      memo &&
      memo.config === config &&
      memo.enrollment === enrollment &&
      memo.derivedApiBase === derivedApiBase &&
      memo.second === second
    ) {
      return memo.value;
    }
    const value = resolveActivation({
      corpus: config.corpus,
      enrollment,
      derivedApiBase,
      statsEnabled: config.communityStats.enabled,
      nowSec: second,
      answerThreshold: config.repeater.answerThreshold,
      replyBudgetMs: replyBudgetMs(config),
    });
    this.#memo = { config, enrollment, derivedApiBase, second, value };
    return value;
  }
}
