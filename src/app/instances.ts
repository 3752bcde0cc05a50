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

/** Today's counts of an account or a group: messages received, replies, and lines said first. */
interface DayCounts {
  messages: number;
  replies: number;
  proactive: number;
}

const zero = (): DayCounts => ({ messages: 0, replies: 0, proactive: 0 });

/** Counts per account for the current local day. */
export class DailyActivity {
  #day = '';
  readonly #counts = new Map<number, DayCounts>();
  /** Per account, per group (at most GROUPS_MAX groups per account are counted). */
  readonly #groups = new Map<number, Map<number, DayCounts>>();

  constructor(private readonly nowMs: () => number) {}

  record(decision: Pick<RepeaterDecision, 'selfId' | 'groupId' | 'outcome' | 'reason'>): void {
    const reason = decision.reason;
    if (reason === 'self' || reason.startsWith('duplicate') || reason.endsWith('-skipped')) return;
    // A proactive line answers no message: it is a line said first, not a message or a reply.
    const proactive = reason === 'proactive' ? 1 : 0;
    const replied = decision.outcome === 'replied' && !proactive ? 1 : 0;
    // A model answer (src/agent/chat) follows the decision that counted its message.
    const received = proactive || reason === 'agent-chat' ? 0 : 1;
    const add = (counts: DayCounts) => {
      counts.messages += received;
      counts.replies += replied;
      counts.proactive += proactive;
    };
    add(this.#today(decision.selfId));
    const groups = this.#groups.get(decision.selfId) ?? new Map<number, DayCounts>();
    this.#groups.set(decision.selfId, groups);
    const group = groups.get(decision.groupId) ?? (groups.size < GROUPS_MAX ? zero() : null);
    if (!group) return;
    groups.set(decision.groupId, group);
    add(group);
  }

  of(selfId: number): { messages: number; replies: number } {
    const { messages, replies } = this.#today(selfId);
    return { messages, replies };
  }

  /** Today's counts of the account's groups that had messages. */
  groupsOf(selfId: number): ({ groupId: number } & DayCounts)[] {
    this.#today(selfId);
    return [...(this.#groups.get(selfId) ?? new Map<number, DayCounts>())].map(([groupId, counts]) => ({
      groupId,
      ...counts,
    }));
  }

  #today(selfId: number): DayCounts {
    const day = new Date(this.nowMs()).toDateString();
    if (day !== this.#day) {
      this.#day = day;
      this.#counts.clear();
      this.#groups.clear();
    }
    let counts = this.#counts.get(selfId);
    if (!counts) {
      counts = zero();
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
