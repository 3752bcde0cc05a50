// The 群组 page's cards: one per group, whichever of the connected accounts are in it. A group's
// controls are stored per group (group-configs has no account in its key), so one set of switches
// applies to every account in the group; each account keeps its own line of today's figures.
import type { GetData } from '../../api';

export type GroupConfig = GetData<'/group-configs/{group_id}'>;
type GroupList = GetData<'/group-list'>;
type GroupActivity = GetData<'/group-activity'>;

/** What one save of the card changes: only the field changed, so nothing else is saved with it. */
export type GroupPatch = Partial<
  Pick<
    GroupConfig,
    | 'reply'
    | 'learn'
    | 'share'
    | 'banned'
    | 'history_seed'
    | 'proactive'
    | 'agent_chat'
    | 'answer_threshold'
    | 'reply_cooldown_sec'
    | 'silence_until'
  >
>;

export interface AccountInGroup {
  selfId: number;
  today: { messages: number; replies: number; proactive: number };
}

export interface GroupView {
  groupId: number;
  name: string;
  members: number;
  accounts: AccountInGroup[];
  config: GroupConfig;
  busy: boolean;
  error: string | null;
}

export interface AccountLists {
  selfId: number;
  list: GroupList;
  configs: GroupConfig[];
  activity: GroupActivity;
}

/** One view per group, in the order the accounts list them; the accounts in a group by number. */
export function mergeGroups(accounts: readonly AccountLists[]): GroupView[] {
  const byGroup = new Map<number, GroupView>();
  for (const { selfId, list, configs, activity } of accounts) {
    for (const group of list.groups) {
      const config = configs.find((c) => c.group_id === group.group_id);
      if (!config) continue;
      const found = activity.groups.find((a) => a.group_id === group.group_id);
      const today = { messages: found?.messages ?? 0, replies: found?.replies ?? 0, proactive: found?.proactive ?? 0 };
      const view = byGroup.get(group.group_id);
      if (view) {
        view.accounts.push({ selfId, today });
        view.accounts.sort((a, b) => a.selfId - b.selfId);
        view.name ||= group.group_name;
        view.members = Math.max(view.members, group.member_count);
        if (config.updated_at > view.config.updated_at) view.config = config;
        continue;
      }
      byGroup.set(group.group_id, {
        groupId: group.group_id,
        name: group.group_name,
        members: group.member_count,
        accounts: [{ selfId, today }],
        config,
        busy: false,
        error: null,
      });
    }
  }
  return [...byGroup.values()];
}
