import type { CommunityHintCode, CorpusActivation } from './activation.ts';

/** Community usage as the hub reports it (docs/rules.md#usage). */
export interface CommunityUsage {
  read_lookups: number;
  read_hits: number;
  contribute_ok: number;
  updated_at: number | null;
  source: 'community_stats';
}

export interface DeploymentStatus {
  deployment_id: string | null;
  community_stats_enabled: boolean;
  heartbeat_endpoint: string;
}

export interface SourceStatus {
  enabled: boolean;
  configured?: boolean;
  readable: boolean;
  writable: boolean;
}

export interface CommunitySourceStatus extends Required<SourceStatus> {
  wanted: boolean;
  enrolled: boolean;
  manual: boolean;
  auto_enroll: boolean;
  api_base: string;
  api_bases: string[];
  contribute: boolean;
  token_present: boolean;
  enrolled_at: number | null;
  expires_at: number | null;
  usage: CommunityUsage | null;
  /** Why the community cannot be used although it is wanted; null when nothing stands in the way. */
  hint: { code: CommunityHintCode; keys: string[] } | null;
}

/** GET /api/corpus-status data (docs/rules.md#status). */
export interface CorpusStatus {
  composite_active: boolean;
  remote_find_mode: CorpusActivation['remoteFindMode'];
  merge_order: string[];
  merge_strategy: string;
  on_remote_failure: string;
  sources: { local: SourceStatus; fed: Required<SourceStatus>; community: CommunitySourceStatus };
  deployment: DeploymentStatus;
  control_plane: { enabled: boolean };
  /** What was dropped or skipped by design, so nothing disappears silently. */
  counters: Record<string, Record<string, number>>;
  as_of: number;
}

export interface StatusInput {
  activation: CorpusActivation;
  deployment: DeploymentStatus;
  usage: CommunityUsage | null;
  counters: Record<string, Record<string, number>>;
  nowSec: number;
}

/** Built from configuration and live state only: no I/O, cheap to call. */
export function buildCorpusStatus(input: StatusInput): CorpusStatus {
  const { activation } = input;
  const community = activation.community;
  const enrollment = community.enrollment;
  const configured = community.configured;
  return {
    composite_active: activation.compositeActive,
    remote_find_mode: activation.remoteFindMode,
    merge_order: [...activation.mergeOrder],
    merge_strategy: activation.mergeStrategy,
    on_remote_failure: activation.onRemoteFailure,
    sources: {
      local: { enabled: true, configured: true, readable: true, writable: true },
      fed: {
        enabled: activation.fedOn,
        configured: activation.fedConfigured,
        readable: activation.fedOn,
        writable: activation.fedContribute && activation.fedOn,
      },
      community: {
        enabled: community.on,
        wanted: community.wanted,
        configured,
        enrolled: community.enrolledValid,
        manual: community.manualConfigured,
        auto_enroll: community.autoEnroll,
        readable:
          community.on && community.apiBases.length > 0 && (community.enrolledValid || community.manualConfigured),
        // Contributions are sent whenever there is a credential (enrolled or manual) and contributing is on.
        writable:
          community.on && community.contributeEnabled && (community.enrolledValid || community.manualConfigured),
        api_base: configured ? (community.apiBases[0] ?? '') : '',
        api_bases: configured ? [...community.apiBases] : [],
        // Whether this deployment contributes: local intent and the hub's policy both (docs/rules.md#corpus-contribute).
        contribute: community.contributeEnabled,
        token_present: community.token !== '',
        enrolled_at: enrollment?.enrolledAt ?? null,
        expires_at: enrollment?.expiresAt ?? null,
        usage: input.usage,
        hint: community.hint ? { code: community.hint.code, keys: [...community.hint.keys] } : null,
      },
    },
    deployment: input.deployment,
    control_plane: { enabled: false },
    counters: input.counters,
    as_of: input.nowSec,
  };
}
