/**
 * The Milky adapter's actions against the stand-in implementation (test/fixtures/milky-peer.ts)
 * over real sockets, without the rest of Chorus: fetching a message by group and message_seq,
 * "no message" for one the implementation does not have, a refused send, an account that is not
 * connected, and the connection events.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { silentLog } from '../../src/common/log.ts';
import { MilkyAdapter, parseMilkyTarget, UnsendableSegmentError, type MilkyTarget } from '../../src/milky/index.ts';
import { NotConnectedError } from '../../src/onebot/index.ts';
import { MilkyPeer, waitUntil } from '../fixtures/milky-peer.ts';

const SELF = 30001;
const TOKEN = 'adapter-test-token';
const quiet = silentLog;

describe('MilkyAdapter against a stand-in implementation', () => {
  let peer: MilkyPeer;
  let adapter: MilkyAdapter;
  const events: string[] = [];

  before(async () => {
    peer = await new MilkyPeer({ selfId: SELF, token: TOKEN, nickname: '小米' }).start();
    const target = parseMilkyTarget(`${peer.base}?access_token=${TOKEN}`) as MilkyTarget;
    adapter = new MilkyAdapter({ targets: [target], actionTimeoutMs: 5000, log: quiet, now: () => Date.now() });
    adapter.on('bot_connected', (event) => events.push(`connected ${event.selfId}`));
    adapter.on('bot_disconnected', (event) => events.push(`disconnected ${event.selfId}`));
    adapter.start();
    await waitUntil('the account', () => adapter.has(SELF));
  });
  after(async () => {
    await adapter.close();
    await peer.stop();
  });

  it('fetches a message by its group and message_seq, and says "no message" for an unknown one', async () => {
    const seq = peer.groupMessage({
      groupId: 8001,
      userId: 5,
      segments: [
        { type: 'text', data: { text: '看' } },
        { type: 'image', data: { resource_id: 'pic-9', temp_url: 'https://x/?rkey=1' } },
      ],
      time: 1_700_000_000,
    });
    assert.deepEqual(await adapter.getMessage(SELF, seq, 8001), { rawMessage: '看[CQ:image,file=pic-9]', userId: 5 });
    assert.deepEqual(peer.calls.at(-1), {
      action: 'get_message',
      params: { message_scene: 'group', peer_id: 8001, message_seq: seq },
    });
    assert.equal(await adapter.getMessage(SELF, seq, 8002), null, 'the same seq in another group is another message');
  });

  it('sends and recalls by group and message_seq; refuses what Milky cannot send', async () => {
    const sent = await adapter.sendGroupMessage(SELF, 8001, '[CQ:at,qq=5] 你好');
    assert.deepEqual(peer.sent.at(-1), {
      groupId: 8001,
      messageSeq: sent.messageId,
      segments: [
        { type: 'mention', data: { user_id: 5 } },
        { type: 'text', data: { text: ' 你好' } },
      ],
    });
    await adapter.deleteMessage(SELF, sent.messageId, 8001);
    assert.deepEqual(peer.calls.at(-1), {
      action: 'recall_group_message',
      params: { group_id: 8001, message_seq: sent.messageId },
    });
    const before = peer.calls.length;
    await assert.rejects(adapter.sendGroupMessage(SELF, 8001, '[CQ:json,data={}]'), UnsendableSegmentError);
    assert.equal(peer.calls.length, before, 'nothing half-sent');
  });

  it('knows its account and nickname; another account is not connected', async () => {
    assert.deepEqual(await adapter.getLoginInfo(SELF), { userId: SELF, nickname: '小米' });
    await assert.rejects(adapter.sendGroupMessage(SELF + 1, 8001, '你好'), NotConnectedError);
    assert.deepEqual(
      adapter.bots().map((bot) => [bot.selfId, bot.endpoint]),
      [[SELF, peer.base]],
      'shown without its token',
    );
  });

  it('a console disconnect closes the stream, which is dialled again', async () => {
    assert.equal(adapter.disconnect(SELF), 1);
    await waitUntil(
      'the account to come back',
      () => events.filter((event) => event === `connected ${SELF}`).length === 2,
    );
    assert.deepEqual(events, [`connected ${SELF}`, `disconnected ${SELF}`, `connected ${SELF}`]);
  });
});
