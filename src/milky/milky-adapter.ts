/**
 * The Milky adapter: the implementations Chorus dials (one MilkyEndpoint each), as accounts that
 * emit the domain's chat events and take the chat port's actions (src/ports/chat.ts).
 *
 * Message ids: Milky numbers messages by `message_seq`, unique within a group. The adapter hands
 * that number to the repeater as the message id unchanged (stable across restarts, and what the
 * chat log stores); the port's calls on a message carry its group, which Milky's calls need too.
 */
import { EventEmitter } from 'node:events';
import type { Log } from '../common/log.ts';
import type { ChatRequest, GroupChatMessage, GroupRecall } from '../domain/chat.ts';
import type { ChatActions } from '../ports/chat.ts';
import { ActionFailedError, NotConnectedError, renderCq } from '../onebot/index.ts';
import { answerInteger } from './api-call.ts';
import type { MilkyTarget } from './connect-target.ts';
import { MilkyEndpoint, type EndpointHooks } from './endpoint.ts';
import type { MilkyFrame } from './events.ts';
import { MILKY_IGNORED_KINDS_LOGGED_MAX } from './limits.ts';
import { cqToSegments, SegmentShapeError, segmentsToCq } from './segments.ts';

export interface MilkyAdapterEvents {
  group_message: [message: GroupChatMessage, meta: { sentBySelf: boolean }];
  group_recall: [recall: GroupRecall];
  request: [request: ChatRequest];
  bot_connected: [event: { selfId: number }];
  bot_disconnected: [event: { selfId: number; reason: string }];
}

/** What the console shows about one Milky account. */
export interface MilkyBotStatus {
  readonly selfId: number;
  readonly endpoint: string;
  readonly connectedAt: number;
  readonly lastEventAt: number | null;
  readonly online: boolean | null;
  readonly framesIn: number;
}

export interface MilkyDropCounters {
  /** Not JSON, or not the shape of a Milky event. */
  malformed: number;
  /** Well-formed events of a kind this adapter does not use. */
  ignored: number;
}

