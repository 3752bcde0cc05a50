/**
 * The agent platform's parts joined, end to end (issue 29): `chorus serve` with a scripted OneBot
 * account over a real WebSocket, the console over real HTTP and the stand-in model server.
 * Approved catchphrases reach the model's prompt and nothing else does (an undo takes one back);
 * 「记住我」, a conversation, the memory worker's round with the model and 「忘记我」 keep and drop
 * a member's facts; a reminder the model makes by a tool call survives a restart and is said once.
 * No QQ number is in any request the model received.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { it, type TestContext } from 'node:test';
import { forgetAck, REMEMBER_ACK } from '../../src/agent/memory/memory-commands.ts';
import { startService } from '../../src/app/service.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { freePort } from '../support/chorus-process.ts';
import { FAST_REPLIES, sleep, startControlsService, WRITE } from '../support/controls-service.ts';
import { startModelStandIn, type ModelStandIn } from '../support/model-stand-in.ts';

const BOT = 64_029_001;
const GROUP = 73_129_411;
const ALICE = 88_129_201;
const BOB = 88_129_202;

async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await sleep(10);
  }
}

const modelEnv = (model: ModelStandIn): Record<string, string> => ({
  ...FAST_REPLIES,
  CHORUS_REPEATER_NICKNAMES: '小合',
  CHORUS_LLM_BASE_URL: model.baseUrl,
  CHORUS_LLM_API_KEY: 'sk-stand-in-secret',
  CHORUS_LLM_MODEL: 'stand-in-chat',
  CHORUS_LLM_TIMEOUT_SEC: '5',
});

/** What the model was told in one request (every message's text, in order). */
const promptOf = (model: ModelStandIn, index: number): string =>
  (model.requests[index]!.body.messages as { content: string | null }[]).map((m) => m.content ?? '').join('\n');

function assertNoNumbers(model: ModelStandIn, ids: readonly number[]): void {
  assert.ok(model.requests.length > 0);
  for (const request of model.requests) {
    for (const id of ids) assert.ok(!request.raw.includes(String(id)), `${id} was sent to the model: ${request.raw}`);
  }
}

