/**
 * Agreement before serving, on SQLite and PostgreSQL over real HTTP (docs/hub.md#agreement):
 * clients bind distinct loopback addresses (127.0.0.2, .3 …), so the hub sees distinct client
 * addresses. One deployment, however often it contributes, is served to nobody; three deployments
 * from three addresses are; deployments enrolled from one address count as one; an insert never
 * lowers what another deployment contributed; a blocked deployment stops counting and is refused.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it, type TestContext } from 'node:test';
import { openHubStore } from '../../src/hub/open-hub-store.ts';
import { forEachEngine } from '../support/engines.ts';
import { HubClient, openHub, type TestHub } from './hub-support.ts';

const AGREEMENT = { minDeployments: 3, countPerDeploymentMax: 3 };
const KEY = '加群领红包';
const AD = '加微信领红包';

const upsert = (keywords: string, answer: string) => ({
  op: 'upsert_answer',
  keywords,
  answer_keywords: answer,
  message: answer,
});

/** A deployment enrolled from `address`, with a client bound to it. */
async function deploymentAt(hub: TestHub, address: string) {
  const client = new HubClient(hub.hub.url, address);
  const id: string = randomUUID();
  const { corpus_token: token } = await client.enroll(id);
  return { client, id, token };
}

async function hotKeywords(client: HubClient, mode: 'pool' | 'recent' | 'fleet'): Promise<string[]> {
  const reply = await client.get(`/v1/corpus/hot?mode=${mode}&period=day`);
  assert.equal(reply.status, 200);
  return (reply.body.items as { keywords: string }[]).map((item) => item.keywords);
}

async function blocker(t: TestContext, hub: TestHub) {
  const store = await openHubStore({ ...hub.location, poolMax: 2 });
  t.after(() => store.close());
  return store;
}

