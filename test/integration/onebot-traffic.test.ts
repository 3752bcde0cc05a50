/**
 * Events in and actions out over a real WebSocket on loopback, against the scripted peer:
 * messages in both formats, recalls, requests, echo correlation, failures, timeouts, disconnects.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, test } from 'node:test';
import type { ChatRequest, GroupChatMessage, GroupRecall } from '../../src/domain/chat.ts';
import { ActionFailedError, ActionTimeoutError, NotConnectedError } from '../../src/onebot/errors.ts';
import { OneBotServer, type MessageMeta } from '../../src/onebot/onebot-server.ts';
import { silentLog } from '../../src/common/log.ts';
import { OneBotPeer, type PeerOptions } from '../fixtures/onebot-peer.ts';

/** Every test fails (rather than hangs) when an awaited frame or close never comes. */
const it = (name: string, fn: () => Promise<void>): void => {
  test(name, { timeout: 10_000 }, fn);
};

const SELF = 10001;
const running: { adapter: OneBotServer; http: Server; peers: OneBotPeer[] }[] = [];

async function start(actionTimeoutMs = 2000) {
  const adapter = new OneBotServer({ accessToken: 'tok', actionTimeoutMs, log: silentLog, now: Date.now });
  const http = createServer();
  adapter.attach(http);
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}/onebot/v11/ws`;
  const peers: OneBotPeer[] = [];
  running.push({ adapter, http, peers });
  const connect = async (options: Partial<PeerOptions> = {}): Promise<OneBotPeer> => {
    const peer = await OneBotPeer.connect({ url, selfId: SELF, accessToken: 'tok', ...options });
    peers.push(peer);
    return peer;
  };
  return { adapter, connect };
}

afterEach(async () => {
  for (const { adapter, http, peers } of running.splice(0)) {
    await adapter.close();
    for (const peer of peers) peer.terminate();
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  }
});

/** Collects what the adapter emits, in order. */
function record(adapter: OneBotServer) {
  const messages: { message: GroupChatMessage; meta: MessageMeta }[] = [];
  const recalls: GroupRecall[] = [];
  const requests: ChatRequest[] = [];
  adapter.on('group_message', (message, meta) => messages.push({ message, meta }));
  adapter.on('group_recall', (recall) => recalls.push(recall));
  adapter.on('request', (request) => requests.push(request));
  return { messages, recalls, requests };
}

async function until(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const failureOf = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    (value) => new Error(`expected a failure, got ${JSON.stringify(value)}`),
    (error: unknown) => error,
  );

describe('events', () => {
  for (const format of ['array', 'string'] as const) {
    it(`group messages in ${format} form arrive as GroupChatMessage`, async () => {
      const { adapter, connect } = await start();
      const seen = record(adapter);
      const peer = await connect({ format });
      const messageId = peer.groupMessage({
        groupId: 123,
        userId: 42,
        message: [
          { type: 'reply', data: { id: '99' } },
          { type: 'at', data: { qq: String(SELF) } },
          { type: 'text', data: { text: ' a&b [c], d' } },
          { type: 'image', data: { file: 'PIC.jpg', url: 'https://x/?rkey=1&k=2', subType: '0' } },
        ],
        nickname: 'Nick',
        card: 'Card',
        role: 'owner',
        time: 1_700_000_000,
      });
      await until(() => seen.messages.length === 1);
      assert.deepEqual(seen.messages[0], {
        message: {
          selfId: SELF,
          groupId: 123,
          userId: 42,
          messageId,
          time: 1_700_000_000,
          rawMessage: `[CQ:reply,id=99][CQ:at,qq=${SELF}] a&amp;b &#91;c&#93;, d[CQ:image,file=PIC.jpg]`,
          plainText: ' a&b [c], d',
          senderName: 'Card',
          senderRole: 'owner',
          replyToMessageId: 99,
          mentionsSelf: true,
          pictures: [{ file: 'PIC.jpg', url: 'https://x/?rkey=1&k=2' }],
        },
        meta: { sentBySelf: false },
      });
    });
  }

  it('many messages keep their arrival order; the bot’s own messages are marked', async () => {
    const { adapter, connect } = await start();
    const seen = record(adapter);
    const peer = await connect();
    for (let index = 0; index < 200; index++) {
      peer.groupMessage({
        groupId: 1 + (index % 3),
        userId: 7,
        text: `m${index}`,
        format: index % 2 ? 'string' : 'array',
      });
    }
    peer.selfMessage({ groupId: 1, text: 'said by the bot elsewhere' });
    await until(() => seen.messages.length === 201);
    assert.deepEqual(
      seen.messages.slice(0, 200).map((entry) => entry.message.plainText),
      Array.from({ length: 200 }, (_, index) => `m${index}`),
    );
    assert.deepEqual(seen.messages[200]?.meta, { sentBySelf: true });
    assert.equal(seen.messages[200]?.message.userId, SELF);
  });

  it('recalls and requests; requests are kept for the console', async () => {
    const { adapter, connect } = await start();
    const seen = record(adapter);
    const peer = await connect();
    peer.recall({ groupId: 5, userId: 6, operatorId: 7, messageId: 8 });
    const friendFlag = peer.request({ kind: 'friend', userId: 11, comment: 'hello' });
    const groupFlag = peer.request({ kind: 'group', userId: 12, groupId: 13, subType: 'invite' });
    await until(() => seen.requests.length === 2 && seen.recalls.length === 1);
    assert.deepEqual(
      { ...seen.recalls[0], time: 0 },
      { selfId: SELF, groupId: 5, userId: 6, operatorId: 7, messageId: 8, time: 0 },
    );
    assert.deepEqual(
      seen.requests.map((request) => [request.kind, request.userId, request.groupId, request.subType, request.flag]),
      [
        ['friend', 11, null, '', friendFlag],
        ['group', 12, 13, 'invite', groupFlag],
      ],
    );
    assert.deepEqual(adapter.pendingRequests(), seen.requests);
    assert.equal(adapter.forgetRequest(SELF, friendFlag), true);
    assert.equal(adapter.forgetRequest(SELF, friendFlag), false);
    assert.deepEqual(
      adapter.pendingRequests().map((request) => request.flag),
      [groupFlag],
    );
  });

  it('the request list is bounded, oldest first out, and a repeated flag is kept once', async () => {
    const { adapter, connect } = await start();
    const peer = await connect();
    for (let index = 0; index < 250; index++) peer.request({ kind: 'friend', userId: 1 + index, flag: `f${index}` });
    peer.request({ kind: 'friend', userId: 9999, flag: 'f249' });
    await until(() => adapter.pendingRequests().at(-1)?.userId === 9999);
    const flags = adapter.pendingRequests().map((request) => request.flag);
    assert.equal(flags.length, 200);
    assert.equal(flags[0], 'f50');
    assert.equal(flags.filter((flag) => flag === 'f249').length, 1);
  });
});