it(
  'approved catchphrases reach the prompt; rejected and candidate ones never do; undo takes it back',
  { timeout: 120_000 },
  async (t) => {
    const model = await startModelStandIn();
    t.after(() => model.close());
    const s = await startControlsService(t, modelEnv(model));
    const peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${s.port}/onebot/v11/ws`, selfId: BOT });
    t.after(() => peer.close().catch(() => undefined));

    // The group has said three phrases often, after different things: mined as three candidates.
    const phrases = ['绝绝子', '蚌埠住了', '真的栓Q'];
    for (const phrase of phrases) {
      await s.teach('早上好', phrase, GROUP, 2);
      await s.teach('今天天气怎么样', phrase, GROUP, 2);
    }
    const mined = await s.api('POST', '/llm/agent-platform/catchphrases/mine', { group_id: GROUP });
    assert.equal(mined.status, 200, mined.detail);
    assert.equal(mined.data.added, 3);
    const listed = (await s.api('GET', `/llm/agent-platform/catchphrases?group_id=${GROUP}`)).data;
    const idOf = (text: string) => listed.items.find((item: { text: string }) => item.text === text).id as number;
    const [approved, rejected, candidate] = phrases;
    const resolve = (text: string, action: string) =>
      s.api('POST', '/llm/agent-platform/catchphrases/resolve', { entry_id: idOf(text), action });
    assert.equal((await resolve(approved!, 'approve')).data.status, 'active');
    assert.equal((await resolve(rejected!, 'reject')).data.status, 'rejected');

    const ask = async (text: string, answer: string): Promise<string> => {
      const before = model.requests.length;
      model.script({ text: answer });
      const id = peer.groupMessage({
        groupId: GROUP,
        userId: ALICE,
        message: `[CQ:at,qq=${BOT}] ${text}`,
        nickname: 'Alice',
      });
      assert.equal((await s.decided(id)).reason, 'addressed', 'the repeater has no answer: the model is asked');
      assert.equal((await peer.nextSent(1))[0]?.message, answer);
      return promptOf(model, before);
    };
    const first = await ask('周末有什么安排', '出去走走吧');
    assert.ok(first.includes(approved!), `the approved phrase is in the prompt: ${first}`);
    assert.ok(!first.includes(rejected!), 'never a rejected phrase');
    assert.ok(!first.includes(candidate!), 'never a candidate');

    const undone = await s.api('POST', '/llm/agent-platform/catchphrases/undo', { entry_id: idOf(approved!) });
    assert.equal(undone.status, 200, undone.detail);
    assert.equal(undone.data.status, 'candidate');
    const second = await ask('晚饭吃什么呢', '吃面吧');
    for (const phrase of phrases)
      assert.ok(!second.includes(phrase), `${phrase} is no longer in the prompt: ${second}`);
    assertNoNumbers(model, [BOT, GROUP, ALICE]);
  },
);

it(
  '记住我, a talk, the worker draws a fact with the model; 忘记我 removes facts and consent',
  { timeout: 120_000 },
  async (t) => {
    const model = await startModelStandIn();
    t.after(() => model.close());
    const s = await startControlsService(t, modelEnv(model));
    const peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${s.port}/onebot/v11/ws`, selfId: BOT });
    t.after(() => peer.close().catch(() => undefined));
    const say = (text: string) => peer.groupMessage({ groupId: GROUP, userId: ALICE, text, nickname: 'Alice' });
    const facts = async () =>
      (await s.api('GET', `/llm/agent-platform/person-facts?bot_id=${BOT}&user_id=${ALICE}`)).data;
    const consent = async () => (await s.api('GET', `/llm/agent-platform/consent?user_id=${ALICE}&bot_id=${BOT}`)).data;

    assert.equal((await s.decided(say('小合 记住我'))).reason, 'memory-command');
    assert.equal((await peer.nextSent(1))[0]?.message, REMEMBER_ACK);
    assert.equal((await consent()).items[0]?.granted, true);
    assert.equal(model.requests.length, 0, 'the command never reaches the model');

    // A talk the bot answers with the model: an observation about Alice (consented) is queued.
    peer.groupMessage({ groupId: GROUP, userId: BOB, text: '周末去哪玩', nickname: 'Bob' });
    model.script({ text: '猫确实很可爱' });
    assert.equal((await s.decided(say('小合 我养了两只猫，最喜欢猫了'))).reason, 'addressed');
    assert.equal((await peer.nextSent(1))[0]?.message, '猫确实很可爱');
    await until('a pending observation', async () => {
      const queued = (await s.api('GET', `/llm/agent-platform/observations?bot_id=${BOT}&status=pending`)).data;
      return queued.count > 0 ? queued : undefined;
    });

    // The worker's round: the background model answers the extraction JSON, by alias.
    model.script({ text: '```json\n{"facts":[{"member":"Alice","fact":"养了两只猫","confidence":0.9}]}\n```' });
    await s.service.agentMemory.worker.runOnce();
    const extraction = promptOf(model, model.requests.length - 1);
    assert.match(extraction, /长期记忆/);
    assert.match(extraction, /成员：Alice\n/, 'only the consented member is named, by alias');
    const kept = await facts();
    assert.equal(kept.count, 1);
    assert.equal(kept.items[0].content, '养了两只猫');

    // The fact reaches the next prompt.
    model.script({ text: '它们叫什么名字' });
    const before = model.requests.length;
    assert.equal((await s.decided(say('小合 猜猜我家里有什么'))).reason, 'addressed');
    assert.equal((await peer.nextSent(1))[0]?.message, '它们叫什么名字');
    assert.match(promptOf(model, before), /养了两只猫/);
    assertNoNumbers(model, [BOT, GROUP, ALICE, BOB]);

    const calls = model.requests.length;
    assert.equal((await s.decided(say('小合 忘记我'))).reason, 'memory-command');
    assert.equal((await peer.nextSent(1))[0]?.message, forgetAck(1));
    assert.deepEqual(await facts(), { items: [], count: 0 });
    assert.deepEqual(await consent(), { items: [], count: 0 });
    assert.equal(model.requests.length, calls, '忘记我 is answered without the model');
  },
);