export interface MilkyAdapterOptions {
  readonly targets: readonly MilkyTarget[];
  readonly actionTimeoutMs: number;
  readonly log: Log;
  /** Unix milliseconds. */
  readonly now: () => number;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export class MilkyAdapter extends EventEmitter<MilkyAdapterEvents> implements ChatActions {
  #endpoints: MilkyEndpoint[];
  readonly #hooks: EndpointHooks;
  readonly #endpointOptions: ConstructorParameters<typeof MilkyEndpoint>[2];
  #started = false;
  readonly #log: Log;
  readonly #dropped: MilkyDropCounters = { malformed: 0, ignored: 0 };
  readonly #ignoredKinds = new Set<string>();
  #actionTimeoutMs: number;

  constructor(options: MilkyAdapterOptions) {
    super();
    this.#log = options.log;
    this.#actionTimeoutMs = options.actionTimeoutMs;
    const hooks = {
      connected: (endpoint: MilkyEndpoint) => {
        this.#log.info({ self_id: endpoint.selfId, endpoint: endpoint.target.display }, 'Milky account connected');
        this.emit('bot_connected', { selfId: endpoint.selfId ?? 0 });
      },
      disconnected: (endpoint: MilkyEndpoint, reason: string) => {
        this.#log.info(
          { self_id: endpoint.selfId, endpoint: endpoint.target.display, reason },
          'Milky account disconnected',
        );
        this.emit('bot_disconnected', { selfId: endpoint.selfId ?? 0, reason });
      },
      frame: (endpoint: MilkyEndpoint, frame: MilkyFrame) => this.#frame(endpoint, frame),
      malformed: (endpoint: MilkyEndpoint, detail: string) => {
        this.#dropped.malformed++;
        this.#log.warn(
          { self_id: endpoint.selfId, endpoint: endpoint.target.display, detail },
          'malformed Milky event dropped',
        );
      },
    };
    this.#hooks = hooks;
    this.#endpointOptions = { log: options.log, now: options.now, actionTimeoutMs: () => this.#actionTimeoutMs };
    this.#endpoints = options.targets.map((target) => new MilkyEndpoint(target, hooks, this.#endpointOptions));
  }

  /** Starts dialling every implementation (each keeps trying on its own). */
  start(): void {
    this.#started = true;
    for (const endpoint of this.#endpoints) endpoint.start();
  }

  /**
   * A saved CHORUS_MILKY_CONNECT: implementations no longer listed (or listed with another token)
   * are closed, new ones dialled, unchanged ones left connected. Says what changed, naming no token.
   */
  async applyTargets(targets: readonly MilkyTarget[]): Promise<string> {
    const same = (a: MilkyTarget, b: MilkyTarget) => a.base === b.base && a.token === b.token;
    const kept = this.#endpoints.filter((endpoint) => targets.some((target) => same(target, endpoint.target)));
    const closed = this.#endpoints.filter((endpoint) => !kept.includes(endpoint));
    const added = targets
      .filter((target) => !kept.some((endpoint) => same(target, endpoint.target)))
      .map((target) => new MilkyEndpoint(target, this.#hooks, this.#endpointOptions));
    this.#endpoints = [...kept, ...added];
    await Promise.all(closed.map((endpoint) => endpoint.close()));
    if (this.#started) for (const endpoint of added) endpoint.start();
    return `Milky: ${added.length} dialled, ${closed.length} closed, ${kept.length} unchanged`;
  }

  applyTimeout(actionTimeoutMs: number): void {
    this.#actionTimeoutMs = actionTimeoutMs;
  }

  has(selfId: number): boolean {
    return this.#endpoints.some((endpoint) => endpoint.open && endpoint.selfId === selfId);
  }

  bots(): MilkyBotStatus[] {
    return this.#endpoints
      .filter((endpoint) => endpoint.open && endpoint.selfId !== null)
      .map((endpoint) => ({
        selfId: endpoint.selfId!,
        endpoint: endpoint.target.display,
        connectedAt: endpoint.connectedAt!,
        lastEventAt: endpoint.lastEventAt,
        online: endpoint.online,
        framesIn: endpoint.framesIn,
      }));
  }

  dropped(): MilkyDropCounters {
    return { ...this.#dropped };
  }

  async sendGroupMessage(selfId: number, groupId: number, message: string): Promise<{ messageId: number }> {
    const endpoint = this.#endpoint('send_group_message', selfId);
    const segments = await cqToSegments(message, (file) => this.#resourceUrl(endpoint, file));
    const data = await endpoint.call('send_group_message', { group_id: groupId, message: segments });
    return { messageId: answerInteger('send_group_message', data, 'message_seq') };
  }

  async deleteMessage(selfId: number, messageId: number, groupId: number): Promise<void> {
    await this.#endpoint('recall_group_message', selfId).call('recall_group_message', {
      group_id: groupId,
      message_seq: messageId,
    });
  }

  async getMessage(
    selfId: number,
    messageId: number,
    groupId: number,
  ): Promise<{ rawMessage: string; userId: number } | null> {
    const endpoint = this.#endpoint('get_message', selfId);
    let data: unknown;
    try {
      data = await endpoint.call('get_message', { message_scene: 'group', peer_id: groupId, message_seq: messageId });
    } catch (error) {
      // The implementation no longer has it: as with OneBot, that is "no message", not a fault.
      if (error instanceof ActionFailedError) return null;
      throw error;
    }
    const message = isObject(data) ? data.message : undefined;
    if (!isObject(message) || typeof message.sender_id !== 'number') return null;
    try {
      return {
        rawMessage: renderCq(segmentsToCq(message.segments, 'data.message.segments')),
        userId: message.sender_id,
      };
    } catch (error) {
      if (error instanceof SegmentShapeError) return null;
      throw error;
    }
  }

  async getLoginInfo(selfId: number): Promise<{ userId: number; nickname: string }> {
    const data = await this.#endpoint('get_login_info', selfId).call('get_login_info');
    const nickname = isObject(data) && typeof data.nickname === 'string' ? data.nickname : '';
    return { userId: answerInteger('get_login_info', data, 'uin'), nickname };
  }

  /** Any Milky API call for the account (the console's group and friend lists use it). */
  call(selfId: number, action: string, params: Record<string, unknown> = {}): Promise<unknown> {
    return this.#endpoint(action, selfId).call(action, params);
  }

  /** Closes the account's event stream (it is dialled again); how many were open. */
  disconnect(selfId: number): number {
    return this.#endpoints.filter((endpoint) => endpoint.selfId === selfId && endpoint.disconnect()).length;
  }

  async close(): Promise<void> {
    await Promise.all(this.#endpoints.map((endpoint) => endpoint.close()));
  }

  #endpoint(action: string, selfId: number): MilkyEndpoint {
    const endpoint = this.#endpoints.find((candidate) => candidate.open && candidate.selfId === selfId);
    if (!endpoint) throw new NotConnectedError(action, selfId, 'no connection');
    return endpoint;
  }

  /** A learned picture's resource id as a URL the implementation can fetch again. */
  async #resourceUrl(endpoint: MilkyEndpoint, resourceId: string): Promise<string> {
    const data = await endpoint.call('get_resource_temp_url', { resource_id: resourceId });
    const url = isObject(data) ? data.url : undefined;
    if (typeof url !== 'string' || url === '') throw new ActionFailedError('get_resource_temp_url', -1, 'no url');
    return url;
  }

  #frame(endpoint: MilkyEndpoint, frame: MilkyFrame): void {
    switch (frame.kind) {
      case 'group_message':
        this.emit('group_message', frame.message, { sentBySelf: frame.sentBySelf });
        return;
      case 'group_recall':
        this.emit('group_recall', frame.recall);
        return;
      case 'request':
        this.emit('request', frame.request);
        return;
      case 'offline':
        this.#log.warn({ self_id: endpoint.selfId, reason: frame.reason }, 'Milky account went offline');
        return;
      case 'ignored':
        this.#dropped.ignored++;
        if (!this.#ignoredKinds.has(frame.what) && this.#ignoredKinds.size < MILKY_IGNORED_KINDS_LOGGED_MAX) {
          this.#ignoredKinds.add(frame.what);
          this.#log.debug({ kind: frame.what }, 'Milky event kind not used');
        }
        return;
      case 'problem':
        return;
    }
  }
}
