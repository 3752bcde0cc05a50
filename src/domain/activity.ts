/**
 * The activity log's vocabulary (docs/rules.md#activity-log): every change to what the bot says,
 * and where, is one entry with who, what (a kind code with parameters the console words in each
 * language), where (a group or everywhere) and when. Any part records through `ActivityRecorder`;
 * the store (src/store/activity-log.ts) keeps the entries.
 */

/** What changed. Console moderation keeps its old action names (ban_group, ban_all, delete_*). */
export const ACTIVITY_KINDS = [
  // corpus moderation from the console (undoable for UNDO_WINDOW_SEC)
  'ban_group',
  'ban_all',
  'delete_answer',
  'delete_context',
  // a ban given in chat: 「不可以」 quoting a reply, 「不可以发这个」, an admin's recall
  'chat_ban',
  // a ban lifted from the console (params.bans: how many ban rows, params.lists: blacklist entries)
  'unban',
  // a console undo of entry params.entry_id
  'undo',
  // a ban withdrawn by the community hub (recorded by the community side)
  'hub_withdraw',
  // group commands from chat and group switches from the console
  'silence',
  'resume',
  'learn_off',
  'learn_on',
  'group_config',
  'user_config',
  // learning from a group's history started from the console (params.depth)
  'history_seed',
  // the request inbox
  'request_approve',
  'request_reject',
  // the console's other changes
  'settings_save',
  'database_restore',
  'update_apply',
  'update_rollback',
  // the agent platform: a mined catchphrase approved for (or rejected from) the model's prompt
  'catchphrase_approve',
  'catchphrase_reject',
  // the agent memory (docs/agent-memory.md): consent given or withdrawn, 「忘记我」, facts edited in the console
  'memory_consent',
  'memory_forget',
  'memory_fact_add',
  'memory_fact_correct',
  'memory_fact_delete',
  // the agent platform's reminders (docs/agent-tasks.md): made by a model tool call, cancelled in chat or the console
  'agent_task_create',
  'agent_task_cancel',
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/** The pseudo group whose bans apply in every group (docs/rules.md#bans; src/repeater/limits.ts). */
export const EVERYWHERE_GROUP = 114514;

export type ActivityActorKind = 'console' | 'chat' | 'hub' | 'system';
export type ActivityScope = 'group' | 'everywhere';

/** Who made the change. */
export type ActivityActor =
  /** A console session: its level (read, write) and the client address. */
  | { kind: 'console'; level: string; address: string }
  /** A group member in chat: QQ number, nickname and the group it happened in. */
  | { kind: 'chat'; userId: number; name: string }
  /** The community hub (name: its address) or Chorus itself (name: the job). */
  | { kind: 'hub' | 'system'; name: string };

/** Parameters the console words; flat so they filter and print without a schema per kind. */
export type ActivityParams = Record<string, string | number | boolean>;

export interface ActivityInput {
  kind: ActivityKind;
  actor: ActivityActor;
  /** The group it applies to; null: everywhere (every group, or not bound to one). */
  groupId: number | null;
  /** Unix seconds; default now. */
  time?: number;
  contextKeywords?: string;
  answerKeywords?: string;
  /** The answer an unban can name (POST /api/corpus/answers/{id}/unban); resolved from the keywords when absent. */
  answerId?: number;
  params?: ActivityParams;
}

/**
 * Records an entry; never throws (a failed write is logged: the change itself already happened)
 * and resolves with the entry's id, or null when it could not be written.
 */
export interface ActivityRecorder {
  record(input: ActivityInput): Promise<number | null>;
}

/** Records nothing (parts built without a store, unit tests). */
export const NO_ACTIVITY: ActivityRecorder = { record: async () => null };
