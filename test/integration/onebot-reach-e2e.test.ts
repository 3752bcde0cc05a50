/**
 * What users of real implementations hit (issue 30): the endpoint under the addresses guides
 * give, a NapCat face flood (each face with its ~410-character `raw`) learned and repeated, and
 * liveness: a peer that hangs (no pong, no heartbeats) and one whose heartbeats stop are marked
 * offline and closed. `startService` on SQLite, scripted peers over real WebSockets, the liveness
 * intervals shortened through the configuration.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { startService, type RunningService } from '../../src/app/service.ts';
import type { BotDisconnected } from '../../src/onebot/index.ts';
import { seededRandom, type RepeaterDecision } from '../../src/repeater/index.ts';
import { OneBotPeer, type PeerOptions, type PeerSegment } from '../fixtures/onebot-peer.ts';
import { freePort } from '../support/chorus-process.ts';

const WAIT_MS = 10_000;
/**
 * The configured liveness: a ping each second, answered within two (a pong late on a loaded
 * machine must not close the heartbeat test's peer, which only its heartbeats should judge).
 */
const PING_INTERVAL_SEC = 1;
const PONG_TIMEOUT_SEC = 2;

async function waitUntil(what: string, condition: () => boolean, timeoutMs = WAIT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A face as NapCat sends it in the array format: the id, and per delivery a `raw` FaceElement. */
function napcatFace(id: number): PeerSegment {
  return {
    type: 'face',
    data: {
      id: String(id),
      raw: {
        faceIndex: id,
        faceText: '/doge',
        faceType: 1,
        packId: null,
        stickerId: null,
        sourceType: null,
        stickerType: null,
        resultId: null,
        surpriseId: null,
        randomType: null,
        imageType: null,
        pokeType: null,
        spokeSummary: null,
        doubleHit: null,
        vaspokeId: null,
        vaspokeName: null,
        vaspokeMinver: null,
        pokeStrength: null,
        msgType: null,
        faceBubbleCount: null,
        oldVersionStr: null,
        pokeFlag: null,
        chainCount: null,
      },
      resultId: 'null',
      chainCount: 'null',
    },
  };
}

const silent = () => new Writable({ write: (_chunk, _encoding, done) => done() });

describe('OneBot reach: endpoint paths, face floods, liveness (startService, real sockets)', () => {
  let dir: string;
  let service: RunningService;
  let port: number;
  const decisions: RepeaterDecision[] = [];
  const disconnected: BotDisconnected[] = [];
  const peers: OneBotPeer[] = [];
  let second = Math.floor(Date.now() / 1000) - 100_000;

  const connect = async (selfId: number, options: Partial<PeerOptions> = {}): Promise<OneBotPeer> => {
    const peer = await OneBotPeer.connect({
      url: `ws://127.0.0.1:${port}/onebot/v11/ws`,
      selfId,
      firstMessageId: (selfId % 100) * 1_000_000 + 1,
      ...options,
    });
    peers.push(peer);
    await waitUntil(`bot ${selfId} connected`, () => bot(selfId) !== undefined);
    return peer;
  };
  const bot = (selfId: number) => service.chat.onebot.bots().find((status) => status.selfId === selfId);
  const decided = async (groupId: number, messageId: number): Promise<RepeaterDecision> => {
    const find = () => decisions.find((d) => d.groupId === groupId && d.messageId === messageId);
    await waitUntil(`the decision on message ${messageId}`, () => find() !== undefined);
    return find() as RepeaterDecision;
  };
  const say = (peer: OneBotPeer, groupId: number, userId: number, message: string | PeerSegment[]): number =>
    peer.groupMessage({ groupId, userId, message, time: ++second });

  /** Three rounds of trigger, answer, filler; waits until they are learned. */
  const teach = async (peer: OneBotPeer, groupId: number, trigger: string, answer: string | PeerSegment[]) => {
    const ids: number[] = [];
    for (let round = 0; round < 3; round++) {
      ids.push(say(peer, groupId, 2, trigger), say(peer, groupId, 3, answer), say(peer, groupId, 4, '嗯嗯嗯'));
    }
    for (const id of ids) await decided(groupId, id);
    const learning = service.corpus.runtime.learning;
    const worker = service.corpus.learnWorker;
    await waitUntil(
      'the learn worker to drain',
      () => learning.queue.size === 0 && worker.counters.handled + worker.counters.failed === learning.counters.queued,
    );
    service.store.corpus.invalidateSnapshots();
    service.corpus.runtime.composite.invalidateFindCache();
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'chorus-reach-e2e-'));
    port = await freePort();
    service = await startService({
      projectDir: dir,
      env: {
        CHORUS_PORT: String(port),
        CHORUS_CONSOLE_TOKEN: 'chorus-reach-e2e-token-not-secret',
        CHORUS_REPEATER_COOLDOWN_SEC: '0',
        CHORUS_REPEATER_REPLY_DELAY_SEC: '0-0',
        CHORUS_REPEATER_SPLIT_DELAY_SEC: '0-0',
        CHORUS_REPEATER_SPLIT_PROBABILITY: '0',
        CHORUS_REPEATER_BUNDLE_CACHE_SEC: '0',
        CHORUS_REPEATER_BUNDLE_NEGATIVE_CACHE_SEC: '0',
        CHORUS_REPEATER_ANSWER_THRESHOLD: '3',
        CHORUS_REPEATER_ANSWER_THRESHOLD_WEIGHTS: '0,0,1',
        CHORUS_CORPUS_REPLY_SNAPSHOT_SEC: '1',
        CHORUS_ONEBOT_PING_INTERVAL_SEC: String(PING_INTERVAL_SEC),
        CHORUS_ONEBOT_PONG_TIMEOUT_SEC: String(PONG_TIMEOUT_SEC),
        CHORUS_ONEBOT_HEARTBEAT_MISSED_MAX: '3',
      },
      logDestination: silent(),
      random: seededRandom(5),
      onDecision: (decision) => decisions.push(decision),
    });
    service.chat.onebot.on('bot_disconnected', (event) => disconnected.push(event));
  });
  after(async () => {
    for (const peer of peers) peer.terminate();
    await service.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('accepts /onebot/v11/ws, /onebot/v11/ws/ and /onebot/v11/, and still refuses other paths', async () => {
    const paths = ['/onebot/v11/ws', '/onebot/v11/ws/', '/onebot/v11/'];
    for (const [index, path] of paths.entries()) {
      const selfId = 20001 + index;
      const peer = await connect(selfId, { url: `ws://127.0.0.1:${port}${path}` });
      const id = say(peer, 301, 7, `你好 ${path}`);
      assert.equal((await decided(301, id)).selfId, selfId, `a message over ${path} arrives`);
      await peer.close();
      await waitUntil(`bot ${selfId} gone`, () => bot(selfId) === undefined);
    }
    const refused = await OneBotPeer.refusal({ url: `ws://127.0.0.1:${port}/onebot/v11/wsx`, selfId: 20009 });
    assert.equal(refused, 404);
  });

  it('learns a 40-face NapCat message as an answer and joins it as a repeat', async () => {
    const peer = await connect(20011);
    const G = 311;
    const faces = Array.from({ length: 40 }, (_, i) => napcatFace(100 + (i % 5)));
    const stored = faces.map((face) => `[CQ:face,id=${String(face.data.id)}]`).join('');
    assert.ok(JSON.stringify(faces).length > 16_384, 'the flood is over the old limit as sent');
    // Taught three times: "今天好热" is answered with the flood.
    await teach(peer, G, '今天好热', faces);
    assert.equal(service.chat.onebot.dropped().oversized, 0, 'no face flood was dropped');

    const reply = await decided(G, say(peer, G, 5, '今天好热'));
    assert.deepEqual(
      [reply.outcome, reply.texts],
      ['replied', [stored]],
      `the learned flood is the answer: ${JSON.stringify(reply)}`,
    );
    assert.deepEqual(
      (await peer.nextSent(1)).map((sent) => sent.message),
      [stored],
    );

    // Elsewhere, three members send the flood: the bot, which has spoken there, joins once.
    const G2 = 312;
    await teach(peer, G2, '早上好', '你也早啊');
    assert.equal((await decided(G2, say(peer, G2, 5, '早上好'))).reason, 'threshold');
    await peer.nextSent(1);
    for (const userId of [6, 7]) assert.notEqual((await decided(G2, say(peer, G2, userId, faces))).outcome, 'replied');
    const joined = await decided(G2, say(peer, G2, 8, faces));
    assert.deepEqual([joined.reason, joined.texts], ['repeat', [stored]]);
    assert.deepEqual(
      (await peer.nextSent(1)).map((sent) => sent.message),
      [stored],
    );
  });

  it('marks a peer without heartbeats that stops answering pings offline, and closes it', async () => {
    const selfId = 20021;
    const peer = await connect(selfId);
    await waitUntil('a pong from the peer', () => bot(selfId)?.lastPongAt != null);
    assert.deepEqual([bot(selfId)?.judgedBy, bot(selfId)?.online], ['ping', true]);
    peer.freeze();
    const frozenAt = Date.now();
    await waitUntil('the frozen peer to be closed', () => disconnected.some((event) => event.selfId === selfId));
    const elapsedMs = Date.now() - frozenAt;
    const event = disconnected.find((e) => e.selfId === selfId);
    assert.equal(event?.code, 4003);
    assert.match(event?.reason ?? '', /no answer to a WebSocket ping/);
    assert.equal(bot(selfId), undefined, 'no longer listed as connected');
    // The next ping goes out within an interval and is given the timeout: within three intervals
    // (on a loaded machine timers fire late, hence one more interval of slack).
    assert.ok(
      elapsedMs < (PING_INTERVAL_SEC + PONG_TIMEOUT_SEC + 1) * 1000,
      `closed ${elapsedMs} ms after the peer froze`,
    );
  });

  it('marks a peer whose heartbeats stop offline within three of its intervals, and closes it', async () => {
    const selfId = 20031;
    const intervalMs = 1000;
    const peer = await connect(selfId);
    peer.startHeartbeats(intervalMs);
    // Past three intervals with heartbeats arriving: the deadline moves with each of them.
    // framesIn: the lifecycle event, then the heartbeats.
    await waitUntil('five heartbeats', () => (bot(selfId)?.framesIn ?? 0) >= 1 + 5, 4 * WAIT_MS);
    assert.equal(bot(selfId)?.judgedBy, 'heartbeat');
    assert.ok(!disconnected.some((event) => event.selfId === selfId), 'alive while heartbeats arrive');
    // Pings are still answered: only the heartbeat deadline can close it.
    peer.stopHeartbeats();
    const lastBeatAt = bot(selfId)?.lastHeartbeatAt ?? Date.now();
    await waitUntil('the silent peer to be closed', () => disconnected.some((event) => event.selfId === selfId));
    const elapsedMs = Date.now() - lastBeatAt;
    const event = disconnected.find((e) => e.selfId === selfId);
    assert.equal(event?.code, 4003);
    assert.equal(event?.reason, `no heartbeat for 3 intervals of ${intervalMs} ms`);
    assert.ok(elapsedMs >= 3 * intervalMs - 50, `closed ${elapsedMs} ms after the last heartbeat, before the deadline`);
    assert.ok(elapsedMs < (3 + 1) * intervalMs, `closed ${elapsedMs} ms after the last heartbeat`);
    assert.equal(bot(selfId), undefined, 'no longer listed as connected');
  });
});
