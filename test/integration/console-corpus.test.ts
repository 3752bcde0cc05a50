/**
 * Corpus read routes over a real port: the status snapshot and its cache, local hot keywords, and
 * community hot words read from a hub on loopback (a stand-in speaking the hub's public
 * GET /v1/corpus/hot until the hub issue lands).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it, type TestContext } from 'node:test';
import { FakeClock } from '../../src/common/clock.ts';
import { dataOf, READ_TOKEN, startHarness, WRITE_TOKEN } from '../unit/console/harness.ts';

interface HotWords {
  mode: string;
  period: string;
  window_sec: number;
  as_of: string;
  items: { keywords: string; score: number; answers: { answer_keywords: string; message: string; count: number }[] }[];
}

async function fakeHub(
  t: TestContext,
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<{ base: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(request.url ?? '');
    handler(request, response);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}/v1/corpus`, requests };
}

const HUB_BODY = {
  mode: 'fleet',
  period: 'day',
  window_sec: 86400,
  as_of: '2026-11-22T10:00:00Z',
  items: [{ keywords: '你好', score: 12, answers: [{ answer_keywords: '早', message: '早上好', count: 5 }], extra: 1 }],
};

describe('GET /api/corpus-status', () => {
  it('serves the status snapshot, cached 15 s and refreshed after a config save', async (t) => {
    const clock = new FakeClock(Date.now());
    const h = await startHarness(t, { clock });
    const first = dataOf<{
      as_of: number;
      remote_find_mode: string;
      deployment: unknown;
      sources: { community: { usage: unknown } };
    }>(await h.request('GET', '/corpus-status', { token: READ_TOKEN }));
    assert.equal(first.remote_find_mode, 'off');
    // The community side's deployment: an id kept in data/community-stats.json, no hub configured.
    const deployment = first.deployment as {
      deployment_id: unknown;
      community_stats_enabled: unknown;
      heartbeat_endpoint: unknown;
    };
    assert.match(String(deployment.deployment_id), /^[0-9a-f-]{36}$/);
    assert.deepEqual([deployment.community_stats_enabled, deployment.heartbeat_endpoint], [true, '']);
    assert.equal(first.sources.community.usage, null);
    clock.advance(10_000);
    const cached = dataOf<{ as_of: number }>(await h.request('GET', '/corpus-status', { token: READ_TOKEN }));
    assert.equal(cached.as_of, first.as_of, 'within the TTL');
    dataOf(
      await h.request('PUT', '/plugins/core/config', {
        token: WRITE_TOKEN,
        body: { values: { remote_find_enabled: 'sync' } },
      }),
    );
    const after = dataOf<{ remote_find_mode: string; as_of: number }>(
      await h.request('GET', '/corpus-status', { token: READ_TOKEN }),
    );
    assert.equal(after.remote_find_mode, 'sync', 'the save dropped the cached snapshot');
    assert.equal(after.as_of, first.as_of + 10);
  });
});

describe('GET /api/corpus-status for a community that can never enroll', () => {
  const WANTED = { CHORUS_CORPUS_COMMUNITY_ENABLED: 'true', CHORUS_CORPUS_AUTO_ENROLL: 'true' };
  const cases = [
    {
      what: 'a manual API base without a token and no hub endpoint',
      env: { ...WANTED, CHORUS_CORPUS_COMMUNITY_API_BASE: 'http://127.0.0.1:9/v1/corpus' },
      hint: { code: 'manual_token_missing', keys: ['CHORUS_CORPUS_COMMUNITY_TOKEN'] },
    },
    {
      what: 'a hub endpoint with statistics reporting off',
      env: {
        ...WANTED,
        CHORUS_COMMUNITY_STATS_ENDPOINT: 'http://127.0.0.1:9/v1/heartbeat',
        CHORUS_COMMUNITY_STATS_ENABLED: 'false',
      },
      hint: { code: 'stats_disabled', keys: ['CHORUS_COMMUNITY_STATS_ENABLED'] },
    },
  ];
  for (const { what, env, hint } of cases) {
    it(`${what}: not active, a hint naming what is missing, nothing queued for a mirror`, async (t) => {
      const h = await startHarness(t, { env });
      const status = dataOf<{
        composite_active: boolean;
        sources: { community: { wanted: boolean; enabled: boolean; writable: boolean; hint: unknown } };
      }>(await h.request('GET', '/corpus-status', { token: READ_TOKEN }));
      assert.equal(status.composite_active, false);
      const { community } = status.sources;
      assert.deepEqual([community.wanted, community.enabled, community.writable], [true, false, false]);
      assert.deepEqual(community.hint, hint);
      await h.runtime.composite.learnAnswer({
        keywords: '你好',
        groupId: 1,
        answerKeywords: '早',
        answerTime: 100,
        message: '早',
        appendOnExisting: true,
      });
      assert.equal(h.runtime.mirror.counters.queued, 0, 'no mirror item for a hub that will never be enrolled with');
    });
  }
});

describe('GET /api/local-corpus-hot', () => {
  it('answers the pool payload with items from the store', async (t) => {
    const h = await startHarness(t);
    for (const [keywords, answer, groupId] of [
      ['你好', '早', 1],
      ['你好', '早', 2],
      ['你好', '晚', 1],
      ['吃了吗', '吃了', 1],
    ] as const) {
      await h.store.corpus.learnAnswer({
        keywords,
        groupId,
        answerKeywords: answer,
        answerTime: 100,
        message: `[CQ:face,id=1]${answer}`,
        appendOnExisting: true,
      });
    }
    const hot = dataOf<HotWords>(await h.request('GET', '/local-corpus-hot', { token: READ_TOKEN }));
    assert.deepEqual([hot.mode, hot.period, hot.window_sec], ['pool', 'day', 0]);
    assert.match(hot.as_of, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(hot.items[0]?.keywords, '你好');
    assert.ok(hot.items.every((item) => item.answers.every((answer) => !answer.message.includes('[CQ:'))));
    const group = dataOf<HotWords>(
      await h.request('GET', '/local-corpus-hot', {
        token: READ_TOKEN,
        query: { scope: 'group', group_id: '2', limit: '5' },
      }),
    );
    assert.deepEqual(
      group.items.map((item) => item.keywords),
      ['你好'],
    );
  });

  it('refuses bad parameters naming them', async (t) => {
    const h = await startHarness(t);
    const cases: [Record<string, string>, RegExp][] = [
      [{ scope: 'group' }, /query\.group_id: required when scope is group/],
      [{ limit: '4' }, /query\.limit/],
      [{ limit: '81' }, /query\.limit/],
      [{ limit: 'ten' }, /query\.limit/],
      [{ scope: 'everywhere' }, /query\.scope/],
      [{ scope: 'group', group_id: '1.5' }, /query\.group_id/],
    ];
    for (const [query, detail] of cases) {
      const reply = await h.request('GET', '/local-corpus-hot', { token: READ_TOKEN, query });
      assert.equal(reply.status, 400, JSON.stringify(query));
      assert.match((reply.json as { detail: string }).detail, detail);
    }
  });
});

describe('GET /api/community-corpus-hot', () => {
  it("reads the hub's public /v1/corpus/hot and caches it for 120 s", async (t) => {
    const hub = await fakeHub(t, (_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(HUB_BODY));
    });
    const clock = new FakeClock(Date.now());
    const h = await startHarness(t, { clock, env: { CHORUS_CORPUS_COMMUNITY_API_BASE: `${hub.base}/` } });
    const hot = dataOf<HotWords>(
      await h.request('GET', '/community-corpus-hot', {
        token: READ_TOKEN,
        query: { mode: 'recent', period: 'week', limit: '10' },
      }),
    );
    assert.deepEqual(hot.items, [
      { keywords: '你好', score: 12, answers: [{ answer_keywords: '早', message: '早上好', count: 5 }] },
    ]);
    assert.deepEqual(hub.requests, ['/v1/corpus/hot?mode=recent&period=week&limit=10']);
    clock.advance(100_000);
    await h.request('GET', '/community-corpus-hot', {
      token: READ_TOKEN,
      query: { mode: 'recent', period: 'week', limit: '10' },
    });
    assert.equal(hub.requests.length, 1, 'served from the cache');
    await h.request('GET', '/community-corpus-hot', { token: READ_TOKEN });
    assert.equal(hub.requests.at(-1), '/v1/corpus/hot?mode=fleet&period=day&limit=40');
  });

  it('409 without a hub; 502 naming the reason when the hub fails', async (t) => {
    const none = await startHarness(t);
    const missing = await none.request('GET', '/community-corpus-hot', { token: READ_TOKEN });
    assert.equal(missing.status, 409);
    assert.match((missing.json as { detail: string }).detail, /no community hub is configured/);

    const broken = await fakeHub(t, (_request, response) => {
      response.statusCode = 500;
      response.end('boom');
    });
    const h500 = await startHarness(t, { env: { CHORUS_CORPUS_COMMUNITY_API_BASE: broken.base } });
    const failed = await h500.request('GET', '/community-corpus-hot', { token: READ_TOKEN });
    assert.deepEqual(
      [failed.status, (failed.json as { detail: string }).detail],
      [502, 'community hub answered HTTP 500'],
    );

    // Expected upstream failures are news once: one warn line, no stack, not one error per request.
    for (let i = 0; i < 4; i++) await h500.request('GET', '/community-corpus-hot', { token: READ_TOKEN });
    const failingLines = h500
      .logs()
      .split('\n')
      .filter((line) => line.includes('community hub answered HTTP 500'));
    assert.equal(failingLines.length, 1, failingLines.join('\n'));
    assert.match(failingLines[0] ?? '', /"level":40/);
    assert.doesNotMatch(failingLines[0] ?? '', /stack/);

    const silent = await fakeHub(t, () => undefined);
    const slow = await startHarness(t, {
      env: { CHORUS_CORPUS_COMMUNITY_API_BASE: silent.base, CHORUS_CORPUS_REMOTE_TIMEOUT_SEC: '0.5' },
    });
    const timedOut = await slow.request('GET', '/community-corpus-hot', { token: READ_TOKEN });
    assert.equal(timedOut.status, 502);
    assert.match((timedOut.json as { detail: string }).detail, /unreachable: no answer within/);

    const closed = await fakeHub(t, (request) => request.socket.destroy());
    const reset = await startHarness(t, { env: { CHORUS_CORPUS_COMMUNITY_API_BASE: closed.base } });
    const refused = await reset.request('GET', '/community-corpus-hot', { token: READ_TOKEN });
    assert.equal(refused.status, 502);
    assert.match((refused.json as { detail: string }).detail, /community hub unreachable/);

    const shaped = await fakeHub(t, (_request, response) => response.end('{"hello":1}'));
    const odd = await startHarness(t, { env: { CHORUS_CORPUS_COMMUNITY_API_BASE: shaped.base } });
    const unexpected = await odd.request('GET', '/community-corpus-hot', { token: READ_TOKEN });
    assert.deepEqual(
      [unexpected.status, (unexpected.json as { detail: string }).detail],
      [502, 'community hub answered with an unexpected shape'],
    );
  });
});
