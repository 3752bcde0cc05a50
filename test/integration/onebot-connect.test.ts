/**
 * The OneBot endpoint over a real WebSocket on loopback: who may connect, several accounts,
 * reconnects, split Event/API connections, malformed and oversized frames, shutdown.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, describe, test } from 'node:test';
import type { GroupChatMessage } from '../../src/domain/chat.ts';
import { NotConnectedError } from '../../src/onebot/errors.ts';
import { ONEBOT_MAX_FRAME_BYTES } from '../../src/onebot/limits.ts';
import { OneBotServer, type BotConnected, type BotDisconnected } from '../../src/onebot/onebot-server.ts';
import type { Log } from '../../src/common/log.ts';
import { OneBotPeer, type PeerOptions } from '../fixtures/onebot-peer.ts';

/** Every test fails (rather than hangs) when an awaited frame or close never comes. */
const it = (name: string, fn: () => Promise<void>): void => {
  test(name, { timeout: 10_000 }, fn);
};

interface Harness {
  adapter: OneBotServer;
  http: Server;
  url: string;
  logs: { level: string; object: Record<string, unknown>; message: string }[];
  peers: OneBotPeer[];
  connect(options: Omit<PeerOptions, 'url'>): Promise<OneBotPeer>;
  refusal(options: Omit<PeerOptions, 'url'>, url?: string): Promise<number>;
}

const open: Harness[] = [];

