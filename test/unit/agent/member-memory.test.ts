/**
 * The member memory (src/agent/memory, docs/agent-memory.md) over a real SQLite store with a fake
 * background model: facts are drawn from an observed conversation and attributed by alias, the
 * model never sees a QQ number, nothing is queued or stored without consent, a bad answer is
 * retried then marked failed, and without a model the worker does nothing.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { wireAgentMemory } from '../../../src/app/agent-memory-wiring.ts';
import type { LanguageModel, ModelRequest } from '../../../src/agent/model.ts';
import type { ConversationExcerpt } from '../../../src/agent/parts.ts';
import { silentLog } from '../../../src/common/log.ts';
import { NO_ACTIVITY } from '../../../src/domain/activity.ts';
import { openStore } from '../../../src/store/open-store.ts';
import { DEFAULT_REPLY } from '../../support/engines.ts';

const BOT = 3_000_000_001;
const ALICE = 123456789;
const BOB = 987654321;
const GROUP = 55555;

class FakeModel implements LanguageModel {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly answer: (request: ModelRequest) => string) {}
  async chat(request: ModelRequest) {
    this.requests.push(request);
    return {
      text: this.answer(request),
      toolCalls: [],
      usage: { promptTokens: 1, completionTokens: 1 },
      model: 'fake',
    };
  }
}

async function memoryWith(t: TestContext, model: LanguageModel | undefined) {
  const dataDir = await mkdtemp(join(tmpdir(), 'chorus-memory-'));
  const store = await openStore({ databaseUrl: '', dataDir, poolMax: 2, reply: DEFAULT_REPLY });
  t.after(async () => {
    await store.close();
    await rm(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  });
  const clock = { now: 1_800_000_000_000 };
  const wiring = wireAgentMemory({
    engine: store.engine,
    activity: NO_ACTIVITY,
    model: () => model,
    owner: 'test',
    nowMs: () => clock.now,
    log: silentLog,
    worker: { maxAttempts: 2, retryDelayMs: 1000 },
  });
  return { ...wiring, clock };
}

const conversation = (consented: number[]): ConversationExcerpt => ({
  selfId: BOT,
  groupId: GROUP,
  consentedUserIds: consented,
  aliasByUserId: { [ALICE]: '小爱', [BOB]: '阿波' },
  lines: [
    { speaker: '小爱', text: `[CQ:at,qq=${BOT}] 我在杭州做程序员，最喜欢猫`, time: 1 },
    { speaker: 'bot', text: '杭州好呀', time: 2 },
    { speaker: '路人', text: `[CQ:at,qq=${BOB}] 你QQ是 ${BOB} 吧，加我 2233445566`, time: 3 },
  ],
});

describe('member memory', () => {
  it('draws facts from a conversation, attributed by alias, with no QQ number in the prompt', async (t) => {
    const model = new FakeModel(
      () =>
        '```json\n{"facts":[{"member":"小爱","fact":"在杭州做程序员","confidence":0.9},' +
        '{"member":"小爱","fact":"喜欢猫"},{"member":"路人","fact":"不该留下"},{"member":"小爱","fact":"QQ 123456789"}]}\n```',
    );
    const { memory, worker } = await memoryWith(t, model);
    await memory.facts.grant(BOT, ALICE, ['facts'], 1);
    assert.equal(await memory.hasConsent(BOT, ALICE), true);
    assert.equal(await memory.hasConsent(BOT, BOB), false);

    // The caller says Bob consented too: the memory checks again and keeps Alice alone.
    memory.observe(conversation([ALICE, BOB]));
    await memory.settled();
    assert.equal(memory.counters.queued, 1);
    const [queued] = await memory.queue.list({ limit: 5 });
    assert.deepEqual(queued?.userIds, [ALICE]);
    assert.deepEqual(queued?.excerpt.aliases, { [ALICE]: '小爱' });
    assert.ok(!JSON.stringify(queued?.excerpt.lines).includes(String(BOB)), 'no other member number stored');

    assert.equal(await worker.runOnce(), 1);
    assert.equal(model.requests.length, 1);
    assert.equal(model.requests[0]?.role, 'background');
    const prompt = JSON.stringify(model.requests[0]?.messages);
    for (const number of [ALICE, BOB, BOT, 2233445566])
      assert.ok(!prompt.includes(String(number)), `${number} in prompt`);
    assert.ok(!/\d{5,}/u.test(prompt), prompt);
    assert.ok(prompt.includes('小爱'));

    assert.deepEqual(await memory.factsFor({ selfId: BOT, groupId: GROUP }, ALICE), ['喜欢猫', '在杭州做程序员']);
    assert.deepEqual(await memory.factsFor({ selfId: BOT, groupId: GROUP }, BOB), []);
    const facts = await memory.facts.list({ selfId: BOT, limit: 10 });
    assert.deepEqual(
      facts.map((row) => [row.fact.userId, row.fact.source, row.fact.groupId]),
      [
        [ALICE, 'model', GROUP],
        [ALICE, 'model', GROUP],
      ],
    );
    assert.equal(memory.counters.facts_stored, 2);
    assert.equal((await memory.queue.list({ status: 'done', limit: 5 })).length, 1);

    // Consent withdrawn: the facts go and the prompt gets nothing.
    await memory.facts.forget(BOT, ALICE);
    assert.deepEqual(await memory.factsFor({ selfId: BOT, groupId: GROUP }, ALICE), []);
  });

  it('without consent nothing is queued or stored', async (t) => {
    const model = new FakeModel(() => '{"facts":[{"member":"阿波","fact":"喜欢狗"}]}');
    const { memory, worker } = await memoryWith(t, model);
    memory.observe(conversation([]));
    memory.observe(conversation([BOB]));
    await memory.settled();
    assert.equal(memory.counters.queued, 0);
    assert.equal(memory.counters.dropped_no_consent, 2);
    assert.equal(await memory.queue.pendingCount(), 0);
    assert.equal(await worker.runOnce(), 0);
    assert.equal(model.requests.length, 0);
    assert.deepEqual(await memory.facts.list({ selfId: BOT, limit: 10 }), []);
  });

  it('a bad answer is retried after the pause, then marked failed', async (t) => {
    const model = new FakeModel(() => 'I cannot answer in JSON today');
    const { memory, worker, clock } = await memoryWith(t, model);
    await memory.facts.grant(BOT, ALICE, ['facts'], 1);
    memory.observe(conversation([ALICE]));
    await memory.settled();
    assert.equal(await worker.runOnce(), 1);
    assert.equal((await memory.queue.list({ limit: 1 }))[0]?.status, 'pending');
    assert.equal(await worker.runOnce(), 0, 'not again before the pause');
    clock.now += 1001;
    assert.equal(await worker.runOnce(), 1);
    const [failed] = await memory.queue.list({ limit: 1 });
    assert.equal(failed?.status, 'failed');
    assert.equal(failed?.attempts, 2);
    assert.match(failed?.error ?? '', /JSON/);
    assert.equal(memory.counters.observations_failed, 1);
    assert.equal(model.requests.length, 2);
  });

  it('without a model the worker does nothing and says it is off', async (t) => {
    const { memory, worker, console: port } = await memoryWith(t, undefined);
    await memory.facts.grant(BOT, ALICE, ['facts'], 1);
    memory.observe(conversation([ALICE]));
    await memory.settled();
    worker.start();
    assert.equal(await worker.runOnce(), 0);
    await worker.stop(100);
    const overview = await port.overview();
    assert.equal(overview.workerEnabled, false);
    assert.equal(overview.queueSize, 1, 'the observation waits for a model');
  });

  it('a full queue drops new observations and counts them', async (t) => {
    const { memory } = await memoryWith(t, undefined);
    await memory.facts.grant(BOT, ALICE, ['facts'], 1);
    for (let i = 0; i < 3; i++) memory.observe(conversation([ALICE]));
    await memory.settled();
    // The bound is 500 by default; checked here against a queue filled past it directly.
    for (let i = 0; i < 500; i++) {
      await memory.queue.add({
        selfId: BOT,
        groupId: GROUP,
        excerpt: { aliases: {}, lines: [] },
        userIds: [ALICE],
        now: 1,
      });
    }
    memory.observe(conversation([ALICE]));
    await memory.settled();
    assert.equal(memory.counters.queued, 3);
    assert.equal(memory.counters.dropped_full, 1);
  });
});
