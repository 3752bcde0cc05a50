/**
 * What the console asks of the chat side and the agent platform (src/app wires them): the
 * request inbox, groups and friends, accounts, suspected bots, history seeds, the model path and
 * reminders. Re-exported by deps.ts.
 */
import type { ActivityActor } from '../domain/activity.ts';
import type { Job } from '../ops/jobs/index.ts';
import type { AgentTask, AgentTaskStatus } from '../store/agent-tasks-store.ts';
import type { BotConfig } from '../store/bot-config-store.ts';

/** The language-model chat path's figures and ledger (routes/agent-chat.ts, src/app/agent-chat-wiring.ts). */
export interface AgentChatPort {
  overview(): Promise<{
    configured: boolean;
    baseUrl: string;
    model: string;
    backgroundModel: string;
    timeoutSec: number;
    concurrency: { limit: number; inflight: number };
    budgets: { groupDailyCalls: number; groupDailyTokens: number; memberDailyCalls: number; memberDailyTokens: number };
    today: { calls: number; tokens: number; outcomes: Record<string, number> };
  }>;
  ledger(query: { limit: number; beforeId?: number; groupId?: number }): Promise<AgentChatCall[]>;
}

/** One row of the model-call ledger (src/store/agent-chat-ledger.ts). */
export interface AgentChatCall {
  readonly id: number;
  readonly at: number;
  readonly selfId: number;
  readonly groupId: number;
  readonly userId: number;
  readonly role: 'chat' | 'background';
  readonly model: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly latencyMs: number;
  readonly outcome: string;
}

/** Learning from history as jobs, one per group at a time (routes/history-seeds.ts). */
export interface HistorySeedsPort {
  /** Throws JobBusyError while the group's seed runs. */
  start(input: { groupId: number; depth: number; actor: ActivityActor }): Job;
  /** False when no seed runs in the group. */
  cancel(groupId: number): boolean;
  /** The latest seed of each group seeded since start. */
  list(): { groupId: number; job: Job }[];
}

/** The agent platform's reminder tasks (routes/agent-tasks.ts, src/agent/tasks/reminders.ts). */
export interface AgentTasksPort {
  list(query: { groupId?: number; status?: AgentTaskStatus; limit: number }): Promise<AgentTask[]>;
  /** Cancels an open task; `not_found` when there is none with the id, `not_open` when it already ended. */
  cancel(
    id: number,
    actor: ActivityActor,
  ): Promise<{ kind: 'cancelled'; task: AgentTask } | { kind: 'not_found' } | { kind: 'not_open'; task: AgentTask }>;
}

/** A request in the inbox as the console shows it (src/app/requests.ts). */
export interface InboxRequest {
  id: number;
  selfId: number;
  kind: 'friend' | 'group';
  subType: string;
  userId: number;
  groupId: number | null;
  comment: string;
  time: number;
  status: 'pending' | 'expired' | 'approved' | 'rejected' | 'failed';
  handledAt: number;
  handledBy: string;
}

/** The friend and group request inbox (routes/requests.ts). */
export interface RequestsPort {
  pending(selfId?: number): Promise<InboxRequest[]>;
  handled(limit: number, selfId?: number): Promise<InboxRequest[]>;
  /**
   * Approves or rejects the pending request matching the target; rejects with an error whose
   * `reason` is not-pending, expired, not-connected or refused.
   */
  act(
    target: { selfId: number; kind: 'friend' | 'group'; userId: number | null; groupId: number | null },
    approve: boolean,
  ): Promise<InboxRequest>;
}

export interface ChatGroup {
  groupId: number;
  name: string;
  memberCount: number;
}

export interface ChatFriend {
  userId: number;
  nickname: string;
  remark: string;
}

/** An account's groups and friends from its OneBot implementation; a NotConnectedError when offline. */
export interface ChatListsPort {
  groups(selfId: number): Promise<ChatGroup[]>;
  friends(selfId: number): Promise<ChatFriend[]>;
}

/** One account as the instances view shows it (src/app/instances.ts). */
export interface Instance {
  selfId: number;
  connected: boolean;
  /** How the account is connected (null when it is not). */
  protocol: 'onebot_v11' | 'milky' | null;
  online: boolean | null;
  roles: string[];
  connectedAt: number | null;
  lastEventAt: number | null;
  /** From get_login_info; null when not connected or it did not answer. */
  nickname: string | null;
  /** Number of groups (get_group_list); null when not connected or it did not answer. */
  groups: number | null;
  today: { messages: number; replies: number };
  config: BotConfig;
}

export interface InstancesPort {
  list(): Promise<Instance[]>;
  /** Closes the account's OneBot connections; how many were open. */
  disconnect(selfId: number): number;
  /** Today's messages and replies per group of the account, counted by this process. */
  groupActivity(selfId: number): { groupId: number; messages: number; replies: number; proactive: number }[];
}

export interface SuspectedBot {
  userId: number;
  evidence: number;
  groupIds: number[];
  lastSeen: number;
  sample: string;
}