describe('actions', () => {
  it('concurrent sends are matched to their answers by echo', async () => {
    const { adapter, connect } = await start();
    const peer = await connect({ firstMessageId: 5000 });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        adapter.sendGroupMessage(SELF, 100 + index, `msg ${index} [CQ:face,id=1]`),
      ),
    );
    const sent = await peer.nextSent(50);
    for (const [index, result] of results.entries()) {
      const match = sent.find((entry) => entry.messageId === result.messageId);
      assert.deepEqual(match, {
        groupId: 100 + index,
        message: `msg ${index} [CQ:face,id=1]`,
        messageId: result.messageId,
      });
    }
    assert.equal(new Set(peer.actions.map((action) => action.echo)).size, 50, 'every action has its own echo');
    assert.deepEqual(peer.actions[0]?.params, { group_id: 100, message: 'msg 0 [CQ:face,id=1]', auto_escape: false });
  });

  it('get_msg returns the stored form in either format; delete_msg reaches the peer', async () => {
    for (const format of ['array', 'string'] as const) {
      const { adapter, connect } = await start();
      const peer = await connect({ format });
      const id = peer.groupMessage({
        groupId: 1,
        userId: 42,
        message: '[CQ:image,file=Z.png,url=https://u?k=1&amp;j=2] hi',
      });
      assert.deepEqual(await adapter.getMessage(SELF, id), { rawMessage: '[CQ:image,file=Z.png] hi', userId: 42 });
      await adapter.deleteMessage(SELF, id);
      assert.deepEqual(peer.deleted, [id]);
      assert.equal(await adapter.getMessage(SELF, id), null, 'a message the implementation no longer has');
    }
  });

  it('a failed action is an ActionFailedError with retcode and detail', async () => {
    const { adapter, connect } = await start();
    const peer = await connect();
    peer.failAction('send_group_msg', { retcode: 1200, message: 'muted', times: 1 });
    const error = await failureOf(adapter.sendGroupMessage(SELF, 1, 'x'));
    assert.ok(error instanceof ActionFailedError);
    assert.equal(error.retcode, 1200);
    assert.equal(error.detail, 'muted');
    assert.equal(error.action, 'send_group_msg');
    assert.ok((await adapter.sendGroupMessage(SELF, 1, 'y')).messageId > 0, 'the rule applied once');
    await assert.rejects(adapter.call(SELF, 'set_group_kick', { group_id: 1, user_id: 2 }), ActionFailedError);
  });

  it('an unanswered action is an ActionTimeoutError after the timeout; the connection stays usable', async () => {
    const { adapter, connect } = await start(150);
    const peer = await connect();
    peer.ignoreAction('get_login_info', { times: 1 });
    const began = Date.now();
    const error = await failureOf(adapter.getLoginInfo(SELF));
    assert.ok(error instanceof ActionTimeoutError);
    assert.equal(error.timeoutMs, 150);
    assert.ok(Date.now() - began >= 140, 'not before the timeout');
    assert.deepEqual(await adapter.getLoginInfo(SELF), { userId: SELF, nickname: `bot${SELF}` });
  });

  it('pending actions are rejected when the connection drops; later ones find no connection', async () => {
    const { adapter, connect } = await start();
    const peer = await connect();
    peer.ignoreAction('send_group_msg');
    const pending = failureOf(adapter.sendGroupMessage(SELF, 1, 'lost'));
    await peer.waitForAction((action) => action.action === 'send_group_msg');
    peer.terminate();
    assert.ok((await pending) instanceof NotConnectedError);
    await until(() => adapter.bots().length === 0);
    await assert.rejects(adapter.deleteMessage(SELF, 1), NotConnectedError);
  });
});
