/**
 * An account's groups and friends as its OneBot implementation reports them (`get_group_list`,
 * `get_friend_list`), cached for LIST_CACHE_MS so that a console page refreshing does not send an
 * action each time. An account that is not connected raises NotConnectedError.
 */
import type { ChatGroup, ChatFriend, ChatListsPort } from '../console/deps.ts';

export const LIST_CACHE_MS = 30_000;

type Call = (selfId: number, action: string, params: Record<string, unknown>) => Promise<unknown>;

export class ChatLists implements ChatListsPort {
  readonly #cache = new Map<string, { atMs: number; items: unknown[] }>();

  constructor(
    private readonly call: Call,
    private readonly nowMs: () => number,
  ) {}

  async groups(selfId: number): Promise<ChatGroup[]> {
    return (await this.#list(selfId, 'get_group_list')).flatMap((item) => {
      const row = item as Record<string, unknown>;
      const groupId = Number(row.group_id);
      if (!Number.isSafeInteger(groupId) || groupId <= 0) return [];
      return [
        {
          groupId,
          name: typeof row.group_name === 'string' ? row.group_name : '',
          memberCount: Number.isFinite(Number(row.member_count)) ? Number(row.member_count) : 0,
        },
      ];
    });
  }

  async friends(selfId: number): Promise<ChatFriend[]> {
    return (await this.#list(selfId, 'get_friend_list')).flatMap((item) => {
      const row = item as Record<string, unknown>;
      const userId = Number(row.user_id);
      if (!Number.isSafeInteger(userId) || userId <= 0) return [];
      return [
        {
          userId,
          nickname: typeof row.nickname === 'string' ? row.nickname : '',
          remark: typeof row.remark === 'string' ? row.remark : '',
        },
      ];
    });
  }

  async #list(selfId: number, action: string): Promise<unknown[]> {
    const key = `${selfId}:${action}`;
    const cached = this.#cache.get(key);
    if (cached && this.nowMs() - cached.atMs < LIST_CACHE_MS) return cached.items;
    const data = await this.call(selfId, action, {});
    const items = Array.isArray(data) ? data : milkyList(data);
    this.#cache.set(key, { atMs: this.nowMs(), items });
    return items;
  }
}

/**
 * Milky answers `get_group_list` / `get_friend_list` (the same action names) with `{ groups }` /
 * `{ friends }`, whose entries carry the fields OneBot's do (group_id, group_name, member_count;
 * user_id, nickname, remark).
 */
function milkyList(data: unknown): unknown[] {
  if (typeof data !== 'object' || data === null) return [];
  const { groups, friends } = data as { groups?: unknown; friends?: unknown };
  if (Array.isArray(groups)) return groups;
  return Array.isArray(friends) ? friends : [];
}
