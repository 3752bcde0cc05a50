import type { Generated } from 'kysely';

/**
 * The hub's tables, one definition for both engines (the bot store's machinery, its own schema).
 * Every table is prefixed `hub_` so that a hub may share a database with a bot. Times are unix
 * seconds. There is deliberately no group, user or ban column anywhere: every stored answer is a
 * community answer (group 0), so nothing that could identify a group or a person can be stored.
 */

/** One row per enrolled deployment: its current token (as a SHA-256 hash) and its policy. */
export interface HubDeploymentTable {
  deployment_id: string;
  token_hash: string;
  read_enabled: number;
  contribute_enabled: number;
  /** 0 = no limit. */
  read_per_minute: number;
  /** 0 = no limit. */
  contributions_per_day: number;
  /** 1 = an operator set this policy by hand: re-enrolling keeps it instead of the defaults. */
  policy_override: Generated<number>;
  enrolled_at: number;
  expires_at: number | null;
  /**
   * Deployments enrolled from one client address within the cohort window share a cohort (the
   * first one's id) and count as one for agreement (docs/hub.md#agreement).
   */
  cohort: Generated<string>;
  /** SHA-256 of the client address it first enrolled from (the address itself is not kept). */
  address_hash: Generated<string>;
  /** 1 = blocked by the hub's operator: its token is refused and its contributions do not count. */
  blocked: Generated<number>;
}

/**
 * Per-deployment usage counters and rate windows, keyed by deployment so that they survive
 * token rotation. `updated_at` is null until a counter first moves.
 */
export interface HubUsageTable {
  deployment_id: string;
  read_lookups: Generated<number>;
  read_hits: Generated<number>;
  contribute_ok: Generated<number>;
  updated_at: number | null;
  /** Start (unix s) of the current read window and the reads counted in it. */
  read_window: Generated<number>;
  read_count: Generated<number>;
  /** Start (unix s) of the current contribution window (a UTC day) and the attempts in it. */
  contribute_window: Generated<number>;
  contribute_count: Generated<number>;
  /** Last accepted POST /v1/corpus/hot. */
  hot_uploaded_at: number | null;
}

export interface HubContextTable {
  id: Generated<number>;
  keywords: string;
  keywords_hash: string;
  time: number;
  trigger_count: number;
  /** SUM(count) of the context's answers, kept by every write (pool hot words). */
  answer_count_sum: number;
}

export interface HubAnswerTable {
  id: Generated<number>;
  context_id: number;
  /** Raw answer keywords (cleaned on read), keyed by their md5. */
  keywords: string;
  keywords_hash: string;
  count: number;
  time: number;
  /** JSON array of cleaned, distinct, non-empty messages, oldest first. */
  messages: string;
}

/**
 * What each deployment contributed to an answer: its own count (an insert replaces it, an upsert
 * adds one). The answer's stored `count` is their sum; what is served is computed from these.
 */
export interface HubAnswerVoteTable {
  answer_id: number;
  deployment_id: string;
  context_id: number;
  count: number;
  time: number;
}

/** The latest hot-keyword snapshot of each deployment (replaced wholesale on upload). */
export interface HubHotSnapshotTable {
  deployment_id: string;
  keywords_hash: string;
  keywords: string;
  score: number;
  as_of: number;
}

export interface HubHeartbeatTable {
  deployment_id: string;
  first_seen: number;
  last_seen: number;
  version: string;
  online_bots: number;
  catalog_bots: number;
  sharded: number;
  shard_workers: number | null;
}

/** A deployment's report of an answer (POST /v1/corpus/report): one row per deployment. */
export interface HubReportTable {
  keywords_hash: string;
  answer_hash: string;
  deployment_id: string;
  keywords: string;
  answer_keywords: string;
  reported_at: number;
}

/** An answer the hub stopped serving, by reports or by a moderator. */
export interface HubWithdrawalTable {
  keywords_hash: string;
  answer_hash: string;
  keywords: string;
  answer_keywords: string;
  /** 'reports' | 'moderator'. */
  reason: string;
  withdrawn_at: number;
  /** Set when a moderator restored it (served again); null while withdrawn. */
  restored_at: number | null;
}

/** Every moderator action (the admin API), kept: who acted is the hub operator, from `address`. */
export interface HubAuditTable {
  id: Generated<number>;
  at: number;
  action: string;
  target: string;
  address: string;
  detail: string;
}

export interface HubDatabase {
  hub_deployment: HubDeploymentTable;
  hub_usage: HubUsageTable;
  hub_context: HubContextTable;
  hub_answer: HubAnswerTable;
  hub_answer_vote: HubAnswerVoteTable;
  hub_hot_snapshot: HubHotSnapshotTable;
  hub_heartbeat: HubHeartbeatTable;
  hub_report: HubReportTable;
  hub_withdrawal: HubWithdrawalTable;
  hub_audit: HubAuditTable;
}
