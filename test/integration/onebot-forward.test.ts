/**
 * Forward WebSocket end to end: a stand-in for SnowLuma's WebSocket server on 127.0.0.1 (random
 * access token, lifecycle connect event, heartbeats, actions answered with their echo;
 * test/fixtures/forward-ws-server.ts) is dialled by a running Chorus (`CHORUS_ONEBOT_CONNECT`),
 * over real sockets. The bot learns a taught pair and answers it; the stand-in restarts on the same
 * port and Chorus dials again and answers again; a wrong token shows as the target's error state;
 * the console lists the target with its direction and state, and adds and removes targets (write
 * level; read level 403); an account configured twice backs off instead of fighting. The token
 * appears neither in the console nor in the log.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { it } from 'node:test';
import { startService } from '../../src/app/service.ts';
import type { RepeaterDecision } from '../../src/repeater/index.ts';
import { ForwardWsServer } from '../fixtures/forward-ws-server.ts';
import type { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { freePort } from '../support/chorus-process.ts';

const Q = '周末一起去爬山吗';
const A = '好呀带上零食';
const [G1, G2, G3] = [8101, 8102, 8103];
const READ = 'forward-read-token';
const WRITE = 'forward-write-token';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(
  what: string,
  find: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

interface Target {
  id: string;
  url: string;
  direction: string;
  state: string;
  self_id: number | null;
  failures: number;
  next_attempt_at: number | null;
  last_error: { code: string; params: Record<string, string | number>; at: number } | null;
}

it(
  'dials a SnowLuma-style forward WebSocket server, learns and answers, survives its restart',
  { timeout: 240_000 },
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'chorus-forward-'));
    const token = randomBytes(16).toString('hex');
    const stand = await ForwardWsServer.start({ selfId: 60001, accessToken: token, heartbeatMs: 1000 });
    const port = await freePort();
    const decisions: RepeaterDecision[] = [];
    let learned = 0;
    let logged = '';
    const service = await startService({
      projectDir: dir,
      env: {
        CHORUS_PORT: String(port),
        CHORUS_CONSOLE_TOKEN: READ,
        CHORUS_CONSOLE_WRITE_TOKEN: WRITE,
        CHORUS_ONEBOT_CONNECT: stand.url(token),
        // Teaching alternates Q and A, so A -> Q is learned too; on a loaded machine the bot could
        // answer Q to an A first, and the group's cool-down then held every later ask of Q.
        CHORUS_REPEATER_COOLDOWN_SEC: '0',
      },
      logDestination: new Writable({
        write: (chunk, _encoding, done) => {
          logged += String(chunk);
          done();
        },
      }),
      onDecision: (decision) => decisions.push(decision),
      onLearned: () => learned++,
    });
    const other = await ForwardWsServer.start({ selfId: 60002, accessToken: randomBytes(16).toString('hex') });
    t.after(async () => {
      await service.stop();
      await stand.stop();
      await other.stop();
      await rm(dir, { recursive: true, force: true });
    });
    const api = async (method: string, path: string, auth = READ, body?: unknown) => {
      const response = await fetch(`http://127.0.0.1:${port}/chorus/api${path}`, {
        method,
        headers: { 'x-chorus-token': auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, text, data: (JSON.parse(text) as { data?: unknown }).data };
    };
    const targets = async () => (await api('GET', '/onebot/forward-targets')).data as Target[];
    const targetFor = (port: number) => async () =>
      (await targets()).find((target) => target.url.startsWith(`ws://127.0.0.1:${port}`));
    const connected = (selfId: number) => async () => {
      const found = (await targets()).find((target) => target.self_id === selfId && target.state === 'connected');
      return found;
    };

    // Dialled with the token as a Bearer header (and in the query, as given).
    await stand.peer(0);
    assert.equal(stand.authorizations[0], `Bearer ${token}`);
    const first = await waitFor('the target connected', connected(60001));
    assert.equal(first.direction, 'forward');
    assert.ok(!first.url.includes(token), 'the console never shows the token');
    assert.match(first.url, /access_token=\*\*\*/);
    const bots = (await api('GET', '/onebot/bots')).data as { self_id: number; directions: string[] }[];
    assert.deepEqual(
      bots.map((bot) => [bot.self_id, bot.directions]),
      [[60001, ['forward']]],
    );

    let second = Math.floor(Date.now() / 1000) - 10_000;
    const say = (peer: OneBotPeer, groupId: number, userId: number, text: string) =>
      peer.groupMessage({ groupId, userId, text, time: ++second });
    const decisionOn = (groupId: number, messageId: number) =>
      waitFor(`the decision on ${messageId}`, () =>
        decisions.find((d) => d.groupId === groupId && d.messageId === messageId),
      );
    const teach = async (peer: OneBotPeer, groupId: number) => {
      for (let round = 0; round < 5; round++) {
        await decisionOn(groupId, say(peer, groupId, 11, Q));
        await decisionOn(groupId, say(peer, groupId, 12, A));
      }
      const queued = decisions.filter((d) => d.learn === 'queued').length;
      await waitFor(`${queued} lessons written`, () => (learned >= queued ? true : undefined));
    };

    // Learns over the dialled socket and answers through it.
    const peer = await stand.peer(0);
    await teach(peer, G1);
    // The answer may come while teaching (the pair is learned by then) or at the next asks.
    const repliedA = (groupId: number) =>
      decisions.some((d) => d.groupId === groupId && d.outcome === 'replied' && d.texts.includes(A));
    for (let ask = 0; ask < 3 && !repliedA(G1); ask++) await decisionOn(G1, say(peer, G1, 13 + ask, Q));
    assert.ok(
      repliedA(G1),
      `decided ${decisions
        .filter((d) => d.groupId === G1)
        .map((d) => d.reason)
        .join(', ')}`,
    );
    await waitFor('A sent in G1', () => peer.sent.find((sent) => sent.groupId === G1 && sent.message === A));

    // The implementation restarts: the socket drops, the port is closed for a moment, then open again.
    await stand.restart();
    const again = await stand.peer(1);
    await waitFor('connected again', connected(60001));
    await teach(again, G2);
    // Two groups agree now: a third group gets the answer, sent over the new socket.
    const inG3 = await decisionOn(G3, say(again, G3, 31, Q));
    assert.equal(inG3.outcome, 'replied', `decided ${inG3.reason}`);
    assert.deepEqual(inG3.texts, [A]);
    await waitFor('the reply in G3', () => again.sent.find((sent) => sent.groupId === G3 && sent.message === A));

    // Console: adding a target is write level; a wrong token is an error state, not a crash.
    const wrong = other.url('not-the-token');
    assert.equal((await api('POST', '/onebot/forward-targets', READ, { url: wrong })).status, 403);
    const bad = await api('POST', '/onebot/forward-targets', WRITE, { url: 'http://127.0.0.1:1' });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /url: expected a ws:\/\/ or wss:\/\/ address/);
    const added = await api('POST', '/onebot/forward-targets', WRITE, { url: wrong });
    assert.equal(added.status, 200, added.text);
    assert.equal((await api('POST', '/onebot/forward-targets', WRITE, { url: wrong })).status, 409, 'no duplicate');
    await other.refusals(1);
    const refused = await waitFor('the wrong token shown as an error', async () => {
      const target = await targetFor(other.port)();
      return target?.state === 'waiting' && target.last_error?.code === 'unauthorized' ? target : undefined;
    });
    assert.equal(refused.last_error?.params.status, 401);
    assert.ok(refused.next_attempt_at !== null && refused.next_attempt_at > Date.now() - 1000);
    assert.equal(refused.self_id, null);
    // Stored like any console-set setting.
    const stored = JSON.parse(await readFile(join(dir, 'data', 'console-settings.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    assert.deepEqual(stored.CHORUS_ONEBOT_CONNECT, [new URL(stand.url(token)).href, new URL(wrong).href]);
    // The first target kept its connection through the save.
    assert.equal((await connected(60001)())?.state, 'connected');

    // Removing: write level, 404 for an unknown id; the target is gone from the list.
    assert.equal((await api('DELETE', `/onebot/forward-targets/${refused.id}`, READ)).status, 403);
    const removed = await api('DELETE', `/onebot/forward-targets/${refused.id}`, WRITE);
    assert.equal(removed.status, 200, removed.text);
    assert.equal((removed.data as { targets: Target[] }).targets.length, 1);
    assert.equal((await api('DELETE', `/onebot/forward-targets/${refused.id}`, WRITE)).status, 404);
    assert.equal(await targetFor(other.port)(), undefined);

    // The same account configured twice: the two connections replace each other, and each backs
    // off further every time instead of taking turns once a second.
    const twice = `${stand.url(token)}&again=1`;
    assert.equal((await api('POST', '/onebot/forward-targets', WRITE, { url: twice })).status, 200);
    // The third replacement in a row waits 4 s ± 20 % (not 1 s): the back-off grows.
    await waitFor(
      'the replacements backing off',
      async () =>
        (await targets()).find(
          (each) =>
            each.state === 'waiting' &&
            each.last_error?.code === 'replaced' &&
            each.next_attempt_at !== null &&
            each.next_attempt_at - each.last_error.at >= 3_000,
        ),
      90_000,
    );
    const duplicate = (await targets()).find((target) => target.url.includes('again=1'));
    assert.ok(duplicate);
    assert.equal((await api('DELETE', `/onebot/forward-targets/${duplicate.id}`, WRITE)).status, 200);
    await waitFor('one connection of the account again', connected(60001), 90_000);

    // The token was never written to the log (its address is logged masked).
    assert.ok(!logged.includes(token), 'the token is not logged');
    assert.ok(!logged.includes('not-the-token'), 'nor the wrong one');
    assert.match(logged, /OneBot forward WebSocket connected/);
  },
);
