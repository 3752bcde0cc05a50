/**
 * The per-account bot settings (console `bot-configs`) as the chat side reads them: an in-memory
 * copy, loaded at start and refreshed when a save happens here or in another process on the same
 * database (the change feed), so a message never waits on the database for them.
 *
 * What each field does (docs/guide/connecting.md):
 * - `disabled_plugins` containing `repeater`: the account neither learns from nor answers messages;
 * - `nicknames`: names the account answers to, besides CHORUS_REPEATER_NICKNAMES (a message
 *   starting with one is addressed to the bot, so it is not answered from the corpus, and a ban
 *   command may name the bot that way);
 * - `security`: an answer whose sending failed is banned in that group, so it is not tried again;
 * - `admins`: treated as group admins: they may silence the bot in a group (silence-command.ts);
 * - `auto_accept_friend` / `auto_accept_group`: friend requests / group invitations are approved.
 */
import type { BotConfig, BotConfigStore } from '../store/bot-config-store.ts';
import { defaultBotConfig } from '../store/bot-config-store.ts';
import type { Log } from '../common/log.ts';

/** The plugin name that switches the corpus bot off for an account. */
export const REPEATER_PLUGIN = 'repeater';

export class BotSettings {
  readonly #configs = new Map<number, BotConfig>();

  constructor(
    private readonly store: Pick<BotConfigStore, 'list' | 'get'>,
    private readonly log: Log,
  ) {}

  async load(): Promise<void> {
    for (const config of await this.store.list()) this.#configs.set(config.account, config);
  }

  get(account: number): BotConfig {
    return this.#configs.get(account) ?? defaultBotConfig(account);
  }

  /** After a save here. */
  set(config: BotConfig): void {
    this.#configs.set(config.account, config);
  }

  /** After a save in another process: read the account again. */
  async reload(account: number): Promise<void> {
    try {
      const config = await this.store.get(account);
      if (config) this.#configs.set(account, config);
      else this.#configs.delete(account);
    } catch (error) {
      this.log.warn({ account, error: String(error) }, 'bot settings could not be reloaded');
    }
  }
}
