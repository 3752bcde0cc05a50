/**
 * The community HTTP source against a loopback hub (docs/rules.md#community-http):
 * fail-over over bases, 404 / non-object = no result, 401 = re-enrollment, contribute statuses,
 * the bodies on the wire, usage, timeouts.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  CommunityClient,
  type AuthFailureSource,
  type CommunityClientOptions,
} from '../../../src/community/community-client.ts';
import { TransportError } from '../../../src/community/http.ts';
import { silentLog } from '../../../src/common/log.ts';
import { blackHole, closedPort, FakeHub } from './fake-hub.ts';

const TIMEOUTS = { readMs: 2000, contributeMs: 2000, usageMs: 2000 };

function client(bases: string[], token: string, more: Partial<CommunityClientOptions> = {}) {
  const auth: AuthFailureSource[] = [];
  const instance = new CommunityClient({
    bases,
    token,
    timeouts: () => TIMEOUTS,
    onAuthFailure: (source) => {
      auth.push(source);
    },
    log: silentLog,
    now: () => performance.now(),
    ...more,
  });
  return { client: instance, auth };
}

const LEARN = {
  keywords: '早上好',
  groupId: 123456,
  answerKeywords: '早',
  answerTime: 1_700_000_000,
  message: '早啊',
  appendOnExisting: true,
};

describe('community client', () => {
  let hub: FakeHub;
  let second: FakeHub;
  let token: string;
  let refused: string;

  before(async () => {
    hub = await FakeHub.start();
    second = await FakeHub.start();
    refused = await closedPort();
  });
  after(async () => {
    await hub.close();
    await second.close();
  });
  beforeEach(() => {
    for (const h of [hub, second]) {
      h.requests.length = 0;
      h.override = undefined;
      h.contexts.clear();
      h.policy = { read: true, contribute: true };
    }
    token = hub.issue();
    second.tokens.set(token, 'same');
  });

  it('fails over on a transport error: the second base /context is called, in order', async () => {
    second.seed({ keywords: 'hi', time: 5, trigger_count: 2, answers: [] });
    const urls: string[] = [];
    const { client: c } = client([`${refused}/v1/corpus`, second.apiBase], token, {
      fetch: (input, init) => {
        urls.push(String(input));
        return fetch(input, init);
      },
    });
    const found = await c.findByKeywords('hi');
    assert.deepEqual(urls, [`${refused}/v1/corpus/context?keywords=hi`, `${second.apiBase}/context?keywords=hi`]);
    assert.equal(found?.keywords, 'hi');
    assert.equal(found?.triggerCount, 2);
    assert.deepEqual(
      second.to('/v1/corpus/context').map((r) => r.query.get('keywords')),
      ['hi'],
    );
    assert.equal(c.counters.readFailovers, 1);
  });

  it('fails over on a non-200/404 status, in base order', async () => {
    hub.override = (request) => (request.path.endsWith('/context') ? { status: 500, body: {} } : undefined);
    second.seed({ keywords: 'k', time: 1, trigger_count: 1, answers: [] });
    const { client: c } = client([hub.apiBase, second.apiBase], token);
    assert.equal((await c.findByKeywords('k'))?.keywords, 'k');
    assert.equal(hub.to('/v1/corpus/context').length, 1);
    assert.equal(second.to('/v1/corpus/context').length, 1);
  });

  it('404 is no result and does not try the next base', async () => {
    const { client: c } = client([hub.apiBase, second.apiBase], token);
    assert.equal(await c.findByKeywords('missing'), null);
    assert.equal(second.requests.length, 0);
  });

  it('a non-object body is no result', async () => {
    for (const raw of ['[1,2]', '"text"', 'null', 'not json', '']) {
      hub.override = () => ({ status: 200, raw });
      const { client: c } = client([hub.apiBase, second.apiBase], token);
      assert.equal(await c.findByKeywords('k'), null, raw);
    }
    assert.equal(second.requests.length, 0);
  });

  it('parses a context leniently (docs/rules.md#community-http)', async () => {
    hub.override = () => ({
      status: 200,
      body: {
        keywords: 'k',
        count: 7,
        answers: [
          { keywords: 'a', messages: ['m1', null, 2] },
          'junk',
          { keywords: 'b', group_id: 0, count: 3, time: 9, messages: [] },
        ],
        ban: [{ keywords: 'x' }, 5],
      },
    });
    const { client: c } = client([hub.apiBase], token);
    assert.deepEqual(await c.findByKeywords('  k  '), {
      keywords: 'k',
      time: 0,
      triggerCount: 7,
      clearTime: 0,
      answers: [
        { keywords: 'a', groupId: 0, count: 1, time: 0, messages: ['m1', '2'] },
        { keywords: 'b', groupId: 0, count: 3, time: 9, messages: [] },
      ],
      bans: [{ keywords: 'x', groupId: 0, reason: '', time: 0 }],
    });
    assert.equal(hub.to('/v1/corpus/context')[0]?.query.get('keywords'), 'k', 'the key is trimmed');
    assert.equal(hub.to('/v1/corpus/context')[0]?.authorization, `Bearer ${token}`);
  });

  it('every base failing in transport throws the last error', async () => {
    const other = await closedPort();
    const { client: c } = client([`${refused}/v1/corpus`, `${other}/v1/corpus`], token);
    await assert.rejects(c.findByKeywords('k'), (error: unknown) => {
      assert.ok(error instanceof TransportError);
      assert.match(error.message, new RegExp(other.replace(/[.:/]/g, '.')));
      assert.doesNotMatch(error.message, new RegExp(token));
      return true;
    });
  });

  it('a 401 on a read schedules re-enrollment and answers no result', async () => {
    const { client: c, auth } = client([hub.apiBase, second.apiBase], 'stale-token');
    assert.equal(await c.findByKeywords('k'), null);
    assert.deepEqual(auth, ['read']);
    assert.equal(second.requests.length, 0, 'a 401 ends the read');
  });

  it('empty keys and no bases answer null without a request; non-http bases are skipped', async () => {
    const { client: c } = client(['ftp://nope', hub.apiBase], token);
    assert.deepEqual(c.bases, [hub.apiBase]);
    assert.equal(await c.findByKeywords('   '), null);
    assert.equal(hub.requests.length, 0);
    const { client: none } = client([], token);
    assert.equal(await none.findByKeywords('k'), null);
  });

  it('a black-holed base times out as a transport error, then fails over', async () => {
    const hole = await blackHole();
    try {
      second.seed({ keywords: 'k', time: 1, trigger_count: 1, answers: [] });
      const { client: c } = client([`${hole.url}/v1/corpus`, second.apiBase], token, {
        timeouts: () => ({ ...TIMEOUTS, readMs: 200 }),
      });
      const started = Date.now();
      assert.equal((await c.findByKeywords('k'))?.keywords, 'k');
      assert.ok(Date.now() - started < 1500);
    } finally {
      await hole.close();
    }
  });

  it('contribute: 200 and 202 are success; group 0 and no bans on the wire', async () => {
    const { client: c } = client([hub.apiBase], token);
    assert.equal(await c.upsertAnswer(LEARN), 'ok');
    assert.deepEqual(hub.to('/v1/corpus/contribute')[0]?.body, {
      op: 'upsert_answer',
      keywords: '早上好',
      group_id: 0,
      answer_keywords: '早',
      answer_time: 1_700_000_000,
      message: '早啊',
      append_on_existing: true,
    });
    hub.override = () => ({ status: 202 });
    assert.equal(
      await c.insert({
        keywords: 'k',
        time: 3,
        triggerCount: 2,
        clearTime: 0,
        answers: [{ keywords: 'a', groupId: 99, count: 2, time: 3, messages: ['m'] }],
        bans: [{ keywords: 'a', groupId: 99, reason: '5', time: 1 }],
      }),
      'ok',
    );
    assert.deepEqual(hub.to('/v1/corpus/contribute')[1]?.body, {
      op: 'insert',
      context: {
        keywords: 'k',
        time: 3,
        trigger_count: 2,
        clear_time: 0,
        answers: [{ keywords: 'a', group_id: 0, count: 2, time: 3, messages: ['m'] }],
        ban: [],
      },
    });
    assert.equal(c.counters.contributeOk, 2);
  });

  it('contribute: 401 and 403 schedule re-enrollment and try the next base', async () => {
    for (const status of [401, 403]) {
      hub.override = () => ({ status });
      second.override = undefined;
      const { client: c, auth } = client([hub.apiBase, second.apiBase], token);
      assert.equal(await c.upsertAnswer(LEARN), 'ok', `${status} then the second base`);
      assert.deepEqual(auth, ['contribute']);
      second.override = () => ({ status });
      const { client: d, auth: auth2 } = client([hub.apiBase, second.apiBase], token);
      assert.equal(await d.upsertAnswer(LEARN), 'auth');
      assert.deepEqual(auth2, ['contribute', 'contribute']);
    }
  });

  it('contribute: another status tries the next base; all refusing is "rejected", not an error', async () => {
    hub.override = () => ({ status: 500 });
    second.override = () => ({ status: 503 });
    const { client: c, auth } = client([hub.apiBase, second.apiBase], token);
    assert.equal(await c.upsertAnswer(LEARN), 'rejected');
    assert.deepEqual(auth, []);
    assert.equal(hub.to('/v1/corpus/contribute').length + second.to('/v1/corpus/contribute').length, 2);
  });

  it('contribute: transport errors on every base throw the last one', async () => {
    const { client: c } = client([`${refused}/v1/corpus`], token);
    await assert.rejects(c.upsertAnswer(LEARN), TransportError);
    const { client: d } = client([`${refused}/v1/corpus`, hub.apiBase], token);
    assert.equal(await d.upsertAnswer(LEARN), 'ok', 'a later base accepting wins');
  });

  it('usage: parsed figures; 401 awaits the refresh and gives null; failures fall through to null', async () => {
    const { client: c } = client([hub.apiBase], token);
    hub.usage = { read_lookups: 4, read_hits: 2, contribute_ok: 1 };
    assert.deepEqual(await c.usage(), {
      read_lookups: 4,
      read_hits: 2,
      contribute_ok: 1,
      updated_at: 1_700_000_000,
      source: 'community_stats',
    });
    let refreshed = false;
    const { client: stale } = client([hub.apiBase], 'stale', {
      onAuthFailure: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        refreshed = true;
      },
    });
    assert.equal(await stale.usage(), null);
    assert.equal(refreshed, true, 'the usage 401 waits for the re-enrollment');
    hub.override = () => ({ status: 200, raw: '[]' });
    second.usage = { read_lookups: 1, read_hits: 0, contribute_ok: 0 };
    const { client: d } = client([hub.apiBase, second.apiBase], token);
    assert.equal((await d.usage())?.read_lookups, 1, 'a non-object tries the next base');
    const { client: e } = client([`${refused}/v1/corpus`], token);
    assert.equal(await e.usage(), null);
  });
});
