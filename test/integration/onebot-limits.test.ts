/**
 * What a hostile or broken peer can send over a real WebSocket: oversized messages, floods of
 * unknown event kinds, frames faster than the connection's rate, events for another account.
 * Each is dropped before expensive work, counted, and costs neither memory nor log volume.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { GroupChatMessage } from '../../src/domain/chat.ts';
import type { FrameRate } from '../../src/onebot/frame-budget.ts';
import { ONEBOT_MESSAGE_MAX_CHARS, ONEBOT_MESSAGE_MAX_SEGMENTS } from '../../src/onebot/limits.ts';
import { OneBotServer } from '../../src/onebot/onebot-server.ts';
import type { Log } from '../../src/common/log.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const SELF = 10001;
const GROUP = 20001;
const running: { adapter: OneBotServer; http: Server; peer?: OneBotPeer }[] = [];

/** A log that keeps the size of everything written to it. */
function measuringLog(): Log & { bytes: number; lines: number } {
  const log = {
    bytes: 0,
    lines: 0,
    write(object: object, message?: string) {
      log.lines++;
      log.bytes += JSON.stringify(object).length + (message?.length ?? 0);
    },
    debug: (o: object, m?: string) => log.write(o, m),
    info: (o: object, m?: string) => log.write(o, m),
    warn: (o: object, m?: string) => log.write(o, m),
    error: (o: object, m?: string) => log.write(o, m),
  };
  return log;
}

