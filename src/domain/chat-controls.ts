/**
 * Per-group and per-user controls (console `group-configs` / `user-configs`, docs/guide/groups.md).
 * Stored in the database, held in memory by every process (src/app/chat-controls.ts)
 * and read from memory on every message.
 */

export interface GroupConfig {
  readonly groupId: number;
  /** Learn from this group's messages. */
  readonly learn: boolean;
  /** Answer in this group. */
  readonly reply: boolean;
  /** This group's pairs go to the community and count as cross-group evidence in other groups. */
  readonly share: boolean;
  /** Overrides CHORUS_REPEATER_ANSWER_THRESHOLD here; null: the global value. */
  readonly answerThreshold: number | null;
  /** Overrides CHORUS_REPEATER_COOLDOWN_SEC here; null: the global value. */
  readonly replyCooldownSec: number | null;
  /** Unix seconds until which the bot does not answer here (0: not silenced). */
  readonly silenceUntil: number;
  /**
   * Talk first when the group goes quiet (docs/repeater.md#proactive-speech); null: the global
   * default CHORUS_REPEATER_PROACTIVE_ENABLED.
   */
  readonly proactive: boolean | null;
  /**
   * When a language model answers here (docs/agent.md): `off`, `addressed` (when the bot is
   * addressed and the corpus has nothing), `silence` (also, at a low rate, in place of silence);
   * null: `addressed` whenever a model is configured.
   */
  readonly agentChat: AgentChatMode | null;
  /** Members whose messages are neither learned nor answered in this group. */
  readonly blockedUserIds: readonly number[];
  /** Ignore the group entirely: nothing logged, learned, answered or obeyed. */
  readonly banned: boolean;
  /** Learn from the group's history when it is switched on or an account joins (docs/guide/groups.md). */
  readonly historySeed: boolean;
  /** Unix seconds up to which a history seed has learned the group (0: never); a later seed starts after it. */
  readonly historySeededUntil: number;
  /** Unix seconds of the last save (0: never saved). */
  readonly updatedAt: number;
}

/** The per-group mode of the model's answers. */
export const AGENT_CHAT_MODES = ['off', 'addressed', 'silence'] as const;
export type AgentChatMode = (typeof AGENT_CHAT_MODES)[number];

export type GroupConfigPatch = Partial<Omit<GroupConfig, 'groupId' | 'updatedAt'>>;

export interface UserConfig {
  readonly userId: number;
  /** Never learned from, never answered, in any group. */
  readonly banned: boolean;
  /** Another bot: its messages are neither learned nor counted for repeats. */
  readonly bot: boolean;
  readonly updatedAt: number;
}

export type UserConfigPatch = Partial<Omit<UserConfig, 'userId' | 'updatedAt'>>;

export function defaultGroupConfig(groupId: number): GroupConfig {
  return {
    groupId,
    learn: true,
    reply: true,
    share: true,
    answerThreshold: null,
    replyCooldownSec: null,
    silenceUntil: 0,
    proactive: null,
    agentChat: null,
    blockedUserIds: [],
    banned: false,
    historySeed: false,
    historySeededUntil: 0,
    updatedAt: 0,
  };
}

export function defaultUserConfig(userId: number): UserConfig {
  return { userId, banned: false, bot: false, updatedAt: 0 };
}

/** Longest silence a chat command may ask for (docs/guide/groups.md). */
export const MAX_SILENCE_SEC = 24 * 3600;
/** The silence of a bare 「闭嘴」. */
export const DEFAULT_SILENCE_SEC = 30 * 60;

/** A group's or a user's controls as they now are, after a change here or in another process (the console's live stream). */
export type ChatControlChange = { kind: 'group'; config: GroupConfig } | { kind: 'user'; config: UserConfig };
