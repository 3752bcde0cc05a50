/**
 * 「记住我」 and 「忘记我」 end to end (docs/agent-memory.md): a scripted OneBot account over a
 * real WebSocket, the console over real HTTP. Before consent no fact can be added; 「记住我」 is
 * answered in Chinese and stores the consent; 「忘记我」 deletes the member's facts and consent at
 * once and the answer says how many; both are in the activity log with the member as the actor.
 * On a fleet (two processes on one PostgreSQL) both processes answer the same.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forgetAck, NOTHING_TO_FORGET, REMEMBER_ACK } from '../../src/agent/memory/memory-commands.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { pgSchema, save, startControlsService } from '../support/controls-service.ts';
import { requirePostgres } from '../support/engines.ts';

const BOT = 64001;
const GROUP = 7401;
const MEMBER = 8811;

it('记住我 stores consent and 忘记我 deletes facts and consent, answered in chat', { timeout: 90_000 }, async (t) => {
  const s = await startControlsService(t, {});
  const peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${s.port}/onebot/v11/ws`, selfId: BOT });
  t.after(() => peer.close().catch(() => undefined));
  await save(s, `/bot-configs/${BOT}`, { nicknames: ['小合'] });
  let second = Math.floor(Date.now() / 1000) - 10_000;
  const say = (text: string) =>
    s.decided(peer.groupMessage({ groupId: GROUP, userId: MEMBER, text, time: ++second, role: 'member' }));
  const answered = (text: string) =>
    peer.waitForAction(
      (a) => a.action === 'send_group_msg' && a.params.message === text && a.params.group_id === GROUP,
    );
  const consent = async () => (await s.api('GET', `/llm/agent-platform/consent?user_id=${MEMBER}&bot_id=${BOT}`)).data;
  const facts = async () =>
    (await s.api('GET', `/llm/agent-platform/person-facts?bot_id=${BOT}&user_id=${MEMBER}`)).data;
  const addFact = (content: string) =>
    s.api('POST', '/llm/agent-platform/person-facts', { bot_id: BOT, user_id: MEMBER, group_id: GROUP, content });

  // Without consent: nothing can be kept, and 「忘记我」 says there was nothing.
  assert.equal((await addFact('喜欢猫')).status, 409);
  assert.deepEqual(await consent(), { items: [], count: 0 });
  assert.equal((await say('小合 忘记我')).reason, 'memory-command');
  await answered(NOTHING_TO_FORGET);

  assert.equal((await say('小合 记住我！')).reason, 'memory-command');
  await answered(REMEMBER_ACK);
  const granted = await consent();
  assert.equal(granted.count, 1);
  assert.equal(granted.items[0].granted, true);
  assert.deepEqual(granted.items[0].scopes, ['facts']);

  assert.equal((await addFact('喜欢猫')).status, 200);
  assert.equal((await addFact('住在杭州')).status, 200);
  assert.equal((await facts()).count, 2);

  // By mention, without the name.
  const mention = peer.groupMessage({
    groupId: GROUP,
    userId: MEMBER,
    message: `[CQ:at,qq=${BOT}] 忘记我`,
    time: ++second,
  });
  assert.equal((await s.decided(mention)).reason, 'memory-command');
  await answered(forgetAck(2));
  assert.deepEqual(await facts(), { items: [], count: 0 });
  assert.deepEqual(await consent(), { items: [], count: 0 });
  assert.equal((await addFact('喜欢猫')).status, 409, 'consent is gone with the facts');

  // A message that is not addressed is no command.
  assert.notEqual((await say('记住我')).reason, 'memory-command');

  const log = (await s.api('GET', '/activity?kinds=memory_consent,memory_forget,memory_fact_add&limit=20')).data;
  const kinds = log.items.map((entry: { kind: string; actor: { kind: string; user_id?: number } }) => [
    entry.kind,
    entry.actor.kind,
  ]);
  assert.deepEqual(kinds, [
    ['memory_forget', 'chat'],
    ['memory_fact_add', 'console'],
    ['memory_fact_add', 'console'],
    ['memory_consent', 'chat'],
  ]);
  const forget = log.items[0];
  assert.equal(forget.actor.user_id, MEMBER);
  assert.equal(forget.group_id, GROUP);
  assert.equal(forget.params.facts, 2);
});

it(
  'on a fleet, consent given in one process is the same in the other, and 忘记我 there removes it',
  { timeout: 90_000 },
  async (t) => {
    if (!requirePostgres(t)) return;
    const schema = await pgSchema();
    const a = await startControlsService(t, {}, schema.url, true);
    const b = await startControlsService(t, {}, schema.url, true);
    t.after(async () => {
      await a.stop();
      await b.stop();
      await schema.drop();
    });
    const peerA = await OneBotPeer.connect({ url: `ws://127.0.0.1:${a.port}/onebot/v11/ws`, selfId: BOT });
    t.after(() => peerA.close().catch(() => undefined));
    await save(a, `/bot-configs/${BOT}`, { nicknames: ['小合'] });
    let second = Math.floor(Date.now() / 1000) - 10_000;
    const id = peerA.groupMessage({
      groupId: GROUP,
      userId: MEMBER,
      text: '小合 记住我',
      time: ++second,
      role: 'member',
    });
    assert.equal((await a.decided(id)).reason, 'memory-command');
    await peerA.waitForAction((x) => x.action === 'send_group_msg' && x.params.message === REMEMBER_ACK);
    const consentIn = async (s: typeof a) =>
      (await s.api('GET', `/llm/agent-platform/consent?user_id=${MEMBER}&bot_id=${BOT}`)).data;
    assert.equal((await consentIn(b)).items[0]?.granted, true, 'the other process sees the consent');
    const added = await b.api('POST', '/llm/agent-platform/person-facts', {
      bot_id: BOT,
      user_id: MEMBER,
      content: '喜欢猫',
    });
    assert.equal(added.status, 200);

    // The account moves to process B, where the member says 忘记我.
    await peerA.close();
    const peerB = await OneBotPeer.connect({ url: `ws://127.0.0.1:${b.port}/onebot/v11/ws`, selfId: BOT });
    t.after(() => peerB.close().catch(() => undefined));
    const forget = peerB.groupMessage({
      groupId: GROUP,
      userId: MEMBER,
      text: '小合 忘记我',
      time: ++second,
      role: 'member',
    });
    assert.equal((await b.decided(forget)).reason, 'memory-command');
    await peerB.waitForAction((x) => x.action === 'send_group_msg' && x.params.message === forgetAck(1));
    assert.deepEqual(await consentIn(a), { items: [], count: 0 });
    assert.equal((await a.api('GET', `/llm/agent-platform/person-facts?bot_id=${BOT}`)).data.count, 0);
  },
);