/** A service on a given data folder (kept across a restart), with its account connected. */
async function serveIn(t: TestContext, dir: string, env: Record<string, string>) {
  const port = await freePort();
  const service = await startService({
    projectDir: dir,
    env: {
      CHORUS_PORT: String(port),
      CHORUS_DATA_DIR: dir,
      CHORUS_CONSOLE_TOKEN: 'platform-e2e-read',
      CHORUS_CONSOLE_WRITE_TOKEN: WRITE,
      ...env,
    },
    logDestination: new Writable({ write: (_chunk, _encoding, done) => done() }),
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await service.stop();
  };
  t.after(stop);
  const peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${port}/onebot/v11/ws`, selfId: BOT });
  t.after(() => peer.close().catch(() => undefined));
  await until('the account connected', () =>
    service.chat.platforms.bots().some((b) => b.selfId === BOT) ? true : undefined,
  );
  const api = async (path: string) => {
    const response = await fetch(`http://127.0.0.1:${port}/chorus/api${path}`, {
      headers: { 'x-chorus-token': WRITE },
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies checked field by field
    return { status: response.status, data: ((await response.json()) as { data: any }).data };
  };
  return { service, peer, stop, api };
}

it(
  'a reminder the model makes by a tool call is said once, at its time, after a restart',
  { timeout: 120_000 },
  async (t) => {
    const model = await startModelStandIn();
    t.after(() => model.close());
    const dir = await mkdtemp(join(tmpdir(), 'chorus-platform-e2e-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const first = await serveIn(t, dir, modelEnv(model));

    model.script(
      {
        text: null,
        toolCalls: [{ id: 'call_1', name: 'create_reminder', arguments: JSON.stringify({ when: 30, text: '喝水' }) }],
      },
      { text: '好的，30分钟后提醒你喝水' },
    );
    first.peer.groupMessage({
      groupId: GROUP,
      userId: ALICE,
      message: `[CQ:at,qq=${BOT}] 30分钟后提醒我喝水`,
      nickname: 'Alice',
    });
    assert.equal((await first.peer.nextSent(1))[0]?.message, '好的，30分钟后提醒你喝水');
    assert.equal(model.requests.length, 2, 'asked again with the tool result');
    const toolResult = (model.requests[1]!.body.messages as { role: string; content: string }[]).find(
      (m) => m.role === 'tool',
    );
    assert.match(toolResult?.content ?? '', /^ok: reminder #\d+ /);
    assertNoNumbers(model, [BOT, GROUP, ALICE]);

    const listed = await first.api(`/llm/agent-platform/tasks?group_id=${GROUP}`);
    assert.equal(listed.status, 200);
    assert.equal(listed.data.count, 1);
    const task = listed.data.items[0];
    assert.deepEqual(
      [task.text, task.status, task.creator_user_id, task.self_id, task.kind],
      ['喝水', 'open', ALICE, BOT, 'reminder'],
    );
    assert.ok(Math.abs(task.due_at - (Date.now() + 30 * 60_000)) < 60_000, 'due in 30 minutes');

    // The stored time moved to 3 s from now (the test does not wait half an hour); then a restart.
    const dueAt = Date.now() + 3000;
    await first.service.store.engine.db
      .withTables<{ agent_task: { id: number; due_at: number } }>()
      .updateTable('agent_task')
      .set({ due_at: dueAt })
      .where('id', '=', task.id)
      .execute();
    await first.stop();
    assert.equal(first.peer.sent.length, 1, 'only the model’s answer before the restart');

    const second = await serveIn(t, dir, modelEnv(model));
    const [reminded] = await second.peer.nextSent(1, 20_000);
    assert.ok(Date.now() >= dueAt, 'not before its time');
    assert.equal(reminded?.groupId, GROUP);
    assert.equal(reminded?.message, `[CQ:at,qq=${ALICE}] 提醒：喝水`);
    await second.service.agentTasks.scheduler.tick();
    assert.equal(second.peer.sent.filter((m) => m.message.includes('提醒：喝水')).length, 1, 'once');
    assert.equal((await second.api(`/llm/agent-platform/tasks?group_id=${GROUP}`)).data.items[0].status, 'done');
  },
);