async function start(options: { frameRate?: FrameRate } = {}) {
  const log = measuringLog();
  const adapter = new OneBotServer({ accessToken: '', actionTimeoutMs: 2000, log, now: Date.now, ...options });
  const http = createServer();
  adapter.attach(http);
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}/onebot/v11/ws`;
  const entry: (typeof running)[number] = { adapter, http };
  running.push(entry);
  const peer = await OneBotPeer.connect({ url, selfId: SELF });
  entry.peer = peer;
  const messages: GroupChatMessage[] = [];
  adapter.on('group_message', (message) => messages.push(message));
  return { adapter, peer, messages, log };
}

afterEach(async () => {
  for (const { adapter, http, peer } of running.splice(0)) {
    await adapter.close();
    peer?.terminate();
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  }
});

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function heapUsedMb(): number {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

const UNLIMITED: FrameRate = { framesPerSecond: 1e9, framesBurst: 1e9, bytesPerSecond: 1e12, bytesBurst: 1e12 };

const groupFrame = (fields: Record<string, unknown>): string =>
  JSON.stringify({
    time: Math.floor(Date.now() / 1000),
    self_id: SELF,
    post_type: 'message',
    message_type: 'group',
    message_id: 1,
    group_id: GROUP,
    user_id: 30001,
    sender: { user_id: 30001, nickname: 'n' },
    ...fields,
  });

describe('OneBot limits', () => {
  test(
    'an oversized message, in either form, is dropped and counted; the next one arrives',
    { timeout: 20_000 },
    async () => {
      const { adapter, peer, messages } = await start();
      peer.sendRaw(groupFrame({ message_id: 1, message: 'x'.repeat(ONEBOT_MESSAGE_MAX_CHARS + 1) }));
      peer.sendRaw(groupFrame({ message_id: 2, message: '好'.repeat(1024 * 1024) }));
      const segments = Array.from({ length: ONEBOT_MESSAGE_MAX_SEGMENTS + 1 }, () => ({
        type: 'face',
        data: { id: '1' },
      }));
      peer.sendRaw(groupFrame({ message_id: 3, message: segments }));
      const longText = [{ type: 'text', data: { text: 'y'.repeat(ONEBOT_MESSAGE_MAX_CHARS + 1) } }];
      peer.sendRaw(groupFrame({ message_id: 4, message: longText }));
      peer.groupMessage({ groupId: GROUP, userId: 30002, text: 'after the big ones' });
      await until(() => messages.length === 1);
      assert.equal(messages[0]?.plainText, 'after the big ones');
      assert.equal(adapter.dropped().oversized, 4);
    },
  );

  test('a message at the limit still arrives', async () => {
    const { adapter, peer, messages } = await start();
    peer.groupMessage({ groupId: GROUP, userId: 30002, text: 'z'.repeat(ONEBOT_MESSAGE_MAX_CHARS) });
    await until(() => messages.length === 1);
    assert.equal(adapter.dropped().oversized, 0);
  });

  test(
    '100 oversized frames and 100 unknown 1 MB event kinds cost under 20 MB and little log',
    { timeout: 60_000 },
    async (t) => {
      // Unlimited rate, so every frame is decoded and the size limits (not the rate) are what is tested.
      const { adapter, peer, messages, log } = await start({ frameRate: UNLIMITED });
      const before = heapUsedMb();
      for (let i = 0; i < 100; i++) {
        const filler = `${i}`.padEnd(1024 * 1024, 'k');
        peer.sendRaw(groupFrame({ message_type: filler }));
        peer.sendRaw(groupFrame({ message_id: i, message: filler }));
      }
      peer.groupMessage({ groupId: GROUP, userId: 30002, text: 'done' });
      await until(() => messages.length === 1, 30_000);
      const grownMb = heapUsedMb() - before;
      t.diagnostic(`heap grew ${grownMb.toFixed(1)} MB after 200 frames of 1 MB; the log grew ${log.bytes} bytes`);
      assert.ok(grownMb < 20, `heap grew ${grownMb.toFixed(1)} MB`);
      assert.ok(log.bytes < 64 * 1024, `log grew ${log.bytes} bytes in ${log.lines} lines`);
      const dropped = adapter.dropped();
      assert.deepEqual(dropped, { rate_limited: 0, oversized: 100, self_id_mismatch: 0, malformed: 0, ignored: 100 });
    },
  );

  test('frames over the connection rate are shed and counted, and the rest still arrive', async () => {
    const rate: FrameRate = { framesPerSecond: 50, framesBurst: 20, bytesPerSecond: 1 << 30, bytesBurst: 1 << 30 };
    const { adapter, peer, messages } = await start({ frameRate: rate });
    for (let i = 0; i < 200; i++) peer.groupMessage({ groupId: GROUP, userId: 30002, text: `m${i}` });
    await until(() => messages.length + adapter.dropped().rate_limited >= 200);
    const { rate_limited } = adapter.dropped();
    // The burst (less the peer's lifecycle frame), plus what refilled while the frames arrived.
    assert.ok(messages.length >= 15 && messages.length < 60, `${messages.length} arrived`);
    assert.equal(rate_limited, 200 - messages.length);
    // The bucket refills: after a pause the connection is served again.
    await new Promise((resolve) => setTimeout(resolve, 500));
    peer.groupMessage({ groupId: GROUP, userId: 30002, text: 'later' });
    await until(() => messages.at(-1)?.plainText === 'later');
  });

  test('the byte rate also counts: a burst of large frames is shed', async () => {
    const rate: FrameRate = { framesPerSecond: 1e6, framesBurst: 1e6, bytesPerSecond: 1024, bytesBurst: 64 * 1024 };
    const { adapter, peer, messages } = await start({ frameRate: rate });
    for (let i = 0; i < 20; i++) peer.groupMessage({ groupId: GROUP, userId: 30002, text: `${i}`.padEnd(8000, '.') });
    await until(() => messages.length + adapter.dropped().rate_limited >= 20);
    assert.ok(adapter.dropped().rate_limited >= 10, JSON.stringify(adapter.dropped()));
  });

  test('an event naming another account than its connection is dropped and counted', async () => {
    const { adapter, peer, messages } = await start();
    peer.sendRaw(groupFrame({ self_id: 99999, message: 'for someone else' }));
    peer.sendRaw(groupFrame({ self_id: 'not a number', message_id: 2, message: 'garbled' }));
    peer.groupMessage({ groupId: GROUP, userId: 30002, text: 'mine' });
    await until(() => messages.length === 1);
    assert.equal(messages[0]?.plainText, 'mine');
    assert.equal(adapter.dropped().self_id_mismatch, 2);
  });
});
