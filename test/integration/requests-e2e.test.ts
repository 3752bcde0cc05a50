/**
 * The friend and group request inbox, end to end: a scripted OneBot account over a real WebSocket
 * sends request events; the console over real HTTP lists them, approves and rejects one at a time
 * and in a batch (one item failing at the account); the account's auto-accept applies to new
 * requests; a restart keeps the inbox.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { it } from 'node:test';
import { startService, type RunningService } from '../../src/app/service.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { freePort } from '../support/chorus-process.ts';
import { sleep } from '../support/controls-service.ts';

const BOT = 64001;
const WRITE = 'requests-write-token';

interface Item {
  self_id: number;
  kind: string;
  user_id: number;
  group_id: number | null;
  comment: string;
  status: string;
  handled_by: string;
}

it(
  'requests are kept, listed, approved and rejected, in batches too, and survive a restart',
  { timeout: 90_000 },
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'chorus-requests-'));
    const port = await freePort();
    const env = {
      CHORUS_PORT: String(port),
      CHORUS_DATA_DIR: dir,
      CHORUS_CONSOLE_TOKEN: 'requests-read-token',
      CHORUS_CONSOLE_WRITE_TOKEN: WRITE,
    };
    const start = () =>
      startService({
        projectDir: dir,
        env,
        logDestination: new Writable({ write: (_chunk, _encoding, done) => done() }),
      });
    const running: { service: RunningService; peer: OneBotPeer } = {
      service: await start(),
      peer: await OneBotPeer.connect({ url: `ws://127.0.0.1:${port}/onebot/v11/ws`, selfId: BOT }),
    };
    t.after(async () => {
      await running.peer.close().catch(() => undefined);
      await running.service.stop().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    });
    const api = async (
      method: string,
      path: string,
      body?: unknown,
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies checked field by field
    ): Promise<{ status: number; data: any; detail?: string }> => {
      const response = await fetch(`http://127.0.0.1:${port}/chorus/api${path}`, {
        method,
        headers: { 'x-chorus-token': WRITE, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const json = (await response.json()) as { data?: unknown; detail?: string };
      return { status: response.status, data: json.data, ...(json.detail ? { detail: json.detail } : {}) };
    };
    const overview = async () => (await api('GET', '/request-overview')).data;
    const pendingCount = async () => {
      const bots = (await overview()).bots as { pending_friend_requests: Item[]; pending_group_requests: Item[] }[];
      return bots.reduce((n, bot) => n + bot.pending_friend_requests.length + bot.pending_group_requests.length, 0);
    };
    const untilPending = async (count: number) => {
      const deadline = Date.now() + 5_000;
      while ((await pendingCount()) !== count) {
        if (Date.now() > deadline) throw new Error(`never ${count} pending: ${JSON.stringify(await overview())}`);
        await sleep(20);
      }
    };
    const actions = (name: string) => running.peer.actions.filter((a) => a.action === name);

    // Events arrive and show in the inbox.
    const peer = running.peer;
    const f1 = peer.request({ kind: 'friend', userId: 1001, comment: '加个好友' });
    const f2 = peer.request({ kind: 'friend', userId: 1002 });
    const f3 = peer.request({ kind: 'friend', userId: 1003 });
    const g1 = peer.request({ kind: 'group', userId: 1004, groupId: 9101, subType: 'invite' });
    const g2 = peer.request({ kind: 'group', userId: 1005, groupId: 9102, subType: 'add' });
    await untilPending(5);
    const first = await overview();
    assert.equal(first.bots.length, 1);
    assert.equal(first.bots[0].online, true);
    assert.deepEqual(
      first.bots[0].pending_friend_requests.map((r: Item) => [r.user_id, r.comment, r.status]),
      [
        [1001, '加个好友', 'pending'],
        [1002, '', 'pending'],
        [1003, '', 'pending'],
      ],
    );
    const friends = (await api('GET', `/friend-requests?self_id=${BOT}`)).data;
    assert.equal(friends.bots[0].pending_friend_requests.length, 3);
    assert.equal('pending_group_requests' in friends.bots[0], false);

    // Approve one friend request, reject one group request: the right action with the right flag.
    const approved = await api('POST', '/request-actions', { self_id: BOT, kind: 'friend', user_id: 1001 });
    assert.equal(approved.status, 200, approved.detail);
    assert.deepEqual(actions('set_friend_add_request').at(-1)?.params, { flag: f1, approve: true });
    const rejected = await api('POST', '/request-actions', {
      self_id: BOT,
      kind: 'group',
      group_id: 9101,
      action: 'reject',
    });
    assert.equal(rejected.status, 200, rejected.detail);
    assert.deepEqual(actions('set_group_add_request').at(-1)?.params, {
      flag: g1,
      sub_type: 'invite',
      type: 'invite',
      approve: false,
    });
    // Nothing pending any more for those: 404; a missing id: 400.
    assert.equal((await api('POST', '/request-actions', { self_id: BOT, kind: 'friend', user_id: 1001 })).status, 404);
    const missing = await api('POST', '/request-actions', { self_id: BOT, kind: 'group' });
    assert.equal(missing.status, 400);
    assert.match(missing.detail ?? '', /group_id/);
    assert.equal((await api('POST', '/request-actions/batch', { action: 'approve' })).status, 400);

    // A batch where the account refuses one item: per-item results, the rest handled.
    peer.failAction('set_friend_add_request', { times: 1, message: 'request expired on QQ' });
    const batch = await api('POST', '/request-actions/batch', {
      action: 'approve',
      friends: [
        { self_id: BOT, user_id: 1002 },
        { self_id: BOT, user_id: 1003 },
        { self_id: BOT, user_id: 4242 },
      ],
      groups: [{ self_id: BOT, group_id: 9102 }],
    });
    assert.equal(batch.status, 200, batch.detail);
    assert.deepEqual([batch.data.handled, batch.data.failed], [2, 2]);
    assert.deepEqual(
      batch.data.results.map((r: { user_id: number | null; group_id: number | null; ok: boolean }) => [
        r.user_id,
        r.group_id,
        r.ok,
      ]),
      [
        [1002, null, false],
        [1003, null, true],
        [4242, null, false],
        [null, 9102, true],
      ],
    );
    assert.match(batch.data.results[0].error, /request expired on QQ/);
    assert.match(batch.data.results[2].error, /nothing pending/);
    assert.deepEqual(actions('set_friend_add_request').at(-1)?.params, { flag: f3, approve: true });
    assert.equal(actions('set_group_add_request').at(-1)?.params.flag, g2);
    await untilPending(1); // 1002 stays pending: its approval failed

    // Auto-accept applies to new requests.
    const saved = await api('PUT', `/bot-configs/${BOT}`, { auto_accept_friend: true });
    assert.equal(saved.status, 200);
    const auto = peer.request({ kind: 'friend', userId: 1006 });
    const autoAction = await peer.waitForAction((a) => a.action === 'set_friend_add_request' && a.params.flag === auto);
    assert.equal(autoAction.params.approve, true);
    const deadline = Date.now() + 5_000;
    let handled: Item[] = [];
    while (Date.now() < deadline && !handled.some((r) => r.user_id === 1006)) {
      handled = (await overview()).handled;
      await sleep(20);
    }
    assert.deepEqual(
      handled.map((r) => [r.user_id, r.status, r.handled_by]).sort((a, b) => Number(a[0]) - Number(b[0])),
      [
        [1001, 'approved', 'console'],
        [1003, 'approved', 'console'],
        [1004, 'rejected', 'console'],
        [1005, 'approved', 'console'],
        [1006, 'approved', 'auto'],
      ],
    );
    await untilPending(1);

    // A restart keeps the inbox: the pending request can still be answered.
    await running.peer.close();
    await running.service.stop();
    running.service = await start();
    running.peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${port}/onebot/v11/ws`, selfId: BOT });
    await untilPending(1);
    assert.equal((await overview()).handled.length, 5);
    const after = await api('POST', '/request-actions', { self_id: BOT, kind: 'friend', user_id: 1002 });
    assert.equal(after.status, 200, after.detail);
    assert.deepEqual(running.peer.actions.filter((a) => a.action === 'set_friend_add_request').at(-1)?.params, {
      flag: f2,
      approve: true,
    });
    await untilPending(0);
  },
);
