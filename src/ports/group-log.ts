import type { Blacklist, GroupMessage } from '../domain/corpus.ts';

/** The group chat log (docs/rules.md#chat-log): what was said, for bans, profiles and the console. */
export interface GroupMessageLog {
  append(messages: readonly GroupMessage[]): Promise<void>;
  /** The newest `limit` messages of a group, oldest first. */
  recent(groupId: number, limit: number): Promise<GroupMessage[]>;
}

/** Per-group reply blacklists; they persist across restarts. */
export interface BlacklistRepository {
  get(groupId: number): Promise<Blacklist | null>;
  put(blacklist: Blacklist): Promise<void>;
  list(): Promise<Blacklist[]>;
}
