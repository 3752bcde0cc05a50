/**
 * The friend and group request desk: every request event is kept in the persisted inbox
 * (src/store/request-store.ts); the account's bot-configs `auto_accept_friend` /
 * `auto_accept_group` approve new ones at once; the console approves or rejects the rest
 * through the protocol it came by: OneBot's `set_friend_add_request` / `set_group_add_request`,
 * or Milky's accept/reject actions named by the request's flag (src/milky/requests.ts). A pending
 * request older than REQUEST_EXPIRE_SEC reads as expired: QQ no longer accepts an answer to it.
 */
import type { ChatRequest } from '../domain/chat.ts';
import { milkyRequestAnswer } from '../milky/index.ts';
import { NotConnectedError } from '../onebot/errors.ts';
import type { Log } from '../common/log.ts';
import type { RequestStore, StoredRequest } from '../store/request-store.ts';
import type { InboxRequest, RequestsPort } from '../console/deps.ts';
import type { BotSettings } from './bot-settings.ts';

export const REQUEST_EXPIRE_SEC = 7 * 24 * 3600;

export interface RequestTarget {
  selfId: number;
  kind: 'friend' | 'group';
  userId: number | null;
  groupId: number | null;
}

/** Why an action on a request did not happen, for the console's answer. */
export class RequestActionError extends Error {
  constructor(
    readonly reason: 'not-pending' | 'expired' | 'not-connected' | 'refused',
    message: string,
  ) {
    super(message);
  }
}

export interface RequestActions {
  /** `protocol`: the adapter the call must go through (a request is answered where it came from). */
  call(selfId: number, action: string, params: Record<string, unknown>, protocol?: RequestProtocol): Promise<unknown>;
  forgetRequest(selfId: number, flag: string): boolean;
}

export type RequestProtocol = 'onebot_v11' | 'milky';

/** The protocol call answering `request`. */
function answerCall(
  request: StoredRequest,
  approve: boolean,
): { action: string; params: Record<string, unknown>; protocol: RequestProtocol } {
  const milky = milkyRequestAnswer(request.flag, approve);
  if (milky) return { ...milky, protocol: 'milky' };
  if (request.kind === 'friend') {
    return { action: 'set_friend_add_request', params: { flag: request.flag, approve }, protocol: 'onebot_v11' };
  }
  const params = { flag: request.flag, sub_type: request.subType, type: request.subType, approve };
  return { action: 'set_group_add_request', params, protocol: 'onebot_v11' };
}

export class RequestDesk {
  readonly counters = { received: 0, autoApproved: 0, approved: 0, rejected: 0, failed: 0 };

  constructor(
    private readonly deps: {
      store: Pick<RequestStore, 'add' | 'pending' | 'handled' | 'settle'>;
      chat: RequestActions;
      settings: Pick<BotSettings, 'get'>;
      log: Log;
      nowSec: () => number;
    },
  ) {}

  /** A request event: kept, and approved at once when the account says so. */
  async onRequest(request: ChatRequest): Promise<void> {
    this.counters.received++;
    const stored = await this.deps.store.add(request);
    if (stored.status !== 'pending') return;
    const config = this.deps.settings.get(request.selfId);
    const auto = request.kind === 'friend' ? config.autoAcceptFriend : config.autoAcceptGroup;
    if (!auto) return;
    try {
      await this.#answer(stored, true, 'auto');
      this.counters.autoApproved++;
      this.deps.log.info(
        { selfId: request.selfId, kind: request.kind, userId: request.userId },
        'request approved automatically',
      );
    } catch (error) {
      this.deps.log.warn(
        { selfId: request.selfId, kind: request.kind, error: String(error) },
        'approving a request failed',
      );
    }
  }

  /** Pending requests (expired ones included, marked by `isExpired`). */
  pending(selfId?: number): Promise<StoredRequest[]> {
    return this.deps.store.pending(selfId);
  }

  handled(limit: number, selfId?: number): Promise<StoredRequest[]> {
    return this.deps.store.handled(limit, selfId);
  }

  isExpired(request: StoredRequest): boolean {
    return request.status === 'pending' && request.time < this.deps.nowSec() - REQUEST_EXPIRE_SEC;
  }

  /** Approves or rejects the pending request matching `target`; throws RequestActionError. */
  async act(target: RequestTarget, approve: boolean): Promise<StoredRequest> {
    const found = (await this.deps.store.pending(target.selfId)).filter(
      (request) =>
        request.kind === target.kind &&
        (target.userId === null || request.userId === target.userId) &&
        (target.groupId === null || request.groupId === target.groupId),
    );
    const request = found.at(-1);
    if (!request) throw new RequestActionError('not-pending', 'no such pending request');
    if (this.isExpired(request)) throw new RequestActionError('expired', 'the request has expired');
    await this.#answer(request, approve, 'console');
    if (approve) this.counters.approved++;
    else this.counters.rejected++;
    return request;
  }

  async #answer(request: StoredRequest, approve: boolean, by: string): Promise<void> {
    const { action, params, protocol } = answerCall(request, approve);
    try {
      await this.deps.chat.call(request.selfId, action, params, protocol);
    } catch (error) {
      this.counters.failed++;
      if (error instanceof NotConnectedError) {
        throw new RequestActionError('not-connected', `account ${request.selfId} is not connected`);
      }
      throw new RequestActionError('refused', error instanceof Error ? error.message : String(error));
    }
    this.deps.chat.forgetRequest(request.selfId, request.flag);
    await this.deps.store.settle(request.id, approve ? 'approved' : 'rejected', by, this.deps.nowSec());
  }
}

/** The console's view of the desk: expired requests marked as such. */
export function requestsPort(desk: RequestDesk): RequestsPort {
  const view = (request: StoredRequest): InboxRequest => ({
    ...request,
    status: desk.isExpired(request) ? 'expired' : request.status,
  });
  return {
    pending: async (selfId) => (await desk.pending(selfId)).map(view),
    handled: async (limit, selfId) => (await desk.handled(limit, selfId)).map(view),
    act: async (target, approve) => {
      const handled = await desk.act(target, approve);
      return { ...handled, status: approve ? 'approved' : 'rejected', handledBy: 'console' };
    },
  };
}

/** For a console without a chat side (tools, tests): no account is ever connected. */
export const NO_CHAT_ACTIONS: RequestActions = {
  call: async (selfId, action) => {
    throw new NotConnectedError(action, selfId, 'no connection');
  },
  forgetRequest: () => false,
};
