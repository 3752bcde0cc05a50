import type { Generated } from 'kysely';
import type { SqlEngine } from '../sql/engine.ts';
import type { ActivityActorKind, ActivityKind, ActivityScope } from '../domain/activity.ts';

/**
 * The corpus tables (docs/rules.md#store-keys), one definition for both engines. Booleans are
 * stored as 0/1 integers and JSON lists as text so that both engines return the same shapes.
 * Lookups by keywords always go through the md5 `keywords_hash` (docs/rules.md#store-keys).
 */
export interface ContextTable {
  id: Generated<number>;
  keywords: string;
  keywords_hash: string;
  time: number;
  trigger_count: number;
  clear_time: number;
  /** SUM(count) of the context's answers, kept exact by every write (hot keywords, docs/rules.md#local-hot). */
  answer_count_sum: Generated<number>;
}

export interface ContextAnswerTable {
  id: Generated<number>;
  context_id: number;
  keywords: string;
  keywords_hash: string;
  group_id: number;
  count: number;
  time: number;
}

export interface ContextAnswerMessageTable {
  id: Generated<number>;
  answer_id: number;
  message: string;
}

export interface ContextBanTable {
  id: Generated<number>;
  context_id: number;
  keywords: string;
  group_id: number;
  reason: string;
  time: number;
}

export interface MessageTable {
  id: Generated<number>;
  group_id: number;
  user_id: number;
  bot_id: number;
  raw_message: string;
  is_plain_text: number;
  plain_text: string;
  keywords: string;
  sender_name: string;
  message_id: number | null;
  reply_to_message_id: number | null;
  time: number;
}

export interface BlacklistTable {
  id: Generated<number>;
  group_id: number;
  /** JSON array of answer keywords actively banned. */
  answers: string;
  /** JSON array of answer keywords with a first strike. */
  answers_reserve: string;
}

/** Every change to what the bot says and where (migration 0011; activity-log.ts, docs/rules.md#activity-log). */
export interface ActivityLogTable {
  id: Generated<number>;
  /** Unix seconds. */
  time: number;
  kind: ActivityKind;
  actor_kind: ActivityActorKind;
  /** Console: the session's level (read, write). */
  actor_level: string;
  /** Console: the client address. */
  actor_address: string;
  /** Chat: the member's QQ number. */
  actor_user_id: number;
  /** Chat: the member's nickname; hub or system: what acted. */
  actor_name: string;
  scope: ActivityScope;
  /** The group (scope group), or 0 / the everywhere group. */
  group_id: number;
  context_id: number;
  answer_id: number;
  context_keywords: string;
  answer_keywords: string;
  /** JSON object of the entry's parameters (codes and figures the console words). */
  params: string;
  /** JSON: what the change removed or added, enough to undo it exactly; '' when it has no undo. */
  snapshot: string;
  undone_at: number;
  undone_by: string;
}

/** A change published for the other processes on the same database (migration 0006). */
export interface ChangeFeedTable {
  id: Generated<number>;
  /** The publishing process: it skips its own rows. */
  origin: string;
  topic: string;
  key: string;
  /** Unix seconds. */
  time: number;
}

/** Where an answer was sent as a reply (migration 0007): md5 hashes of the two keywords. */
export interface ReplyUsageTable {
  context_hash: string;
  answer_hash: string;
  group_id: number;
  /** Unix seconds. */
  last_sent: number;
  sent_count: number;
}

/** What the chat side did per day, account and group (migration 0008; daily-stats.ts). */
export interface ConsoleDailyStatsTable {
  /** YYYY-MM-DD, the server's local day. */
  day: string;
  self_id: number;
  group_id: number;
  received: number;
  replies_group: number;
  replies_cross_group: number;
  replies_community: number;
  replies_repeat: number;
  /** Lines said first in a quiet group (migration 0013_t_proactive). */
  replies_proactive: number;
  learn_queued: number;
  bans: number;
}

/** One process's claim on a group message (src/store/message-claims.ts, docs/rules.md#fleet-claims). */
export interface MessageClaimsTable {
  claim_key: string;
  /** The claiming process (its change-feed origin). */
  claimed_by: string;
  /** Unix milliseconds. */
  claimed_at: number;
}

/** One decision of the repeater (migration 0012; decision-log.ts). */
export interface RepeaterDecisionTable {
  id: Generated<number>;
  /** Unix milliseconds. */
  at: number;
  group_id: number;
  self_id: number;
  user_id: number;
  message_id: number;
  sender_name: string;
  raw_message: string;
  keywords: string;
  outcome: string;
  reason: string;
  /** JSON {code, params}. */
  cause: string;
  /** JSON array. */
  texts: string;
  answer_keywords: string | null;
  threshold: number | null;
  cache: string | null;
  learn: string;
  latency_us: number;
}

export interface Database {
  context: ContextTable;
  context_answer: ContextAnswerTable;
  context_answer_message: ContextAnswerMessageTable;
  context_ban: ContextBanTable;
  message: MessageTable;
  blacklist: BlacklistTable;
  activity_log: ActivityLogTable;
  change_feed: ChangeFeedTable;
  reply_usage: ReplyUsageTable;
  console_daily_stats: ConsoleDailyStatsTable;
  message_claims: MessageClaimsTable;
  repeater_decision: RepeaterDecisionTable;
}

/** An engine over the bot's tables, the one every repository in this folder runs on. */
export type StoreEngine = SqlEngine<Database>;
