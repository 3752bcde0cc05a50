/**
 * The chat port over every protocol adapter (docs/ARCHITECTURE.md "Protocol adapters"): OneBot v11
 * (implementations connect to Chorus) and Milky (Chorus dials them). One event stream for the
 * repeater, the chat log and the fleet; each action goes to the adapter the account is connected
 * through; the console sees one list of accounts, each with its protocol.
 */
import { EventEmitter } from 'node:events';
import type { ChatRequest, GroupChatMessage, GroupRecall } from '../domain/chat.ts';
import type { MilkyAdapter } from '../milky/index.ts';
import type { BotStatus, OneBotServer } from '../onebot/index.ts';
import type { ChatActions } from '../ports/chat.ts';

export type ChatProtocol = 'onebot_v11' | 'milky';

/** An account as the console shows it, whatever connects it. */
export interface ChatBot extends BotStatus {
  readonly protocol: ChatProtocol;
}

export interface ChatPlatformEvents {
  group_message: [message: GroupChatMessage, meta: { sentBySelf: boolean }];
  group_recall: [recall: GroupRecall];
  request: [request: ChatRequest];
  bot_connected: [event: { selfId: number; protocol: ChatProtocol }];
  bot_disconnected: [event: { selfId: number; protocol: ChatProtocol }];
}

type Adapter = ChatActions & Pick<MilkyAdapter, 'getLoginInfo' | 'call'>;

export class ChatPlatforms extends EventEmitter<ChatPlatformEvents> implements ChatActions {
  constructor(
    readonly onebot: OneBotServer,
    readonly milky: MilkyAdapter,
  ) {
    super();
    onebot.on('group_message', (message, meta) => this.emit('group_message', message, meta));
    onebot.on('group_recall', (recall) => this.emit('group_recall', recall));
    onebot.on('request', (request) => this.emit('request', request));
    onebot.on('bot_connected', (event) => this.emit('bot_connected', { selfId: event.selfId, protocol: 'onebot_v11' }));
    onebot.on('bot_disconnected', (event) => {
      if (!event.stillConnected) this.emit('bot_disconnected', { selfId: event.selfId, protocol: 'onebot_v11' });
    });
    milky.on('group_message', (message, meta) => this.emit('group_message', message, meta));
    milky.on('group_recall', (recall) => this.emit('group_recall', recall));
    milky.on('request', (request) => this.emit('request', request));
    milky.on('bot_connected', (event) => this.emit('bot_connected', { selfId: event.selfId, protocol: 'milky' }));
    milky.on('bot_disconnected', (event) => this.emit('bot_disconnected', { selfId: event.selfId, protocol: 'milky' }));
  }

  /** Every connected account; one connected both ways is listed once, as its OneBot connection. */
  bots(): ChatBot[] {
    const onebot = this.onebot.bots().map((bot): ChatBot => ({ ...bot, protocol: 'onebot_v11' }));
    const seen = new Set(onebot.map((bot) => bot.selfId));
    const milky = this.milky
      .bots()
      .filter((bot) => !seen.has(bot.selfId))
      .map((bot): ChatBot => ({
        selfId: bot.selfId,
        roles: [],
        connectedAt: bot.connectedAt,
        lastEventAt: bot.lastEventAt,
        lastHeartbeatAt: null,
        heartbeatIntervalMs: null,
        online: bot.online,
        lifecycle: null,
        remoteAddress: bot.endpoint,
        framesIn: bot.framesIn,
        framesOut: 0,
        // Chorus dials every Milky implementation, and pings its event stream (src/milky).
        directions: ['forward'],
        judgedBy: 'ping',
        lastPongAt: null,
        protocol: 'milky',
      }));
    return [...onebot, ...milky];
  }

  sendGroupMessage(selfId: number, groupId: number, message: string): Promise<{ messageId: number }> {
    return this.#adapter(selfId).sendGroupMessage(selfId, groupId, message);
  }

  deleteMessage(selfId: number, messageId: number, groupId: number): Promise<void> {
    return this.#adapter(selfId).deleteMessage(selfId, messageId, groupId);
  }

  getMessage(selfId: number, messageId: number, groupId: number) {
    return this.#adapter(selfId).getMessage(selfId, messageId, groupId);
  }

  getLoginInfo(selfId: number): Promise<{ userId: number; nickname: string }> {
    return this.#adapter(selfId).getLoginInfo(selfId);
  }

  /**
   * A protocol's own action (its own names and parameters) for the account; through `protocol`
   * when given (a request is answered over the protocol it came by), else the account's own.
   */
  call(
    selfId: number,
    action: string,
    params: Record<string, unknown> = {},
    protocol?: ChatProtocol,
  ): Promise<unknown> {
    const adapter = protocol === undefined ? this.#adapter(selfId) : protocol === 'milky' ? this.milky : this.onebot;
    return adapter.call(selfId, action, params);
  }

  /** OneBot keeps recent requests in memory too; Milky keeps none. */
  forgetRequest(selfId: number, flag: string): boolean {
    return this.onebot.forgetRequest(selfId, flag);
  }

  protocolOf(selfId: number): ChatProtocol | null {
    if (this.onebot.bots().some((bot) => bot.selfId === selfId)) return 'onebot_v11';
    return this.milky.has(selfId) ? 'milky' : null;
  }

  disconnect(selfId: number): number {
    return this.onebot.disconnect(selfId) + this.milky.disconnect(selfId);
  }

  /** An account not connected over Milky goes to OneBot, which says it is not connected. */
  #adapter(selfId: number): Adapter {
    return this.protocolOf(selfId) === 'milky' ? this.milky : this.onebot;
  }
}
