/**
 * 「记住我」 and 「忘记我」 end to end (docs/agent-memory.md): a scripted OneBot account over a
 * real WebSocket, the console over real HTTP. Before consent no fact can be added; 「记住我」 is
 * answered in Chinese and stores the consent; 「忘记我」 deletes the member's facts and consent at
 * once and the answer says how many; both are in the activity log with the member as the actor.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forgetAck, NOTHING_TO_FORGET, REMEMBER_ACK } from '../../src/agent/memory/memory-commands.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { save, startControlsService } from '../support/controls-service.ts';

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
