/**
 * Friend and group requests over Milky, end to end: `startService` on SQLite dials a scripted
 * Milky implementation (test/fixtures/milky-peer.ts) that sends a friend request and a group
 * invitation. Both show in the console's request inbox (real HTTP); approving one makes the
 * implementation receive `accept_friend_request` with the initiator's uid, rejecting the other
 * `reject_group_invitation` with its group and invitation_seq; with the account's
 * auto_accept_friend on, a new friend request is accepted without the console.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { it } from 'node:test';
import { startService } from '../../src/app/service.ts';
import { MilkyPeer, waitUntil } from '../fixtures/milky-peer.ts';
import { freePort } from '../support/chorus-process.ts';

const SELF = 20011;
const WRITE = 'milky-requests-write-token';

interface Item {
  self_id: number;
  kind: string;
  sub_type: string;
  user_id: number;
  group_id: number | null;
  comment: string;
  status: string;
  handled_by: string;
}

it('a Milky account: requests listed, approved, rejected and auto-accepted', { timeout: 60_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-milky-requests-'));
  const token = randomBytes(12).toString('hex');
  const peer = await new MilkyPeer({ selfId: SELF, token }).start();
  const port = await freePort();
  const service = await startService({
    projectDir: dir,
    env: {
      CHORUS_PORT: String(port),
      CHORUS_CONSOLE_TOKEN: 'milky-requests-read-token',
      CHORUS_CONSOLE_WRITE_TOKEN: WRITE,
      CHORUS_MILKY_CONNECT: `${peer.base}?access_token=${token}`,
    },
    logDestination: new Writable({ write: (_chunk, _encoding, done) => done() }),
  });
  t.after(async () => {
    await service.stop().catch(() => undefined);
    await peer.stop().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });
  await waitUntil('the Milky account to connect', () =>
    service.chat.platforms.bots().some((bot) => bot.selfId === SELF && bot.protocol === 'milky'),
  );
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
  const pending = async (): Promise<{ friends: Item[]; groups: Item[]; online: boolean }> => {
    const bot = ((await api('GET', '/request-overview')).data.bots as Record<string, unknown>[]).find(
      (candidate) => candidate.self_id === SELF,
    );
    return {
      friends: (bot?.pending_friend_requests as Item[] | undefined) ?? [],
      groups: (bot?.pending_group_requests as Item[] | undefined) ?? [],
      online: bot?.online === true,
    };
  };
  const untilPending = async (count: number) => {
    let seen = { friends: [] as Item[], groups: [] as Item[], online: false };
    const deadline = Date.now() + 10_000;
    while (((seen = await pending()), seen.friends.length + seen.groups.length !== count)) {
      if (Date.now() > deadline) throw new Error(`never ${count} pending: ${JSON.stringify(seen)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return seen;
  };

  // A friend request and an invitation into a group arrive and show in the inbox.
  peer.friendRequest({ initiatorId: 30001, initiatorUid: 'u_friend_30001', comment: '加个好友' });
  peer.groupInvitation({ groupId: 88001, invitationSeq: 7, initiatorId: 30002 });
  const shown = await untilPending(2);
  assert.equal(shown.online, true);
  assert.deepEqual(
    shown.friends.map((r) => [r.kind, r.user_id, r.comment, r.status]),
    [['friend', 30001, '加个好友', 'pending']],
  );
  assert.deepEqual(
    shown.groups.map((r) => [r.kind, r.sub_type, r.user_id, r.group_id, r.status]),
    [['group', 'invite', 30002, 88001, 'pending']],
  );

  // Approving the friend request: Milky's accept_friend_request, naming the initiator's uid.
  const approved = await api('POST', '/request-actions', { self_id: SELF, kind: 'friend', user_id: 30001 });
  assert.equal(approved.status, 200, approved.detail);
  assert.deepEqual((await peer.callTo('accept_friend_request')).params, {
    initiator_uid: 'u_friend_30001',
    is_filtered: false,
  });
  // Rejecting the invitation: reject_group_invitation with its group and invitation_seq.
  const rejected = await api('POST', '/request-actions', {
    self_id: SELF,
    kind: 'group',
    group_id: 88001,
    action: 'reject',
  });
  assert.equal(rejected.status, 200, rejected.detail);
  assert.deepEqual((await peer.callTo('reject_group_invitation')).params, { group_id: 88001, invitation_seq: 7 });
  assert.equal(peer.calls.filter((call) => /set_.*_request/.test(call.action)).length, 0, 'no OneBot action');
  await untilPending(0);

  // auto_accept_friend on: the next friend request is accepted without the console.
  const saved = await api('PUT', `/bot-configs/${SELF}`, { auto_accept_friend: true });
  assert.equal(saved.status, 200, saved.detail);
  peer.friendRequest({ initiatorId: 30003, initiatorUid: 'u_friend_30003' });
  await waitUntil('the automatic accept', () =>
    peer.calls.some(
      (call) => call.action === 'accept_friend_request' && call.params.initiator_uid === 'u_friend_30003',
    ),
  );
  const deadline = Date.now() + 5_000;
  let handled: Item[] = [];
  while (!handled.some((r) => r.user_id === 30003 && r.handled_by === 'auto')) {
    if (Date.now() > deadline) throw new Error(`never handled automatically: ${JSON.stringify(handled)}`);
    handled = (await api('GET', `/request-overview?self_id=${SELF}`)).data.handled ?? [];
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(service.chat.requests.counters.autoApproved, 1);
  assert.equal(service.chat.requests.counters.approved, 1);
  assert.equal(service.chat.requests.counters.rejected, 1);
});
