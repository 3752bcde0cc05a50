/** What the OneBot endpoint is built with and what it emits (onebot-server.ts). */
import type { ChatRequest, GroupChatMessage, GroupMute, GroupRecall } from '../domain/chat.ts';
import type { Log } from '../common/log.ts';
import type { ClientRole } from './connection.ts';
import type { FrameRate } from './frame-budget.ts';
import type { LivenessSettings } from './liveness.ts';

export interface OneBotServerOptions {
  /** '' accepts any connection; otherwise it must be presented (header or `?access_token=`). */
  readonly accessToken: string;
  readonly actionTimeoutMs: number;
  readonly log: Log;
  /** Unix milliseconds. */
  readonly now: () => number;
  /** Frames above this are refused by ws, which closes that connection (1009). */
  readonly maxFrameBytes?: number;
  /** Per-connection frame rate; frames over it are shed and counted. */
  readonly frameRate?: FrameRate;
  /** Pings and the heartbeat deadline (liveness.ts); LIVENESS_DEFAULTS when not given. */
  readonly liveness?: LivenessSettings;
}

/** Frames this server dropped by design since start, by reason (visible in the console's health). */
export interface OneBotDropCounters {
  /** Over the connection's frame rate: shed before decoding. */
  rate_limited: number;
  /** A group message over the size limits. */
  oversized: number;
  /** An event naming another account than its connection. */
  self_id_mismatch: number;
  /** Not JSON, or not the shape of an event or answer. */
  malformed: number;
  /** Well-formed events of a kind this adapter does not use. */
  ignored: number;
}

export interface MessageMeta {
  /** The bot's own message (NapCat `message_sent`, or a self-reported message event). */
  readonly sentBySelf: boolean;
}

export interface BotConnected {
  readonly selfId: number;
  readonly role: ClientRole;
  /** It took the place of an older connection of the same account. */
  readonly replaced: boolean;
}

export interface BotDisconnected {
  readonly selfId: number;
  readonly role: ClientRole;
  readonly code: number;
  readonly reason: string;
  /** Another connection of the account remains (the other half of an Event/API pair). */
  readonly stillConnected: boolean;
}

export interface OneBotServerEvents {
  group_message: [message: GroupChatMessage, meta: MessageMeta];
  group_recall: [recall: GroupRecall];
  group_mute: [mute: GroupMute];
  request: [request: ChatRequest];
  bot_connected: [event: BotConnected];
  /** Not emitted for a connection that was replaced by a reconnect. */
  bot_disconnected: [event: BotDisconnected];
}
