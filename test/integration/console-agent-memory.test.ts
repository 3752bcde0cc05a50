/**
 * The agent memory routes over real HTTP (src/console/routes/agent-memory.ts): every one at the
 * write level (a read session gets 403, reads too: they return member numbers), bad input a 400
 * naming the field with nothing changed, a fact only for a consenting member (409), corrections
 * and deletions (404 for an unknown fact), withdrawing consent from the console deletes the facts,
 * the observation queue with its size, and every change in the activity log.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { READ_TOKEN, startHarness, WRITE_TOKEN } from '../unit/console/harness.ts';

const BOT = 71001;
const MEMBER = 81001;
const BASE = '/llm/agent-platform';

interface Body {
  ok: boolean;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies checked field by field
  data?: any;
  code?: string;
  params?: Record<string, string | number>;
  detail?: string;
}

it('agent memory routes: levels, bad input, consent, facts and the activity log', { timeout: 60_000 }, async (t) => {
  const h = await startHarness(t);
  const call = async (method: string, path: string, body?: unknown, token = WRITE_TOKEN) => {
    const reply = await h.request(method, path, { token, ...(body !== undefined ? { body } : {}) });
    return { status: reply.status, body: reply.json as Body };
  };
  const facts = async () => (await call('GET', `${BASE}/person-facts?bot_id=${BOT}`)).body.data;

  // A read session may neither read nor change anything here.
  for (const [method, path, body] of [
    ['GET', `${BASE}/person-facts?bot_id=${BOT}`],
    ['GET', `${BASE}/consent?user_id=${MEMBER}`],
    ['GET', `${BASE}/observations`],
    ['POST', `${BASE}/consent`, { bot_id: BOT, user_id: MEMBER, granted: true }],
    ['POST', `${BASE}/person-facts`, { bot_id: BOT, user_id: MEMBER, content: '喜欢猫' }],
    ['POST', `${BASE}/person-facts/delete`, { fact_id: 1 }],
  ] as const) {
    assert.equal((await call(method, path, body, READ_TOKEN)).status, 403, `${method} ${path}`);
  }
  assert.deepEqual((await call('GET', `${BASE}/consent?user_id=${MEMBER}`)).body.data, { items: [], count: 0 });

  // Bad input: 400 naming the field.
  const bad: [string, string, unknown, string][] = [
    ['GET', `${BASE}/person-facts`, undefined, 'query.bot_id'],
    ['GET', `${BASE}/person-facts?bot_id=${BOT}&limit=500`, undefined, 'query.limit'],
    ['GET', `${BASE}/consent`, undefined, 'query.user_id'],
    ['GET', `${BASE}/observations?status=stuck`, undefined, 'query.status'],
    ['POST', `${BASE}/consent`, { bot_id: BOT, user_id: MEMBER }, 'body.granted'],
    ['POST', `${BASE}/person-facts`, { bot_id: BOT, user_id: MEMBER, content: '   ' }, 'body.content'],
    ['POST', `${BASE}/person-facts`, { bot_id: BOT, user_id: 'x', content: '喜欢猫' }, 'body.user_id'],
    ['POST', `${BASE}/person-facts/correct`, { fact_id: 1 }, 'body.content'],
    ['POST', `${BASE}/person-facts/delete`, { fact_id: 0 }, 'body.fact_id'],
  ];
  for (const [method, path, body, field] of bad) {
    const reply = await call(method, path, body);
    assert.equal(reply.status, 400, `${method} ${path}: ${JSON.stringify(reply.body)}`);
    assert.equal(reply.body.code, 'invalid_field');
    assert.equal(reply.body.params?.field, field, `${method} ${path}`);
  }

  // No consent: no fact.
  const refused = await call('POST', `${BASE}/person-facts`, { bot_id: BOT, user_id: MEMBER, content: '喜欢猫' });
  assert.equal(refused.status, 409);
  assert.equal(refused.body.code, 'agent_memory_no_consent');
  assert.deepEqual(await facts(), { items: [], count: 0 });

  const grant = await call('POST', `${BASE}/consent`, { bot_id: BOT, user_id: MEMBER, granted: true });
  assert.equal(grant.status, 200);
  assert.equal(grant.body.data.was_granted, false);
  const added = await call('POST', `${BASE}/person-facts`, {
    bot_id: BOT,
    user_id: MEMBER,
    group_id: 5,
    content: ' 喜欢猫 ',
  });
  assert.equal(added.status, 200);
  assert.equal(added.body.data.content, '喜欢猫');
  assert.equal(added.body.data.source, 'manual');
  assert.equal(added.body.data.consented, true);
  const id = added.body.data.id as number;
  await call('POST', `${BASE}/person-facts`, { bot_id: BOT, user_id: MEMBER, content: '住在杭州' });
  assert.equal((await facts()).count, 2);
  assert.equal(
    (await call('GET', `${BASE}/person-facts?bot_id=${BOT}&group_id=6`)).body.data.count,
    1,
    'group 0 facts count everywhere',
  );

  const corrected = await call('POST', `${BASE}/person-facts/correct`, { fact_id: id, content: '喜欢狗' });
  assert.equal(corrected.status, 200);
  assert.equal(corrected.body.data.content, '喜欢狗');
  assert.equal(corrected.body.data.corrected, true);
  const missing = await call('POST', `${BASE}/person-facts/correct`, { fact_id: 999_999, content: 'x' });
  assert.equal(missing.status, 404);
  assert.equal(missing.body.code, 'agent_memory_fact_not_found');

  assert.equal((await call('POST', `${BASE}/person-facts/delete`, { fact_id: id })).status, 200);
  assert.equal((await call('POST', `${BASE}/person-facts/delete`, { fact_id: id })).status, 404);
  assert.equal((await facts()).count, 1);

  const observations = await call('GET', `${BASE}/observations?bot_id=${BOT}&status=pending`);
  assert.equal(observations.status, 200);
  assert.deepEqual(observations.body.data.items, []);
  assert.equal(observations.body.data.queue_size, 0);
  assert.equal(observations.body.data.worker_enabled, false);

  // Withdrawing from the console deletes the facts.
  const withdraw = await call('POST', `${BASE}/consent`, { bot_id: BOT, user_id: MEMBER, granted: false });
  assert.deepEqual(withdraw.body.data, {
    granted: false,
    was_granted: true,
    facts_deleted: 1,
    observations_deleted: 0,
  });
  assert.deepEqual(await facts(), { items: [], count: 0 });
  assert.deepEqual((await call('GET', `${BASE}/consent?user_id=${MEMBER}`)).body.data, { items: [], count: 0 });

  const log = (await call('GET', '/activity?limit=20')).body.data;
  assert.deepEqual(
    log.items.map((entry: { kind: string; actor: { kind: string; level?: string } }) => [
      entry.kind,
      entry.actor.kind,
      entry.actor.level,
    ]),
    [
      ['memory_consent', 'console', 'write'],
      ['memory_fact_delete', 'console', 'write'],
      ['memory_fact_correct', 'console', 'write'],
      ['memory_fact_add', 'console', 'write'],
      ['memory_fact_add', 'console', 'write'],
      ['memory_consent', 'console', 'write'],
    ],
  );
  assert.equal(log.items[0].params.facts, 1);
  assert.equal(log.items[0].params.granted, false);
});
