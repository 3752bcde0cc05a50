/**
 * Chorus over Milky end to end: `startService` on SQLite dials a scripted Milky implementation
 * (test/fixtures/milky-peer.ts: HTTP API + WebSocket events on 127.0.0.1, a random token) and
 * learns and answers the conversation the OneBot end-to-end test teaches
 * (test/integration/chorus-chat-e2e.test.ts): replies at the threshold, QQ faces and pictures
 * coming back as themselves, a "不可以" quoting the reply and an admin's recall banning it. A
 * malformed event is logged and dropped; an implementation with the wrong token is refused and
 * never connects; the stand-in going away and coming back is dialled again.
 *
 * Nothing sleeps: each step waits, with a deadline, for a decision, the learn worker, a sent
 * message or a connection.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { startService, type RunningService } from '../../src/app/service.ts';
import { BAN_WORD, seededRandom, type RepeaterDecision } from '../../src/repeater/index.ts';
import { MilkyPeer, waitUntil, type MilkySegmentOut } from '../fixtures/milky-peer.ts';
import { freePort } from '../support/chorus-process.ts';

const SELF = 20001;
const STRANGER = 20002;
const FILLER = '嗯嗯嗯';
const WRITE = 'chorus-milky-write-token-not-secret';
const BAN_ACK = '好的，这句不说了';
const text = (value: string): MilkySegmentOut[] => [{ type: 'text', data: { text: value } }];

describe('Chorus over Milky (a stand-in implementation over real sockets, SQLite)', () => {
  const token = randomBytes(12).toString('hex');
  const decisions: RepeaterDecision[] = [];
  let logs = '';
  let dir: string;
  let peer: MilkyPeer;
  let wrongToken: MilkyPeer;
  let service: RunningService;
  let port: number;
  let second = Math.floor(Date.now() / 1000) - 100_000;

  const connected = (selfId: number) =>
    service.chat.platforms.bots().some((bot) => bot.selfId === selfId && bot.protocol === 'milky');
  const decided = async (groupId: number, seq: number): Promise<RepeaterDecision> => {
    const find = () => decisions.find((d) => d.groupId === groupId && d.messageId === seq);
    await waitUntil(`the decision on message ${seq} in group ${groupId}`, () => find() !== undefined);
    return find()!;
  };
  const say = (groupId: number, userId: number, segments: MilkySegmentOut[]): number =>
    peer.groupMessage({ groupId, userId, segments, time: ++second });
  const ask = (groupId: number, segments: MilkySegmentOut[], userId = 9) =>
    decided(groupId, say(groupId, userId, segments));
  /** Waits for the decisions on `seqs` in `groupId`, then for the learn worker. */
  const learned = async (groupId: number, seqs: readonly number[]) => {
    for (const seq of seqs) await decided(groupId, seq);
    const { learning } = service.corpus.runtime;
    const worker = service.corpus.learnWorker;
    await waitUntil(
      'the learn worker to drain',
      () => learning.queue.size === 0 && worker.counters.handled + worker.counters.failed === learning.counters.queued,
    );
    assert.equal(worker.counters.failed, 0, 'no learn job failed');
    service.store.corpus.invalidateSnapshots();
    service.corpus.runtime.composite.invalidateFindCache();
  };
  const teach = async (
    groupId: number,
    trigger: MilkySegmentOut[],
    answer: () => MilkySegmentOut[],
    rounds: number,
  ) => {
    const seqs: number[] = [];
    for (let round = 0; round < rounds; round++) {
      seqs.push(say(groupId, 2, trigger), say(groupId, 3, answer()), say(groupId, 4, text(FILLER)));
    }
    await learned(groupId, seqs);
    const answered = decisions.filter(
      (d) => d.groupId === groupId && seqs.includes(d.messageId) && d.outcome !== 'skipped',
    );
    assert.deepEqual(answered, [], 'nothing said while teaching is answered');
  };
  const sentTo = (groupId: number) => peer.sent.filter((sent) => sent.groupId === groupId);

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'chorus-milky-'));
    peer = await new MilkyPeer({ selfId: SELF, token }).start();
    wrongToken = await new MilkyPeer({ selfId: STRANGER, token: `${token}-other` }).start();
    port = await freePort();
    service = await startService({
      projectDir: dir,
      env: {
        CHORUS_PORT: String(port),
        CHORUS_CONSOLE_TOKEN: 'chorus-milky-token-not-secret',
        CHORUS_CONSOLE_WRITE_TOKEN: WRITE,
        CHORUS_MILKY_CONNECT: `${peer.base}?access_token=${token},${wrongToken.base}/?access_token=${token}`,
        CHORUS_REPEATER_COOLDOWN_SEC: '0',
        CHORUS_REPEATER_REPLY_DELAY_SEC: '0-0',
        CHORUS_REPEATER_SPLIT_DELAY_SEC: '0-0',
        CHORUS_REPEATER_SPLIT_PROBABILITY: '0',
        CHORUS_REPEATER_BUNDLE_CACHE_SEC: '0',
        CHORUS_REPEATER_BUNDLE_NEGATIVE_CACHE_SEC: '0',
        CHORUS_REPEATER_ANSWER_THRESHOLD: '3',
        CHORUS_REPEATER_ANSWER_THRESHOLD_WEIGHTS: '0,0,1',
        CHORUS_REPEATER_BAN_ACK: BAN_ACK,
        CHORUS_CORPUS_REPLY_SNAPSHOT_SEC: '1',
        CHORUS_LOG_LEVEL: 'debug',
      },
      logDestination: new Writable({
        write: (chunk, _encoding, done) => {
          logs += String(chunk);
          done();
        },
      }),
      random: seededRandom(5),
      onDecision: (decision) => decisions.push(decision),
    });
    await waitUntil('the Milky account to connect', () => connected(SELF));
  });
  after(async () => {
    await service.stop();
    await peer.stop();
    await wrongToken.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('learns a taught pair and answers it at the threshold, not before', async () => {
    const G = 121;
    await teach(G, text('早上好'), () => text('你也早啊'), 2);
    const early = await ask(G, text('早上好'));
    assert.deepEqual([early.outcome, early.reason], ['skipped', 'no-candidate'], 'count 2 < 3');
    await teach(G, text('早上好'), () => text('你也早啊'), 1);
    const reply = await ask(G, text('早上好'));
    assert.deepEqual([reply.outcome, reply.reason, reply.texts], ['replied', 'threshold', ['你也早啊']]);
    await waitUntil('the reply', () => sentTo(G).length === 1);
    assert.deepEqual(sentTo(G)[0]?.segments, text('你也早啊'));
    const corpus = service.store.corpus;
    const context = await corpus.findByKeywords(reply.keywords);
    assert.deepEqual(context?.answers[0]?.messages.slice(0, 1), ['你也早啊'], 'learned as the same text OneBot would');
  });

  it('sends a learned face and picture back as themselves (a picture by its resource id, resolved again)', async () => {
    const G = 131;
    let sighting = 0;
    // Each sighting of the picture carries a new temp_url (its rotating key): still one answer.
    const picture = (): MilkySegmentOut[] => [
      {
        type: 'image',
        data: {
          resource_id: 'res-cat-01',
          temp_url: `https://multimedia.example/download?rkey=${++sighting}`,
          width: 100,
          height: 80,
          summary: '[图片]',
          sub_type: 'normal',
        },
      },
    ];
    await teach(G, text('来张猫猫图'), picture, 3);
    const reply = await ask(G, text('来张猫猫图'));
    assert.deepEqual([reply.reason, reply.texts], ['threshold', ['[CQ:image,file=res-cat-01]']]);
    await waitUntil('the picture', () => sentTo(G).length === 1);
    assert.deepEqual(sentTo(G)[0]?.segments, [
      {
        type: 'image',
        data: { uri: 'https://multimedia.example/download?rkey=fresh&id=res-cat-01', sub_type: 'normal' },
      },
    ]);

    const H = 132;
    const face = (): MilkySegmentOut[] => [
      { type: 'face', data: { face_id: '178', is_large: false } },
      { type: 'mention', data: { user_id: 4 } },
    ];
    await teach(H, text('今天好热啊'), face, 3);
    const faceReply = await ask(H, text('今天好热啊'));
    assert.deepEqual(faceReply.texts, ['[CQ:face,id=178][CQ:at,qq=4]']);
    await waitUntil('the face', () => sentTo(H).length === 1);
    assert.deepEqual(sentTo(H)[0]?.segments, [
      { type: 'face', data: { face_id: '178' } },
      { type: 'mention', data: { user_id: 4 } },
    ]);
  });

  it('bans by "不可以" quoting the reply (recalled by message_seq) and by an admin recall', async () => {
    const G = 151;
    const ANSWER = '我也困';
    await teach(G, text('好困啊'), () => text(ANSWER), 3);
    assert.deepEqual((await ask(G, text('好困啊'))).texts, [ANSWER]);
    await waitUntil('the reply', () => sentTo(G).length === 1);
    const reply = sentTo(G)[0]!;

    const ban = await ask(G, [{ type: 'reply', data: { message_seq: reply.messageSeq } }, ...text(BAN_WORD)], 7);
    assert.deepEqual([ban.outcome, ban.reason], ['banned', 'ban']);
    await waitUntil('the recall of the banned reply', () =>
      peer.calls.some(
        (call) =>
          call.action === 'recall_group_message' &&
          call.params.group_id === G &&
          call.params.message_seq === reply.messageSeq,
      ),
    );
    await waitUntil('the acknowledgement', () => sentTo(G).length === 2);
    assert.deepEqual(sentTo(G)[1]?.segments, text(BAN_ACK));

    assert.equal(service.chat.repeater.bans.lists(G).reserve.length, 1, 'first strike: after that phrase');

    // In another group, an admin recalls the bot's reply (the recall names it by message_seq).
    const H = 152;
    await teach(H, text('好困啊'), () => text(ANSWER), 3);
    assert.deepEqual((await ask(H, text('好困啊'))).texts, [ANSWER]);
    await waitUntil('the reply', () => sentTo(H).length === 1);
    peer.event('message_recall', {
      message_scene: 'group',
      peer_id: H,
      message_seq: sentTo(H)[0]!.messageSeq,
      sender_id: SELF,
      operator_id: 900,
      display_suffix: '',
    });
    await waitUntil('the acknowledgement', () => sentTo(H).length === 2);
    assert.deepEqual(sentTo(H)[1]?.segments, text(BAN_ACK));
    assert.equal(service.chat.repeater.bans.lists(H).reserve.length, 1, 'banned by the recall');
  });

  it('logs and drops a malformed event, then goes on', async () => {
    const before = service.chat.milky.dropped().malformed;
    peer.sendRaw('{not json');
    peer.event('message_receive', {
      message_scene: 'group',
      peer_id: 161,
      message_seq: 1,
      sender_id: 5,
      segments: 'x',
    });
    peer.sendRaw(JSON.stringify({ time: 1, self_id: 424242, event_type: 'message_receive', data: {} }));
    await waitUntil('three malformed events counted', () => service.chat.milky.dropped().malformed === before + 3);
    assert.match(logs, /malformed Milky event dropped/);
    assert.match(logs, /data\.segments: expected an array/);
    const next = await ask(161, text('还在吗'));
    assert.equal(next.groupId, 161, 'the stream still delivers');
  });

  it('never connects an implementation that refuses its token, and never logs a token', async () => {
    await waitUntil('the refusal', () => wrongToken.refused > 0);
    assert.equal(connected(STRANGER), false);
    assert.equal(logs.includes(token), false, 'the token is not in the log');
    const instances = await fetch(`http://127.0.0.1:${port}/chorus/api/instances`, {
      headers: { 'x-chorus-token': 'chorus-milky-token-not-secret' },
    });
    assert.equal(instances.status, 200);
    const rows = ((await instances.json()) as { data: { self_id: number; protocol: string | null }[] }).data;
    assert.deepEqual(
      rows.map((row) => [row.self_id, row.protocol]),
      [[SELF, 'milky']],
    );
    // The console's group list reads Milky's get_group_list ({ groups }) as OneBot's.
    const groups = await fetch(`http://127.0.0.1:${port}/chorus/api/group-list?self_id=${SELF}`, {
      headers: { 'x-chorus-token': 'chorus-milky-token-not-secret' },
    });
    assert.equal(groups.status, 200);
    const listed = ((await groups.json()) as { data: { groups: { group_id: number; group_name: string }[] } }).data
      .groups;
    assert.ok(
      listed.some((group) => group.group_id === 121 && group.group_name === '群121'),
      JSON.stringify(listed),
    );
  });

  it('dials the implementation again after it went away and came back', async () => {
    await peer.stop();
    await waitUntil('the account to drop', () => !connected(SELF));
    await peer.start();
    await waitUntil('the account to reconnect', () => connected(SELF), 20_000);
    const G = 171;
    const seq = say(G, 5, text('回来了吗'));
    assert.equal((await decided(G, seq)).selfId, SELF, 'events flow on the new stream');
  });
  it('a saved list applies at once: a dropped implementation is closed, a listed one dialled', async () => {
    const save = async (value: string) => {
      const response = await fetch(`http://127.0.0.1:${port}/chorus/api/plugins/onebot/config`, {
        method: 'PUT',
        headers: { 'x-chorus-token': WRITE, 'content-type': 'application/json' },
        body: JSON.stringify({ values: { milky_connect: value } }),
      });
      const body = await response.text();
      assert.equal(response.status, 200, body);
      const steps = (JSON.parse(body) as { data: { steps: { step: string; detail?: string }[] } }).data.steps;
      return steps.find((step) => step.step === 'apply_onebot')?.detail ?? '';
    };
    // (An empty secret in a save keeps the stored one: the list shrinks to the other implementation.)
    const other = `${wrongToken.base}?access_token=${token}`;
    assert.match(await save(other), /Milky: 0 dialled, 1 closed, 1 unchanged/);
    await waitUntil('the account to leave', () => !connected(SELF));
    assert.equal(peer.streams, 0, 'its event stream was closed');
    assert.match(await save(`${peer.base}?access_token=${token},${other}`), /Milky: 1 dialled, 0 closed, 1 unchanged/);
    await waitUntil('the account to come back', () => connected(SELF));
    assert.equal(logs.includes(token), false, 'the token is not in the log');
  });
});
