/**
 * The community hub over real HTTP, on SQLite and PostgreSQL: enrollment and token rotation,
 * contributions and their merge rules, reads, usage counting and de-identification (docs/rules.md#hub-protocol, #deidentify).
 */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { forEachEngine } from '../support/engines.ts';
import { openHub } from './hub-support.ts';

const API_BASE = 'https://hub.example/v1/corpus';

forEachEngine((engine) => {
  it('enroll issues a pc_ token stored only as its SHA-256, with the configured api_base and policy', async (t) => {
    const { client, dump, rows } = await openHub(t, engine, { publicApiBase: `${API_BASE}/` });
    const id = randomUUID().toUpperCase();
    const reply = await client.post('/v1/corpus/enroll', { deployment_id: id, display_name: 'ignored' });
    assert.equal(reply.status, 200);
    const body = reply.body;
    assert.match(body.corpus_token, /^pc_[A-Za-z0-9_-]{40,}$/);
    assert.equal(body.api_base, API_BASE);
    assert.equal(body.deployment_id, id.toLowerCase());
    assert.equal(typeof body.enrolled_at, 'number');
    assert.equal('expires_at' in body, false, 'no expiry by default');
    assert.deepEqual(body.policy, {
      read: true,
      contribute: true,
      merge_strategy: 'local_first',
      read_per_minute: 120,
      contributions_per_day: 100_000,
      read_rpm: 120,
      contribute_per_day: 100_000,
    });
    const stored = await rows('hub_deployment');
    assert.equal(stored.length, 1);
    assert.equal(stored[0]?.token_hash, createHash('sha256').update(body.corpus_token).digest('hex'));
    assert.equal((await dump()).includes(body.corpus_token), false, 'the token itself is never stored');
  });

  it('api_base defaults to the request host; enroll validates deployment_id', async (t) => {
    const { client, hub } = await openHub(t, engine);
    const enrolled = await client.post('/v1/corpus/enroll', { deployment_id: randomUUID() });
    assert.equal(enrolled.body.api_base, `http://127.0.0.1:${hub.port}/v1/corpus`);
    const bad = await client.post('/v1/corpus/enroll', { deployment_id: 'not-a-uuid' });
    assert.deepEqual([bad.status, bad.body], [400, { detail: 'body.deployment_id: expected a UUID' }]);
    const missing = await client.post('/v1/corpus/enroll', {});
    assert.deepEqual([missing.status, missing.body], [400, { detail: 'body.deployment_id: required' }]);
  });

  it('re-enrolling with the current token as Bearer rotates it: the old one gets 401 at once, usage survives', async (t) => {
    const { client, rows } = await openHub(t, engine);
    const id = randomUUID();
    const first = await client.enroll(id);
    await client.contribute({ op: 'upsert_answer', keywords: 'k', answer_keywords: 'a' }, first.corpus_token);
    assert.equal((await client.context('k', first.corpus_token)).status, 200);
    const rotated = await client.post('/v1/corpus/enroll', { deployment_id: id.toUpperCase() }, first.corpus_token);
    assert.equal(rotated.status, 200);
    const second = rotated.body as { corpus_token: string };
    assert.notEqual(second.corpus_token, first.corpus_token);
    const old = await client.context('k', first.corpus_token);
    assert.deepEqual([old.status, old.body], [401, { detail: 'invalid or expired corpus token' }]);
    assert.equal((await client.get('/v1/corpus/usage', first.corpus_token)).status, 401);
    assert.equal((await client.context('k', second.corpus_token)).status, 200);
    const usage = await client.get('/v1/corpus/usage', second.corpus_token);
    assert.deepEqual(
      [usage.body.read_lookups, usage.body.read_hits, usage.body.contribute_ok],
      [2, 2, 1],
      'counters are keyed by deployment, not token',
    );
    assert.equal((await rows('hub_deployment')).length, 1, 'one row per deployment');
  });

  it('usage counts lookups, hits and contributions as the origin does', async (t) => {
    const { client } = await openHub(t, engine);
    const id = randomUUID();
    const { corpus_token: token } = await client.enroll(id.toUpperCase());
    const fresh = await client.get('/v1/corpus/usage', token);
    assert.deepEqual(fresh.body, {
      deployment_id: id,
      read_lookups: 0,
      read_hits: 0,
      contribute_ok: 0,
      updated_at: null,
    });
    assert.equal((await client.context('unknown', token)).status, 404);
    const afterMiss = (await client.get('/v1/corpus/usage', token)).body;
    assert.deepEqual([afterMiss.read_lookups, afterMiss.read_hits], [1, 0]);
    assert.equal(typeof afterMiss.updated_at, 'number');
    const contributed = await client.contribute(
      { op: 'upsert_answer', keywords: '早上好', answer_keywords: '早', message: '早' },
      token,
    );
    assert.deepEqual([contributed.status, contributed.body], [200, { ok: true, accepted: true }]);
    assert.equal((await client.context('早上好', token)).status, 200);
    const usage = (await client.get('/v1/corpus/usage', token)).body;
    assert.deepEqual([usage.read_lookups, usage.read_hits, usage.contribute_ok, usage.deployment_id], [2, 1, 1, id]);
  });

  it('upsert_answer then read: the context echoes keywords, one answer, group 0, the message', async (t) => {
    const { client } = await openHub(t, engine);
    const { corpus_token: token } = await client.enroll();
    assert.equal((await client.context('晚安', token)).status, 404);
    await client.contribute(
      { op: 'upsert_answer', keywords: '晚安', answer_keywords: '好梦', answer_time: 1_700_000_000, message: '好梦' },
      token,
    );
    const reply = await client.context('  晚安 ', token);
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, {
      keywords: '晚安',
      time: 1_700_000_000,
      trigger_count: 1,
      clear_time: 0,
      answers: [{ keywords: '好梦', group_id: 0, count: 1, time: 1_700_000_000, messages: ['好梦'] }],
      ban: [],
    });
    assert.equal((await client.context('晚安!', token)).status, 404, 'keys match exactly');
  });

  it('upsert_answer counts: +1 per upsert, a message appended once, append_on_existing=false keeps the list', async (t) => {
    const { client } = await openHub(t, engine);
    const { corpus_token: token } = await client.enroll();
    const upsert = (extra: object) =>
      client.contribute({ op: 'upsert_answer', keywords: 'k', answer_keywords: 'a', ...extra }, token);
    await upsert({ message: 'm1', append_on_existing: false, answer_time: 100 });
    await upsert({ message: 'm1', answer_time: 200 });
    await upsert({ message: 'm2', answer_time: 300 });
    await upsert({ message: 'm3', append_on_existing: false, answer_time: 400 });
    await upsert({ message: '[CQ:image,file=x.jpg]', answer_time: 500 });
    await upsert({ answer_keywords: 'b', answer_time: 600 });
    const body = (await client.context('k', token)).body;
    assert.equal(body.trigger_count, 6);
    assert.equal(body.time, 600);
    assert.deepEqual(body.answers, [
      { keywords: 'a', group_id: 0, count: 5, time: 500, messages: ['m1', 'm2'] },
      { keywords: 'b', group_id: 0, count: 1, time: 600, messages: [] },
    ]);
  });

  it('insert: new answers keep their count, existing ones get the given count, messages unite', async (t) => {
    const { client } = await openHub(t, engine);
    const { corpus_token: token } = await client.enroll();
    for (let i = 0; i < 3; i++) {
      await client.contribute({ op: 'upsert_answer', keywords: 'k', answer_keywords: 'a', message: `m${i}` }, token);
    }
    const inserted = await client.contribute(
      {
        op: 'insert',
        context: {
          keywords: 'k',
          time: 1000,
          answers: [
            { keywords: 'a', count: 2, time: 900, messages: ['m1', 'x'] },
            { keywords: 'b', count: 7, time: 800, messages: ['b1', '', '[CQ:face,id=1]', 'b1'] },
          ],
        },
      },
      token,
    );
    assert.deepEqual([inserted.status, inserted.body], [200, { ok: true, accepted: true }]);
    const body = (await client.context('k', token)).body;
    assert.equal(body.trigger_count, 3, 'max(old 3, answers 2)');
    assert.equal(body.time, 1000);
    assert.deepEqual(body.answers, [
      { keywords: 'b', group_id: 0, count: 7, time: 800, messages: ['b1'] },
      { keywords: 'a', group_id: 0, count: 2, time: 900, messages: ['m0', 'm1', 'm2', 'x'] },
    ]);
    await client.contribute({ op: 'insert', context: { keywords: 'fresh' } }, token);
    const fresh = (await client.context('fresh', token)).body;
    assert.deepEqual([fresh.trigger_count, fresh.answers], [1, []]);
  });

  it('messages are cleaned on write: CQ segments removed, whitespace collapsed, empty ones dropped', async (t) => {
    const { client } = await openHub(t, engine);
    const { corpus_token: token } = await client.enroll();
    await client.contribute(
      { op: 'upsert_answer', keywords: '早', answer_keywords: '早啊呀', message: '早啊[CQ:face,id=178]呀' },
      token,
    );
    await client.contribute(
      {
        op: 'insert',
        context: {
          keywords: '早',
          answers: [{ keywords: '早啊呀', messages: ['  a \n\t b  ', '\u0000[CQ:image,file=1]'] }],
        },
      },
      token,
    );
    const body = (await client.context('早', token)).body;
    assert.deepEqual(body.answers[0].messages, ['早啊呀', 'a b']);
  });

  it('never stores group or user numbers, ban lists or reasons; group_id is always 0', async (t) => {
    const { client, dump } = await openHub(t, engine);
    const { corpus_token: token } = await client.enroll();
    await client.contribute(
      {
        op: 'upsert_answer',
        keywords: 'hello',
        answer_keywords: 'hi',
        message: 'hi',
        group_id: 12345,
        user_id: 67890,
        sender: { user_id: 67890, nickname: 'Secret Nick' },
      },
      token,
    );
    await client.contribute(
      {
        op: 'insert',
        group_id: 12345,
        context: {
          keywords: 'hello',
          trigger_count: 99,
          clear_time: 424242,
          group_ids: [12345, 23456],
          answers: [{ keywords: 'yo', group_id: 12345, user_id: 67890, count: 2, messages: ['yo'] }],
          ban: [{ keywords: 'hi', group_id: 34567, reason: 'recalled by 45678', time: 1 }],
        },
      },
      token,
    );
    // Keywords that name a person are not stored at all.
    const mention = await client.contribute(
      { op: 'upsert_answer', keywords: '[CQ:at,qq=56789] 你好', answer_keywords: 'x' },
      token,
    );
    assert.deepEqual([mention.status, mention.body], [200, { ok: true, accepted: false }]);
    const body = (await client.context('hello', token)).body;
    assert.deepEqual(
      body.answers.map((answer: { group_id: number }) => answer.group_id),
      [0, 0],
    );
    assert.deepEqual(body.ban, []);
    assert.equal(body.clear_time, 0);
    const stored = await dump();
    for (const secret of ['12345', '23456', '34567', '45678', '56789', '67890', '424242', 'Secret', 'recalled']) {
      assert.equal(stored.includes(secret), false, `${secret} is stored somewhere: ${stored}`);
    }
  });

  it('answers are ordered by count then time, and cleaned on read', async (t) => {
    const { client } = await openHub(t, engine);
    const { corpus_token: token } = await client.enroll();
    await client.contribute(
      {
        op: 'insert',
        context: {
          keywords: 'k',
          answers: [
            { keywords: 'low', count: 1, time: 500 },
            { keywords: 'old', count: 3, time: 100 },
            { keywords: 'new', count: 3, time: 200 },
            { keywords: 'x[CQ:face,id=1]y', count: 2, time: 100 },
            { keywords: '[CQ:image,file=a.jpg]', count: 9, time: 100, messages: ['[CQ:image,file=a.jpg]'] },
          ],
        },
      },
      token,
    );
    const body = (await client.context('k', token)).body;
    assert.deepEqual(
      body.answers.map((answer: { keywords: string }) => answer.keywords),
      ['new', 'old', 'low'],
      'answer keywords holding a CQ segment are not stored',
    );
  });
});
