/** Row shapes of the hub's statements (queries.ts). */

export interface DeploymentRow {
  deployment_id: string;
  read_enabled: number;
  contribute_enabled: number;
  read_per_minute: number;
  contributions_per_day: number;
  expires_at: number | null;
}

export interface PolicyRow {
  read_enabled: number;
  contribute_enabled: number;
  read_per_minute: number;
  contributions_per_day: number;
}

export interface UsageRow {
  read_lookups: number;
  read_hits: number;
  contribute_ok: number;
  updated_at: number | null;
}

export interface ContextAnswerRow {
  keywords: string;
  time: number;
  trigger_count: number;
  answer_keywords: string | null;
  count: number | null;
  answer_time: number | null;
  messages: string | null;
}

export interface StoredAnswerRow {
  id: number;
  keywords_hash: string;
  count: number;
  messages: string;
}

export interface HotContextRow {
  id: number;
  keywords: string;
  score: number;
}

export interface HotAnswerRow {
  context_id: number;
  keywords: string;
  count: number;
  messages: string;
}

export interface FleetRow {
  keywords: string;
  score: number;
}

export interface NewAnswerRow {
  context_id: number;
  keywords: string;
  keywords_hash: string;
  count: number;
  time: number;
  messages: string;
}

export interface HotSnapshotRow {
  deployment_id: string;
  keywords_hash: string;
  keywords: string;
  score: number;
  as_of: number;
}

export interface HeartbeatRow {
  deployment_id: string;
  first_seen: number;
  last_seen: number;
  version: string;
  online_bots: number;
  catalog_bots: number;
  sharded: number;
  shard_workers: number | null;
}
