/**
 * Row shapes of the hub's statements (queries.ts), derived from the schema (schema.ts). Builder
 * statements get theirs from Kysely; these name them for callers, and type the raw `sql` ones.
 */
import type { Insertable, Selectable } from 'kysely';
import type {
  HubAnswerTable,
  HubAnswerVoteTable,
  HubContextTable,
  HubDeploymentTable,
  HubHeartbeatTable,
  HubHotSnapshotTable,
  HubUsageTable,
} from './schema.ts';

type Deployment = Selectable<HubDeploymentTable>;
type Usage = Selectable<HubUsageTable>;
type Context = Selectable<HubContextTable>;
type Answer = Selectable<HubAnswerTable>;

/** An answer served with its agreed count (raw SQL, queries.ts). */
export type AgreedAnswerRow = Pick<Answer, 'keywords' | 'count' | 'time' | 'messages'>;
export type AgreedHotAnswerRow = AgreedAnswerRow & Pick<Answer, 'context_id'>;

export type VoteRow = Insertable<HubAnswerVoteTable>;

export type PolicyRow = Pick<
  Deployment,
  'read_enabled' | 'contribute_enabled' | 'read_per_minute' | 'contributions_per_day'
>;

export type DeploymentRow = PolicyRow & Pick<Deployment, 'deployment_id' | 'expires_at' | 'blocked'>;

/** A context's id, as its upserts return it (raw SQL, queries.ts). */
export type ContextIdRow = Pick<Context, 'id'>;

export type UsageRow = Pick<Usage, 'read_lookups' | 'read_hits' | 'contribute_ok' | 'updated_at'>;

/** A context with one of its answers (LEFT JOIN: the answer columns are null when it has none). */
export type ContextAnswerRow = Pick<Context, 'keywords' | 'time' | 'trigger_count'> & {
  answer_keywords: Answer['keywords'] | null;
  count: Answer['count'] | null;
  answer_time: Answer['time'] | null;
  messages: Answer['messages'] | null;
};

export type StoredAnswerRow = Pick<Answer, 'id' | 'keywords_hash' | 'count' | 'messages'>;

/** A context ranked by a hot-word score (raw SQL, queries.ts). */
export type HotContextRow = Pick<Context, 'id' | 'keywords'> & { score: number };

export type HotAnswerRow = Pick<Answer, 'context_id' | 'keywords' | 'count' | 'messages'>;

/** Fleet hot words: uploaded scores summed per keywords (raw SQL, queries.ts). */
export type FleetRow = Pick<Selectable<HubHotSnapshotTable>, 'keywords' | 'score'>;

export type NewAnswerRow = Omit<Insertable<HubAnswerTable>, 'id'>;

export type HotSnapshotRow = Insertable<HubHotSnapshotTable>;

export type HeartbeatRow = Insertable<HubHeartbeatTable>;

/** What the hot-upload claim returns (raw SQL, queries.ts): no row = too soon. */
export type HotUploadRow = Pick<Usage, 'hot_uploaded_at'>;

/** What a heartbeat returns (raw SQL, queries.ts): no row = too soon. */
export type LastSeenRow = Pick<Selectable<HubHeartbeatTable>, 'last_seen'>;
