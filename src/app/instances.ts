/**
 * The console's instances view: each account connected to this process, or configured in
 * bot-configs, with its connection, nickname (get_login_info), group count (the cached group
 * list), today's messages and replies, and its bot-config. Today's figures are counted by this
 * process from its repeater decisions since local midnight (or since it started, if later).
 */
import type { RepeaterDecision } from '../repeater/index.ts';
import type { ChatListsPort, Instance } from '../console/deps.ts';
import type { ChatBot } from './chat-platforms.ts';
import type { BotConfig } from '../store/bot-config-store.ts';

/** Counts per account for the current local day. */
export class DailyActivity {
  #day = '';
  readonly #counts = new Map<number, { messages: number; replies: number }>();
  /** Per account, per group (at most GROUPS_MAX groups per account are counted). */
  readonly #groups = new Map<number, Map<number, { messages: number; replies: number }>>();

  constructor(private readonly nowMs: () => number) {}

  record(decision: Pick<RepeaterDecision, 'selfId' | 'groupId' | 'outcome' | 'reason'>): void {
    if (decision.reason === 'self' || decision.reason.startsWith('duplicate')) return;
    const replied = decision.outcome === 'replied' ? 1 : 0;
    const counts = this.#today(decision.selfId);
    counts.messages++;
    counts.replies += replied;
    const groups = this.#groups.get(decision.selfId) ?? new Map<number, { messages: number; replies: number }>();
    this.#groups.set(decision.selfId, groups);
    const group = groups.get(decision.groupId) ?? (groups.size < GROUPS_MAX ? { messages: 0, replies: 0 } : null);
    if (!group) return;
    groups.set(decision.groupId, group);
    group.messages++;
    group.replies += replied;
  }

  of(selfId: number): { messages: number; replies: number } {
    return { ...this.#today(selfId) };
  }

  /** Today's counts of the account's groups that had messages. */
  groupsOf(selfId: number): { groupId: number; messages: number; replies: number }[] {
    this.#today(selfId);
    return [...(this.#groups.get(selfId) ?? new Map<number, { messages: number; replies: number }>())].map(
      ([groupId, counts]) => ({ groupId, ...counts }),
    );
  }

  #today(selfId: number): { messages: number; replies: number } {
    const day = new Date(this.nowMs()).toDateString();
    if (day !== this.#day) {
      this.#day = day;
      this.#counts.clear();
      this.#groups.clear();
    }
    let counts = this.#counts.get(selfId);
    if (!counts) {
      counts = { messages: 0, replies: 0 };
      this.#counts.set(selfId, counts);
    }
    return counts;
  }
}

const GROUPS_MAX = 10_000;

export interface InstanceSources {
  bots: () => readonly ChatBot[];
  configs: () => Promise<BotConfig[]>;
  config: (selfId: number) => BotConfig;
  nickname: (selfId: number) => Promise<string>;
  lists: ChatListsPort;
  activity: DailyActivity;
}

export async function listInstances(sources: InstanceSources): Promise<Instance[]> {
  const connected = new Map(sources.bots().map((bot) => [bot.selfId, bot]));
  const stored = await sources.configs();
  const accounts = [...new Set([...connected.keys(), ...stored.map((config) => config.account)])].sort((a, b) => a - b);
  return Promise.all(
    accounts.map(async (selfId) => {
      const bot = connected.get(selfId);
      const [nickname, groups] = bot
        ? await Promise.all([
            sources.nickname(selfId).catch(() => null),
            sources.lists.groups(selfId).then(
              (list) => list.length,
              () => null,
            ),
          ])
        : [null, null];
      return {
        selfId,
        connected: bot !== undefined,
        protocol: bot?.protocol ?? null,
        online: bot?.online ?? null,
        roles: bot ? [...bot.roles] : [],
        connectedAt: bot?.connectedAt ?? null,
        lastEventAt: bot?.lastEventAt ?? null,
        nickname,
        groups,
        today: sources.activity.of(selfId),
        config: sources.config(selfId),
      };
    }),
  );
}
