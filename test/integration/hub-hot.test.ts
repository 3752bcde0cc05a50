/**
 * Hot words and heartbeats over real HTTP, on SQLite and PostgreSQL (docs/rules.md#hub-protocol
 * "Hot words", "Heartbeat"; tests/test_corpus_api.py, test_corpus_hot_snapshot.py, test_api.py).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { FakeClock } from '../../src/common/clock.ts';
import { forEachEngine } from '../support/engines.ts';
import { REFUSAL_REASONS } from '../../src/hub/rate-windows.ts';
import { nowSec, openHub, type HubClient } from './hub-support.ts';

type Item = { keywords: string; score: number; answers: { answer_keywords: string; message: string; count: number }[] };

const itemsOf = (body: { items: Item[] }) => body.items;
const labels = (body: { items: Item[] }) => body.items.map((item) => item.keywords);

async function contributeAged(client: HubClient, token: string, keywords: string, ageSec: number, message: string) {
  const reply = await client.contribute(
    {
      op: 'upsert_answer',
      keywords,
      // Answer keywords are a key: a bot extracts them as plain words (a CQ segment there is withheld).
      answer_keywords: message.replace(/\[CQ:[^\]]*\]/g, ''),
      answer_time: nowSec() - ageSec,
      message,
    },
    token,
  );
  assert.equal(reply.status, 200);
}

forEachEngine((engine) => {
  it('recent hot words cover the period; pool covers all time; labels and messages are cleaned', async (t) => {
    const { client } = await openHub(t, engine);
    const token = (await client.enroll()).corpus_token;
    await contributeAged(client, token, 'fresh', 1000, '刚刚');
    await contributeAged(client, token, 'hour-old', 5000, '早啊[CQ:face,id=178]呀');
    await contributeAged(client, token, 'days-old', 200_000, '很久以前');
    await client.contribute(
      { op: 'upsert_answer', keywords: '[CQ:face,id=178]', answer_keywords: 'img', message: '[CQ:image,file=a.jpg]' },
      token,
    );

    const recent = await client.get('/v1/corpus/hot?mode=recent&period=day');
    assert.equal(recent.status, 200);
    assert.equal(recent.headers.get('cache-control'), 'public, max-age=120');
    assert.deepEqual([recent.body.mode, recent.body.period, recent.body.window_sec], ['recent', 'day', 86_400]);
    assert.match(recent.body.as_of, /^\d{4}-\d\d-\d\dT.*Z$/);
    assert.ok(labels(recent.body).includes('fresh'));
    assert.ok(labels(recent.body).includes('hour-old'));
    assert.ok(!labels(recent.body).includes('days-old'));
    const fresh = itemsOf(recent.body).find((item) => item.keywords === 'fresh');
    assert.equal(fresh?.answers[0]?.message, '刚刚');
    const cleaned = itemsOf(recent.body).find((item) => item.keywords === 'hour-old');
    assert.equal(cleaned?.answers[0]?.message, '早啊呀');
    assert.ok(
      itemsOf(recent.body).every((item) => item.keywords !== '' && item.answers.length > 0),
      'no empty label; a CQ-only keyword is not listed',
    );

    const pool = await client.get('/v1/corpus/hot?mode=pool');
    assert.deepEqual([pool.body.mode, pool.body.window_sec], ['pool', 0]);
    assert.ok(labels(pool.body).includes('days-old'));
    assert.equal(labels(pool.body).length, 3, 'the CQ-only context is not listed');

    const week = await client.get('/v1/corpus/hot?mode=recent&period=week');
    assert.deepEqual([week.body.window_sec, labels(week.body).includes('days-old')], [604_800, true]);
    assert.equal((await client.get('/v1/corpus/hot?mode=recent&period=month')).body.window_sec, 2_592_000);
  });

  it('pool ranks by the sum of answer counts, with up to 3 answers each; texts over 100 characters are not stored', async (t) => {
    const { client } = await openHub(t, engine);
    const token = (await client.enroll()).corpus_token;
    const long = '长'.repeat(130);
    await client.contribute(
      {
        op: 'insert',
        context: {
          keywords: 'big',
          answers: [
            { keywords: 'a1', count: 5, messages: [long, '长'.repeat(100)] },
            { keywords: 'a2', count: 4, messages: ['[CQ:image,file=x]', 'second'] },
            { keywords: '[CQ:image,file=y]', count: 3 },
            { keywords: 'a4', count: 2 },
            { keywords: 'a5', count: 1 },
          ],
        },
      },
      token,
    );
    await client.contribute(
      { op: 'insert', context: { keywords: 'small', answers: [{ keywords: 's', count: 2 }] } },
      token,
    );
    const pool = (await client.get('/v1/corpus/hot?mode=pool&limit=5')).body;
    assert.deepEqual(
      itemsOf(pool).map((item) => [item.keywords, item.score]),
      [
        // 5 + 4 + 2 + 1: the answer keyed by an image is not stored at all.
        ['big', 12],
        ['small', 2],
      ],
    );
    assert.deepEqual(itemsOf(pool)[0]?.answers, [
      { answer_keywords: 'a1', message: '长'.repeat(100), count: 5 },
      { answer_keywords: 'a2', message: 'second', count: 4 },
      { answer_keywords: 'a4', message: 'a4', count: 2 },
    ]);
  });

  it('GET /v1/corpus/hot validates mode, period and limit (5..80)', async (t) => {
    const { client } = await openHub(t, engine);
    const cases: [string, string][] = [
      ['limit=4', 'query.limit: must be >= 5'],
      ['limit=81', 'query.limit: must be <= 80'],
      ['limit=ten', 'query.limit: must be integer'],
      ['mode=everything', 'query.mode: expected one of fleet, pool, recent'],
      ['period=year', 'query.period: expected one of day, week, month'],
    ];
    for (const [query, detail] of cases) {
      const reply = await client.get(`/v1/corpus/hot?${query}`);
      assert.deepEqual([reply.status, reply.body], [400, { detail }], query);
    }
    const empty = await client.get('/v1/corpus/hot');
    assert.deepEqual([empty.status, empty.body.mode, empty.body.period, empty.body.items], [200, 'fleet', 'day', []]);
  });

  it('a heartbeat carrying corpus_hot_snapshot feeds fleet hot words (answers empty)', async (t) => {
    const { client } = await openHub(t, engine);
    const deploymentId = randomUUID();
    const heartbeat = await client.post('/v1/heartbeat', {
      deployment_id: deploymentId,
      ts: nowSec(),
      version: '0.1.0',
      online_bots: 2,
      catalog_bots: 3,
      sharded: false,
      shard_workers: null,
      roster_public: true,
      roster: [{ qq: 123456789, nickname: 'nick', online: true, message_weight: 1 }],
      corpus_hot_snapshot: {
        as_of: nowSec() - 100,
        items: [
          { keywords: '你好', score: 12 },
          { keywords: '晚安', score: 8.7 },
          { keywords: '[CQ:face,id=1]', score: 99 },
        ],
      },
    });
    assert.equal(heartbeat.status, 200);
    assert.equal(heartbeat.body.ok, true);
    assert.ok(Math.abs(heartbeat.body.server_ts - nowSec()) <= 2);
    const other = randomUUID();
    await client.post('/v1/heartbeat', {
      deployment_id: other,
      corpus_hot_snapshot: { items: [{ keywords: '晚安', score: 10 }] },
    });
    const fleet = await client.get('/v1/corpus/hot?mode=fleet&limit=10');
    assert.deepEqual([fleet.status, fleet.body.mode, fleet.body.window_sec], [200, 'fleet', 86_400]);
    assert.deepEqual(
      itemsOf(fleet.body).map((item) => [item.keywords, item.score]),
      [
        ['晚安', 18],
        ['你好', 12],
      ],
    );
    assert.deepEqual(itemsOf(fleet.body)[0]?.answers, []);
  });

  it('POST /v1/corpus/hot replaces the deployment snapshot, at most 40 items, once a minute', async (t) => {
    const clock = new FakeClock(1_700_000_000_000);
    const { client, rows } = await openHub(t, engine, { clock });
    const token = (await client.enroll()).corpus_token;
    const upload = (items: { keywords: string; score: number }[]) =>
      client.post('/v1/corpus/hot', { as_of: 1_700_000_000, items }, token);
    const first = await upload([
      { keywords: 'a', score: 3 },
      { keywords: 'b', score: -5 },
    ]);
    assert.deepEqual([first.status, first.body], [200, { ok: true, items: 2 }]);
    const again = await upload([{ keywords: 'c', score: 1 }]);
    assert.deepEqual([again.status, again.headers.get('retry-after')], [429, '60']);
    clock.advance(60_000);
    assert.equal((await upload([{ keywords: 'c', score: 1 }])).status, 200);
    assert.deepEqual(
      (await rows('hub_hot_snapshot')).map((row) => row.keywords),
      ['c'],
      'replaced wholesale',
    );
    const tooMany = await upload(Array.from({ length: 41 }, (_, i) => ({ keywords: `k${i}`, score: i })));
    assert.deepEqual([tooMany.status, tooMany.body], [400, { detail: 'body.items: must not have more than 40 items' }]);
    assert.equal((await client.post('/v1/corpus/hot', { items: [] })).status, 401);
  });

  it('heartbeat validation: UUID, bounds, clock skew', async (t) => {
    const { client } = await openHub(t, engine);
    const cases: [object, string][] = [
      [{ deployment_id: 'abc' }, 'body.deployment_id: expected a UUID'],
      [{}, 'body.deployment_id: required'],
      [{ deployment_id: randomUUID(), online_bots: 10_001 }, 'body.online_bots: must be <= 10000'],
      [{ deployment_id: randomUUID(), version: 'v'.repeat(65) }, 'body.version: must not have more than 64 characters'],
      [{ deployment_id: randomUUID(), shard_workers: 'many' }, 'body.shard_workers: expected integer or null'],
      [
        { deployment_id: randomUUID(), ts: nowSec() - 301 },
        'body.ts: skew too large (more than 300 s from the hub clock)',
      ],
      [
        { deployment_id: randomUUID(), corpus_hot_snapshot: { items: 'x' } },
        'body.corpus_hot_snapshot.items: must be array',
      ],
    ];
    for (const [body, detail] of cases) {
      const reply = await client.post('/v1/heartbeat', body);
      assert.deepEqual([reply.status, reply.body], [400, { detail }], JSON.stringify(body));
    }
  });

  it('open heartbeats are limited per deployment interval and per address; the roster is never stored', async (t) => {
    const clock = new FakeClock(1_700_000_000_000);
    const { client, dump } = await openHub(t, engine, {
      clock,
      heartbeatMinIntervalSec: 60,
      heartbeatPerIpPerMinute: 3,
    });
    const id = randomUUID();
    const beat = (deploymentId = id) =>
      client.post('/v1/heartbeat', { deployment_id: deploymentId, roster: [{ qq: 987654321, nickname: 'Nick' }] });
    assert.equal((await beat()).status, 200);
    const soon = await beat();
    assert.deepEqual([soon.status, soon.headers.get('retry-after')], [429, '60']);
    assert.equal((await beat(randomUUID())).status, 200);
    const address = await beat(randomUUID());
    assert.deepEqual([address.status, address.body.detail], [429, 'heartbeat limit reached: 3 per minute']);
    clock.advance(60_000);
    assert.equal((await beat()).status, 200);
    const stored = await dump();
    assert.equal(stored.includes('987654321'), false);
    assert.equal(stored.includes('Nick'), false);
  });

  it('with a heartbeat token: 401 without or with a wrong Bearer, 200 with it, no rate limit', async (t) => {
    const { client } = await openHub(t, engine, { heartbeatToken: 'beat-secret' });
    const body = { deployment_id: randomUUID() };
    const missing = await client.post('/v1/heartbeat', body);
    assert.deepEqual([missing.status, missing.body], [401, { detail: 'missing bearer token' }]);
    assert.equal((await client.post('/v1/heartbeat', body, 'wrong')).status, 401);
    for (let i = 0; i < 3; i++) {
      const ok = await client.post('/v1/heartbeat', body, 'beat-secret');
      assert.equal(ok.status, 200);
      assert.equal(ok.body.ok, true);
      assert.equal(typeof ok.body.server_ts, 'number');
    }
  });

  it('GET /health', async (t) => {
    const { client } = await openHub(t, engine);
    const health = await client.get('/health');
    assert.deepEqual(
      [health.status, health.body],
      [
        200,
        {
          status: 'ok',
          withheld: { withheld_cq_keywords: 0, withheld_number: 0, withheld_empty: 0, withheld_too_long: 0 },
          refused: Object.fromEntries(REFUSAL_REASONS.map((reason) => [reason, 0])),
        },
      ],
    );
  });
});