forEachEngine((engine) => {
  it('one deployment contributing a phrase 50 times, or claiming 1,000,000, is served to nobody nor ranked', async (t) => {
    const hub = await openHub(t, engine, AGREEMENT);
    const attacker = await deploymentAt(hub, '127.0.0.2');
    const reader = await deploymentAt(hub, '127.0.0.3');
    for (let i = 0; i < 50; i++) {
      const reply = await attacker.client.contribute(upsert(KEY, AD), attacker.token);
      assert.deepEqual([reply.status, reply.body], [200, { ok: true, accepted: true }], 'contributions keep flowing');
    }
    const insert = { op: 'insert', context: { keywords: KEY, answers: [{ keywords: AD, count: 1_000_000 }] } };
    assert.equal((await attacker.client.contribute(insert, attacker.token)).status, 200);
    const upload = await attacker.client.post(
      '/v1/corpus/hot',
      { items: [{ keywords: KEY, score: 1_000_000 }] },
      attacker.token,
    );
    assert.equal(upload.status, 200);

    assert.equal((await reader.client.context(KEY, reader.token)).status, 404, 'not served to another deployment');
    assert.equal((await attacker.client.context(KEY, attacker.token)).status, 404, 'nor back to itself');
    for (const mode of ['pool', 'recent', 'fleet'] as const) {
      assert.deepEqual(await hotKeywords(reader.client, mode), [], `not in ${mode} hot words`);
    }
    // Stored all the same: serving waits for agreement.
    const answers = await hub.rows('hub_answer');
    assert.equal(answers.length, 1);
    assert.equal(Number(answers[0]?.count), 1_000_000);
  });

  it('three deployments from three addresses make it served, each adding at most its cap', async (t) => {
    const hub = await openHub(t, engine, AGREEMENT);
    const [a, b, c, reader] = [
      await deploymentAt(hub, '127.0.0.2'),
      await deploymentAt(hub, '127.0.0.3'),
      await deploymentAt(hub, '127.0.0.4'),
      await deploymentAt(hub, '127.0.0.5'),
    ];
    const cohorts = new Set((await hub.rows('hub_deployment')).map((row) => row.cohort));
    assert.equal(cohorts.size, 4, 'the hub saw four client addresses');
    for (let i = 0; i < 50; i++) await a.client.contribute(upsert(KEY, AD), a.token);
    await b.client.contribute(upsert(KEY, AD), b.token);
    assert.equal((await reader.client.context(KEY, reader.token)).status, 404, 'two agree: not yet');
    await c.client.contribute(upsert(KEY, AD), c.token);
    const served = await reader.client.context(KEY, reader.token);
    assert.equal(served.status, 200);
    assert.deepEqual(
      served.body.answers.map((answer: { keywords: string; count: number }) => [answer.keywords, answer.count]),
      [[AD, 3 + 1 + 1]],
      'served with each deployment capped at 3',
    );
    assert.deepEqual(await hotKeywords(reader.client, 'pool'), [KEY]);
    const uploads = [a, b, c].map((d) =>
      d.client.post('/v1/corpus/hot', { items: [{ keywords: KEY, score: 9 }] }, d.token),
    );
    for (const reply of await Promise.all(uploads)) assert.equal(reply.status, 200);
    assert.deepEqual(await hotKeywords(reader.client, 'fleet'), [KEY], 'three snapshots agree');
  });

  it('twenty deployments enrolled from one address count as one', async (t) => {
    const hub = await openHub(t, engine, { ...AGREEMENT, enrollPerIpPerHour: 0, enrollPerIpPerMinute: 0 });
    // Enrolled at once: parallel first enrollments from one address still find each other.
    const crowd = await Promise.all(Array.from({ length: 20 }, () => deploymentAt(hub, '127.0.0.6')));
    for (const member of crowd) await member.client.contribute(upsert(KEY, AD), member.token);
    const other = await deploymentAt(hub, '127.0.0.7');
    await other.client.contribute(upsert(KEY, AD), other.token);
    assert.equal((await other.client.context(KEY, other.token)).status, 404, 'twenty and one are two');
    const third = await deploymentAt(hub, '127.0.0.8');
    await third.client.contribute(upsert(KEY, AD), third.token);
    const served = await third.client.context(KEY, third.token);
    assert.equal(served.status, 200);
    assert.equal(served.body.answers[0].count, 3 + 1 + 1, 'the twenty add one capped share');
    const crowdIds = new Set(crowd.map((member) => member.id));
    const crowdCohorts = new Set(
      (await hub.rows('hub_deployment'))
        .filter((row) => crowdIds.has(String(row.deployment_id)))
        .map((row) => row.cohort),
    );
    assert.equal(crowdCohorts.size, 1);
  });

  it('an insert never lowers a count another deployment contributed', async (t) => {
    const hub = await openHub(t, engine, { minDeployments: 1, countPerDeploymentMax: 0 });
    const a = await deploymentAt(hub, '127.0.0.2');
    const b = await deploymentAt(hub, '127.0.0.3');
    for (let i = 0; i < 50; i++) await a.client.contribute(upsert(KEY, AD), a.token);
    const insert = (count: number) => ({
      op: 'insert',
      context: { keywords: KEY, answers: [{ keywords: AD, count }] },
    });
    const count = async () => (await b.client.context(KEY, b.token)).body.answers[0].count as number;
    await b.client.contribute(insert(1), b.token);
    assert.equal(await count(), 51, "b's insert adds its share; a's 50 stay");
    await b.client.contribute(insert(2), b.token);
    assert.equal(await count(), 52, 'a second insert replaces only its own share');
    await a.client.contribute(insert(1), a.token);
    assert.equal(await count(), 3, 'a may lower its own share');
  });

  it("a blocked deployment's contributions stop counting and its token gets 403; unblocked, both return", async (t) => {
    const hub = await openHub(t, engine, AGREEMENT);
    const [a, b, c] = [
      await deploymentAt(hub, '127.0.0.2'),
      await deploymentAt(hub, '127.0.0.3'),
      await deploymentAt(hub, '127.0.0.4'),
    ];
    for (const d of [a, b, c]) await d.client.contribute(upsert(KEY, AD), d.token);
    assert.equal((await b.client.context(KEY, b.token)).status, 200);
    const store = await blocker(t, hub);
    assert.equal(await store.setBlocked(a.id.toUpperCase(), true), true);
    assert.equal(await store.setBlocked(randomUUID(), true), false, 'an unknown deployment');
    assert.equal((await b.client.context(KEY, b.token)).status, 404, 'two unblocked agree: not served');
    const refused = await a.client.contribute(upsert(KEY, AD), a.token);
    assert.deepEqual([refused.status, refused.body], [403, { detail: 'deployment blocked by the hub operator' }]);
    assert.equal((await a.client.context(KEY, a.token)).status, 403);
    const renewed = await a.client.post('/v1/corpus/enroll', { deployment_id: a.id }, a.token);
    assert.equal(renewed.status, 200, 'its holder may rotate the token');
    assert.equal((await a.client.get('/v1/corpus/usage', renewed.body.corpus_token)).status, 403, 'still blocked');
    assert.equal(await store.setBlocked(a.id, false), true);
    assert.equal((await b.client.context(KEY, b.token)).status, 200, 'its contribution counts again');
  });

  it('re-enrolling a known deployment id without its token is a 409 and leaves the token valid', async (t) => {
    const hub = await openHub(t, engine, AGREEMENT);
    const owner = await deploymentAt(hub, '127.0.0.2');
    const stranger = new HubClient(hub.hub.url, '127.0.0.3');
    const attempts = [
      await stranger.post('/v1/corpus/enroll', { deployment_id: owner.id }),
      await stranger.post('/v1/corpus/enroll', { deployment_id: owner.id.toUpperCase() }, 'pc_not-the-token'),
    ];
    for (const attempt of attempts) {
      assert.deepEqual(
        [attempt.status, attempt.body],
        [409, { detail: 'deployment_id: already enrolled; re-enrolling needs its current corpus token as the Bearer' }],
      );
    }
    assert.equal((await owner.client.get('/v1/corpus/usage', owner.token)).status, 200, 'the owner keeps its token');
    assert.equal((await hub.rows('hub_deployment')).length, 1);
  });
});
