/**
 * The hub's public statistics over real HTTP, on SQLite and PostgreSQL (docs/rules.md#hub-protocol):
 * GET /v1/stats sums the deployments that report (online = a heartbeat within 900 s) and their
 * bots; GET /v1/stats/corpus counts the shared corpus and its enrollments. Counts only.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { FakeClock } from '../../src/common/clock.ts';
import { forEachEngine } from '../support/engines.ts';
import { openHub } from './hub-support.ts';

forEachEngine((engine) => {
  it('GET /v1/stats sums online deployments and their bots; a silent one drops out after 900 s', async (t) => {
    const clock = new FakeClock(1_700_000_000_000);
    const { client } = await openHub(t, engine, { clock });
    const beat = (deploymentId: string, extra: Record<string, unknown>) =>
      client.post('/v1/heartbeat', { deployment_id: deploymentId, ts: Math.floor(clock.nowMs() / 1000), ...extra });
    const empty = await client.get('/v1/stats');
    assert.equal(empty.status, 200);
    assert.deepEqual(
      [empty.body.deployments_total, empty.body.deployments_online, empty.body.bots_online_sum],
      [0, 0, 0],
    );

    const early = randomUUID();
    assert.equal((await beat(early, { online_bots: 5, sharded: false })).status, 200);
    clock.advance(1_000_000); // 1000 s: `early` is no longer online
    assert.equal((await beat(randomUUID(), { online_bots: 1, sharded: false })).status, 200);
    assert.equal((await beat(randomUUID(), { online_bots: 2, sharded: true, shard_workers: 3 })).status, 200);

    const stats = await client.get('/v1/stats');
    assert.equal(stats.status, 200);
    assert.match(String(stats.headers.get('cache-control')), /max-age=30/);
    assert.deepEqual(
      {
        total: stats.body.deployments_total,
        online: stats.body.deployments_online,
        bots: stats.body.bots_online_sum,
        sharded: stats.body.deployments_online_sharded,
        workers: stats.body.shard_workers_online_sum,
        ttl: stats.body.online_ttl_sec,
      },
      { total: 3, online: 2, bots: 3, sharded: 1, workers: 3, ttl: 900 },
    );
    assert.equal(stats.body.as_of, new Date(clock.nowMs() - (clock.nowMs() % 1000)).toISOString());
    assert.ok(String(stats.body.as_of).endsWith('Z'));
    assert.deepEqual(stats.body.corpus, {
      contexts_total: 0,
      answers_total: 0,
      enrollments_total: 0,
      contribute_enabled_total: 0,
    });
  });

  it('GET /v1/stats/corpus counts contexts, answers, hits and the enrollments heard from, and names no deployment', async (t) => {
    const clock = new FakeClock(1_700_000_000_000);
    const { client } = await openHub(t, engine, { clock });
    const deploymentId = randomUUID();
    const { corpus_token: token } = await client.enroll(deploymentId);
    await client.enroll(); // a second deployment, enrolled but never heard from
    const contributed = await client.contribute(
      {
        op: 'upsert_answer',
        keywords: '早上 好',
        answer_keywords: '早安',
        answer_time: Math.floor(clock.nowMs() / 1000),
        message: '早安呀',
      },
      token,
    );
    assert.equal(contributed.status, 200);
    assert.equal((await client.context('早上 好', token)).status, 200);
    await client.post('/v1/heartbeat', { deployment_id: deploymentId, ts: Math.floor(clock.nowMs() / 1000) });

    const reply = await client.get('/v1/stats/corpus');
    assert.equal(reply.status, 200);
    assert.equal(reply.body.online_ttl_sec, 900);
    assert.deepEqual(reply.body.corpus, {
      contexts_total: 1,
      answers_total: 1,
      answer_hits_sum: 1,
      enrollments_total: 1,
      enrollments_online: 1,
      enrollments_recent_24h: 1,
      read_enabled_total: 1,
      contribute_enabled_total: 1,
    });
    const text = JSON.stringify((await client.get('/v1/stats')).body) + JSON.stringify(reply.body);
    assert.ok(!text.includes(deploymentId), 'no deployment id in public statistics');
  });
});