async function start(options: { accessToken?: string; actionTimeoutMs?: number } = {}): Promise<Harness> {
  const logs: Harness['logs'] = [];
  const record =
    (level: string) =>
    (object: object, message = ''): void => {
      logs.push({ level, object: object as Record<string, unknown>, message });
    };
  const log: Log = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
  const adapter = new OneBotServer({
    accessToken: options.accessToken ?? '',
    actionTimeoutMs: options.actionTimeoutMs ?? 2000,
    log,
    now: Date.now,
  });
  const http = createServer((_request, response) => response.end('plain http'));
  adapter.attach(http);
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}/onebot/v11/ws`;
  const peers: OneBotPeer[] = [];
  const harness: Harness = {
    adapter,
    http,
    url,
    logs,
    peers,
    connect: async (peerOptions) => {
      const peer = await OneBotPeer.connect({ url, ...peerOptions });
      peers.push(peer);
      return peer;
    },
    refusal: (peerOptions, other) => OneBotPeer.refusal({ url: other ?? url, ...peerOptions }),
  };
  open.push(harness);
  return harness;
}

afterEach(async () => {
  for (const harness of open.splice(0)) {
    await harness.adapter.close();
    for (const peer of harness.peers) peer.terminate();
    harness.http.closeAllConnections();
    await new Promise((resolve) => harness.http.close(resolve));
  }
});

after(() => {
  // Leaked handles would keep the runner alive; fail loudly instead of hanging.
  assert.equal(open.length, 0);
});

/** Resolves with the next `count` group messages the adapter emits. */
function nextMessages(adapter: OneBotServer, count: number, timeoutMs = 3000): Promise<GroupChatMessage[]> {
  return new Promise((resolve, reject) => {
    const got: GroupChatMessage[] = [];
    const timer = setTimeout(() => {
      adapter.off('group_message', listener);
      reject(new Error(`only ${got.length} of ${count} messages arrived`));
    }, timeoutMs);
    const listener = (message: GroupChatMessage): void => {
      got.push(message);
      if (got.length < count) return;
      clearTimeout(timer);
      adapter.off('group_message', listener);
      resolve(got);
    };
    adapter.on('group_message', listener);
  });
}

const warnings = (harness: Harness, scope: string) =>
  harness.logs.filter((entry) => entry.level === 'warn' && entry.object.scope === scope);

describe('handshake', () => {
  it('without a configured token any implementation connects and is listed', async () => {
    const harness = await start();
    const connected = once(harness.adapter, 'bot_connected', { signal: AbortSignal.timeout(3000) }) as Promise<
      [BotConnected]
    >;
    await harness.connect({ selfId: 10001 });
    assert.deepEqual((await connected)[0], { selfId: 10001, role: 'Universal', replaced: false });
    const [bot] = harness.adapter.bots();
    assert.equal(bot?.selfId, 10001);
    assert.deepEqual(bot?.roles, ['Universal']);
    assert.ok(Math.abs((bot?.connectedAt ?? 0) - Date.now()) < 5000);
  });

  it('a configured token is required: missing or wrong is 401, header, Token scheme and query pass', async () => {
    const harness = await start({ accessToken: 's3cret' });
    assert.equal(await harness.refusal({ selfId: 1 }), 401);
    assert.equal(await harness.refusal({ selfId: 1, accessToken: 'wrong' }), 401);
    assert.equal(await harness.refusal({ selfId: 1, accessToken: 's3cret-but-longer' }), 401);
    assert.equal(await harness.refusal({ selfId: 1, accessToken: 'wrong', tokenIn: 'query' }), 401);
    assert.equal(harness.adapter.bots().length, 0);
    await harness.connect({ selfId: 1, accessToken: 's3cret' });
    await harness.connect({ selfId: 2, accessToken: 's3cret', tokenIn: 'query' });
    await harness.connect({ selfId: 3, headers: { Authorization: 'Token s3cret' } });
    assert.deepEqual(
      harness.adapter.bots().map((bot) => bot.selfId),
      [1, 2, 3],
    );
    assert.ok(warnings(harness, 'onebot/refused/401').length >= 1, 'refusals are logged');
  });

  it('X-Self-ID must be a positive account number, X-Client-Role a known role', async () => {
    const harness = await start();
    assert.equal(await harness.refusal({ selfId: 1, headers: { 'X-Self-ID': null } }), 400);
    assert.equal(await harness.refusal({ selfId: 1, headers: { 'X-Self-ID': 'abc' } }), 400);
    assert.equal(await harness.refusal({ selfId: 1, headers: { 'X-Self-ID': '0' } }), 400);
    assert.equal(await harness.refusal({ selfId: 1, headers: { 'X-Self-ID': '-5' } }), 400);
    assert.equal(await harness.refusal({ selfId: 1, headers: { 'X-Client-Role': 'Admin' } }), 400);
    await harness.connect({ selfId: 7, headers: { 'X-Client-Role': null } });
    assert.deepEqual(harness.adapter.bots()[0]?.roles, ['Universal']);
  });

  it('another upgrade path is refused with 404, or left to another upgrade listener', async () => {
    const harness = await start();
    const elsewhere = harness.url.replace('/onebot/v11/ws', '/other/ws');
    assert.equal(await harness.refusal({ selfId: 1 }, elsewhere), 404);
    assert.equal(await harness.refusal({ selfId: 1 }, `${harness.url}/extra`), 404);
    const seen: string[] = [];
    harness.http.on('upgrade', (request, socket) => {
      if (request.url !== '/other/ws') return;
      seen.push(request.url);
      socket.end('HTTP/1.1 418 I am a teapot\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    });
    assert.equal(await harness.refusal({ selfId: 1 }, elsewhere), 418);
    assert.deepEqual(seen, ['/other/ws']);
    await harness.connect({ selfId: 1 });
  });
});

describe('accounts and connections', () => {
  it('two accounts at once: actions go to the right connection', async () => {
    const harness = await start();
    const first = await harness.connect({ selfId: 111 });
    const second = await harness.connect({ selfId: 222 });
    const [a, b] = await Promise.all([
      harness.adapter.sendGroupMessage(111, 5, 'from 111'),
      harness.adapter.sendGroupMessage(222, 5, 'from 222'),
    ]);
    assert.deepEqual(first.sent, [{ groupId: 5, message: 'from 111', messageId: a.messageId }]);
    assert.deepEqual(second.sent, [{ groupId: 5, message: 'from 222', messageId: b.messageId }]);
    assert.deepEqual(await harness.adapter.getLoginInfo(222), { userId: 222, nickname: 'bot222' });
    await assert.rejects(harness.adapter.sendGroupMessage(333, 5, 'x'), NotConnectedError);
  });

  it('a reconnect of the same account replaces the old connection', async () => {
    const harness = await start();
    const disconnected: BotDisconnected[] = [];
    const connected: BotConnected[] = [];
    harness.adapter.on('bot_disconnected', (event) => disconnected.push(event));
    harness.adapter.on('bot_connected', (event) => connected.push(event));
    const old = await harness.connect({ selfId: 500 });
    old.ignoreAction('send_group_msg');
    const stranded = failureOf(harness.adapter.sendGroupMessage(500, 1, 'in flight'));
    await old.waitForAction((action) => action.action === 'send_group_msg');
    const fresh = await harness.connect({ selfId: 500 });
    assert.equal((await old.waitClosed()).code, 4000, 'the old socket is closed by the server');
    assert.ok((await stranded) instanceof NotConnectedError);
    await harness.adapter.sendGroupMessage(500, 1, 'after');
    assert.deepEqual(
      fresh.sent.map((sent) => sent.message),
      ['after'],
    );
    assert.equal(old.sent.length, 0);
    assert.deepEqual(
      harness.adapter.bots().map((bot) => bot.roles),
      [['Universal']],
    );
    assert.deepEqual(
      connected.map((event) => event.replaced),
      [false, true],
    );
    assert.equal(disconnected.length, 0, 'a replaced connection is not a disconnect');
    await fresh.close();
    await waitFor(() => disconnected.length === 1);
    assert.equal(disconnected[0]?.stillConnected, false);
    assert.equal(harness.adapter.bots().length, 0);
  });

  it('split Event and API connections: events from one, actions over the other', async () => {
    const harness = await start();
    const events = await harness.connect({ selfId: 900, role: 'Event' });
    await assert.rejects(harness.adapter.sendGroupMessage(900, 1, 'x'), NotConnectedError, 'Event takes no actions');
    const api = await harness.connect({ selfId: 900, role: 'API' });
    const arrived = nextMessages(harness.adapter, 1);
    events.groupMessage({ groupId: 1, userId: 2, text: 'via event' });
    assert.equal((await arrived)[0]?.plainText, 'via event');
    await harness.adapter.sendGroupMessage(900, 1, 'via api');
    assert.equal(api.sent.length, 1);
    assert.equal(events.isOpen, true, 'an API connection does not replace the Event one');
    assert.deepEqual(harness.adapter.bots()[0]?.roles, ['Event', 'API']);
    const disconnected = once(harness.adapter, 'bot_disconnected', { signal: AbortSignal.timeout(3000) }) as Promise<
      [BotDisconnected]
    >;
    await api.close();
    assert.deepEqual((await disconnected)[0], {
      selfId: 900,
      role: 'API',
      code: 1000,
      reason: '',
      stillConnected: true,
    });
    await assert.rejects(harness.adapter.getLoginInfo(900), NotConnectedError);
    const universal = await harness.connect({ selfId: 900 });
    assert.equal((await events.waitClosed()).code, 4000, 'Universal replaces the Event connection');
    assert.equal(universal.isOpen, true);
  });

  it('heartbeats and lifecycle events are tracked per account', async () => {
    const harness = await start();
    const peer = await harness.connect({ selfId: 42 });
    peer.heartbeat({ intervalMs: 30_000, online: false });
    peer.lifecycle('disable');
    await waitFor(() => harness.adapter.bots()[0]?.lifecycle === 'disable');
    const [bot] = harness.adapter.bots();
    assert.equal(bot?.heartbeatIntervalMs, 30_000);
    assert.equal(bot?.online, false);
    assert.ok(bot?.lastHeartbeatAt !== null && bot?.lastEventAt !== null);
  });
});

describe('robustness', () => {
  it('malformed frames are dropped and logged once per kind; the connection stays usable', async () => {
    const harness = await start();
    const peer = await harness.connect({ selfId: 77 });
    for (let index = 0; index < 5; index++) peer.sendRaw('{not json');
    peer.sendRaw('[1,2,3]');
    peer.sendRaw(
      JSON.stringify({
        post_type: 'message',
        message_type: 'group',
        group_id: 'x',
        user_id: 1,
        message_id: 1,
        message: 'a',
      }),
    );
    peer.sendRaw(
      JSON.stringify({
        post_type: 'message',
        message_type: 'group',
        group_id: 1,
        user_id: 1,
        message_id: 1,
        message: [{ nope: 1 }],
      }),
    );
    peer.sendRaw(JSON.stringify({ post_type: 'something_new' }));
    peer.sendRaw(JSON.stringify({ status: 'ok', retcode: 0, echo: 'nobody-asked' }));
    peer.sendRaw(Buffer.from([0xff, 0xfe, 0x00]), { binary: true });
    peer.sendRaw(`{"post_type":"message","pad":"${'x'.repeat(2 * 1024 * 1024)}"`);
    const arrived = nextMessages(harness.adapter, 1);
    peer.groupMessage({ groupId: 3, userId: 4, text: 'still here' });
    assert.equal((await arrived)[0]?.plainText, 'still here');
    assert.equal((await harness.adapter.sendGroupMessage(77, 3, 'ok')).messageId > 0, true);
    assert.equal(
      warnings(harness, 'onebot/malformed/json').length,
      1,
      'rate limited: one line for eight bad JSON frames',
    );
    assert.equal(warnings(harness, 'onebot/malformed/shape').length, 1);
    assert.equal(warnings(harness, 'onebot/unmatched-response').length, 1);
    assert.ok(harness.logs.some((entry) => entry.object.kind === 'post_type/something_new'));
  });

  it('a frame above the size limit closes only that connection (1009); others and new ones work', async () => {
    const harness = await start();
    const big = await harness.connect({ selfId: 1 });
    const other = await harness.connect({ selfId: 2 });
    big.sendRaw('x'.repeat(ONEBOT_MAX_FRAME_BYTES + 1));
    assert.equal((await big.waitClosed()).code, 1009);
    await waitFor(() => harness.adapter.bots().length === 1);
    const arrived = nextMessages(harness.adapter, 1);
    other.groupMessage({ groupId: 1, userId: 3, text: 'unaffected' });
    assert.equal((await arrived)[0]?.selfId, 2);
    await harness.connect({ selfId: 1 });
    assert.equal(harness.adapter.bots().length, 2);
  });

  it('a throwing or rejecting listener is logged; later listeners and messages still run', async () => {
    const harness = await start();
    const peer = await harness.connect({ selfId: 5 });
    harness.adapter.on('group_message', () => {
      throw new Error('listener bug');
    });
    harness.adapter.on('group_message', async () => {
      throw new Error('async listener bug');
    });
    const arrived = nextMessages(harness.adapter, 3);
    for (const text of ['one', 'two', 'three']) peer.groupMessage({ groupId: 1, userId: 2, text });
    assert.deepEqual(
      (await arrived).map((message) => message.plainText),
      ['one', 'two', 'three'],
    );
    await waitFor(() => warnings(harness, 'onebot/listener/group_message').length > 0);
    assert.match(String(warnings(harness, 'onebot/listener/group_message')[0]?.object.err), /listener bug/);
    assert.equal(peer.isOpen, true);
  });

  it('close() rejects pending actions, closes every connection and stops serving', async () => {
    const harness = await start();
    const peer = await harness.connect({ selfId: 8 });
    peer.ignoreAction('get_msg');
    const pending = failureOf(harness.adapter.getMessage(8, 1));
    await peer.waitForAction((action) => action.action === 'get_msg');
    await harness.adapter.close();
    assert.ok((await pending) instanceof NotConnectedError);
    assert.equal((await peer.waitClosed()).code, 1001);
    assert.equal(harness.adapter.bots().length, 0);
    // Detached: with no upgrade listener left, Node hands the request to the plain HTTP handler.
    assert.equal(await harness.refusal({ selfId: 8 }), 200);
    assert.equal(harness.http.listenerCount('upgrade'), 0);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The rejection reason of a promise that is expected to fail (handled at once, awaited later). */
function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => new Error(`expected a failure, got ${JSON.stringify(value)}`),
    (error: unknown) => error,
  );
}
