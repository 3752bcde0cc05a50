/**
 * The per-group and per-user controls (console `group-configs` / `user-configs`, README
 * "Controlling the bot per group") as the chat side reads them: an in-memory copy of the stored
 * rows, loaded at start and refreshed when a save happens here (console or chat command) or in
 * another process on the same database (change feed topics `group-config` / `user-config`), so
 * a message never waits on the database for them. A group or user without a row is default.
 */
import {
  type ChatControlChange,
  defaultGroupConfig,
  defaultUserConfig,
  type GroupConfig,
  type GroupConfigPatch,
  type UserConfig,
} from '../domain/chat-controls.ts';
import type { ChatControls } from '../repeater/group-controls.ts';
import type { Log } from '../common/log.ts';
import type { ChatControlsStore } from '../store/chat-controls-store.ts';
import type { ChangeTopic } from '../store/change-feed.ts';

export class ChatControlsCache implements ChatControls {
  readonly #groups = new Map<number, GroupConfig>();
  readonly #users = new Map<number, UserConfig>();
  readonly #listeners = new Set<(change: ChatControlChange) => void>();

  constructor(
    private readonly store: Pick<ChatControlsStore, 'listGroups' | 'getGroup' | 'putGroup' | 'listUsers' | 'getUser'>,
    private readonly deps: {
      log: Log;
      nowSec: () => number;
      /** Tells the other processes (the change feed); never throws. */
      publish: (topic: ChangeTopic, key: string) => void;
    },
  ) {}

  async load(): Promise<void> {
    for (const config of await this.store.listGroups()) this.#groups.set(config.groupId, config);
    for (const config of await this.store.listUsers()) this.#users.set(config.userId, config);
  }

  group(groupId: number): GroupConfig {
    return this.#groups.get(groupId) ?? defaultGroupConfig(groupId);
  }

  /** Every stored group config (the groups ever saved). */
  groups(): GroupConfig[] {
    return [...this.#groups.values()];
  }

  user(userId: number): UserConfig {
    return this.#users.get(userId) ?? defaultUserConfig(userId);
  }

  /**
   * Told after any change of a group or user, with its controls as they now are (the repeater
   * drops its cached reply bundles; the console's 群组 page follows them live).
   */
  onChange(listener: (change: ChatControlChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** A chat command's change: in effect here at once, then stored and told to the others. */
  saveGroup(groupId: number, patch: GroupConfigPatch): void {
    this.#setGroup({ ...this.group(groupId), ...patch });
    this.store
      .putGroup(groupId, patch, this.deps.nowSec())
      .then((saved) => this.groupSaved(saved))
      .catch((error: unknown) =>
        this.deps.log.warn({ groupId, error: String(error) }, 'a group command could not be stored'),
      );
  }

  /** After a save here (console or chat command). */
  groupSaved(config: GroupConfig): void {
    this.#setGroup(config);
    this.deps.publish('group-config', String(config.groupId));
  }

  userSaved(config: UserConfig): void {
    this.#users.set(config.userId, config);
    this.#changed({ kind: 'user', config });
    this.deps.publish('user-config', String(config.userId));
  }

  /** After a save in another process: read the group again. */
  async reloadGroup(groupId: number): Promise<void> {
    try {
      const config = await this.store.getGroup(groupId);
      if (config) this.#setGroup(config);
    } catch (error) {
      this.deps.log.warn({ groupId, error: String(error) }, 'a group config could not be reloaded');
    }
  }

  async reloadUser(userId: number): Promise<void> {
    try {
      const config = await this.store.getUser(userId);
      if (config) {
        this.#users.set(userId, config);
        this.#changed({ kind: 'user', config });
      }
    } catch (error) {
      this.deps.log.warn({ userId, error: String(error) }, 'a user config could not be reloaded');
    }
  }

  #setGroup(config: GroupConfig): void {
    this.#groups.set(config.groupId, config);
    this.#changed({ kind: 'group', config });
  }

  #changed(change: ChatControlChange): void {
    for (const listener of this.#listeners) listener(change);
  }
}
