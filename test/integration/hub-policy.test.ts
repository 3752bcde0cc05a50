/**
 * The hub's policy and limits over real HTTP, on SQLite and PostgreSQL: 401 for missing, unknown
 * or expired tokens, 403 for a denied permission, 429 with Retry-After for the advertised read and
 * contribution limits, 413 for large bodies, and 400 naming the field for bad input.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { FakeClock } from '../../src/common/clock.ts';
import { forEachEngine } from '../support/engines.ts';
import { openHub } from './hub-support.ts';

/** 1_700_000_000 s: 20 s into a minute, 80 000 s into a UTC day. */
const START_MS = 1_700_000_000_000;

forEachEngine((engine) => {
  it('401 without a bearer, with an unknown token, and with an expired one', async (t) => {
    const clock = new FakeClock(START_MS);
    const { client } = await openHub(t, engine, { tokenTtlSec: 100, clock });
    const missing = await client.get('/v1/corpus/context?keywords=k');
    assert.deepEqual([missing.status, missing.body], [401, { detail: 'missing bearer token' }]);
    assert.equal(missing.headers.get('www-authenticate'), 'Bearer');
    const basic = await client.request('GET', '/v1/corpus/usage', { headers: { authorization: 'Basic abc' } });
    assert.equal(basic.status, 401);
    const unknown = await client.context('k', 'pc_unknown');
    assert.deepEqual([unknown.status, unknown.body], [401, { detail: 'invalid or expired corpus token' }]);
    const unknownContribute = await client.contribute({ op: 'bogus' }, 'pc_unknown');
    assert.equal(unknownContribute.status, 401, 'authentication comes before validation');

    const enrolled = await client.post('/v1/corpus/enroll', { deployment_id: crypto.randomUUID() });
    assert.equal(enrolled.body.expires_at, 1_700_000_100);
    const token: string = enrolled.body.corpus_token;
    clock.advance(100_000);
    assert.equal((await client.context('k', token)).status, 404, 'valid up to expires_at');
    clock.advance(1000);
    const expired = await client.context('k', token);
    assert.deepEqual([expired.status, expired.body], [401, { detail: 'invalid or expired corpus token' }]);
  });

  it('403 when the policy denies contribution (contribute and hot upload) or reading', async (t) => {
    const { client } = await openHub(t, engine, { defaultContribute: false });
    const enrolled = await client.post('/v1/corpus/enroll', { deployment_id: crypto.randomUUID() });
    assert.equal(enrolled.body.policy.contribute, false);
    const token: string = enrolled.body.corpus_token;
    const denied = await client.contribute({ op: 'upsert_answer', keywords: 'k', answer_keywords: 'a' }, token);
    assert.deepEqual([denied.status, denied.body], [403, { detail: 'contribute not allowed' }]);
    const hot = await client.post('/v1/corpus/hot', { items: [{ keywords: 'k', score: 1 }] }, token);
    assert.equal(hot.status, 403);
    assert.equal((await client.context('k', token)).status, 404, 'reading is still allowed');
    assert.equal((await client.get('/v1/corpus/usage', token)).body.contribute_ok, 0);

    const { client: noRead } = await openHub(t, engine, { defaultRead: false });
    const readDenied = await noRead.context('k', (await noRead.enroll()).corpus_token);
    assert.deepEqual([readDenied.status, readDenied.body], [403, { detail: 'read not allowed' }]);
  });

  it('429 with Retry-After once the reads per minute are used; not counted as lookups', async (t) => {
    const clock = new FakeClock(START_MS);
    const { client } = await openHub(t, engine, { readPerMinute: 3, clock });
    const enrolled = await client.post('/v1/corpus/enroll', { deployment_id: crypto.randomUUID() });
    assert.equal(enrolled.body.policy.read_per_minute, 3);
    const token: string = enrolled.body.corpus_token;
    for (let i = 0; i < 3; i++) assert.equal((await client.context('k', token)).status, 404);
    const limited = await client.context('k', token);
    assert.equal(limited.status, 429);
    assert.equal(limited.body.detail, 'read limit reached: 3 per minute');
    assert.equal(limited.headers.get('retry-after'), '40');
    assert.equal((await client.get('/v1/corpus/usage', token)).body.read_lookups, 3);
    clock.advance(40_000);
    assert.equal((await client.context('k', token)).status, 404, 'a new minute has begun');
    assert.equal((await client.get('/v1/corpus/usage', token)).body.read_lookups, 4);
  });

  it('429 with Retry-After once the contributions per day are used; usage keeps the accepted ones', async (t) => {
    const clock = new FakeClock(START_MS);
    const { client } = await openHub(t, engine, { contributionsPerDay: 2, clock });
    const token = (await client.enroll()).corpus_token;
    const upsert = (answer: string) =>
      client.contribute({ op: 'upsert_answer', keywords: 'k', answer_keywords: answer }, token);
    assert.equal((await upsert('a')).status, 200);
    assert.equal((await upsert('b')).status, 200);
    const limited = await upsert('c');
    assert.equal(limited.status, 429);
    assert.equal(limited.body.detail, 'contribution limit reached: 2 per day');
    assert.equal(limited.headers.get('retry-after'), String(86_400 - 80_000));
    const context = (await client.context('k', token)).body;
    assert.deepEqual(
      context.answers.map((answer: { keywords: string }) => answer.keywords).sort(),
      ['a', 'b'],
      'the refused contribution wrote nothing',
    );
    assert.equal((await client.get('/v1/corpus/usage', token)).body.contribute_ok, 2);
    clock.advance(6400 * 1000);
    assert.equal((await upsert('c')).status, 200, 'a new UTC day has begun');
  });

  it('413 for a body over the configured size, before anything is parsed', async (t) => {
    const { client } = await openHub(t, engine, { maxBodyBytes: 2048 });
    const token = (await client.enroll()).corpus_token;
    const big = await client.contribute(
      { op: 'upsert_answer', keywords: 'k', answer_keywords: 'a', message: 'x'.repeat(4000) },
      token,
    );
    assert.deepEqual([big.status, big.body], [413, { detail: 'body: larger than 2048 bytes' }]);
  });

  it('400 naming the field for every bad contribution, and nothing is written', async (t) => {
    const { client, rows } = await openHub(t, engine, {
      maxKeywordsChars: 20,
      maxMessageChars: 30,
      maxAnswersPerInsert: 3,
    });
    const token = (await client.enroll()).corpus_token;
    const cases: [unknown, string][] = [
      [{ op: 'delete' }, 'body.op: expected one of insert, upsert_answer'],
      [{}, 'body.op: required'],
      [{ op: 'upsert_answer', answer_keywords: 'a' }, 'body.keywords: required'],
      [{ op: 'upsert_answer', keywords: 'k' }, 'body.answer_keywords: required'],
      [
        { op: 'upsert_answer', keywords: 'k', answer_keywords: '' },
        'body.answer_keywords: must not have fewer than 1 characters',
      ],
      [{ op: 'upsert_answer', keywords: '   ', answer_keywords: 'a' }, 'body.keywords: must not be blank'],
      [
        { op: 'upsert_answer', keywords: 'k'.repeat(21), answer_keywords: 'a' },
        'body.keywords: must not have more than 20 characters',
      ],
      [
        { op: 'upsert_answer', keywords: 'k', answer_keywords: 'a', message: 'm'.repeat(31) },
        'body.message: must not have more than 30 characters',
      ],
      [
        { op: 'upsert_answer', keywords: 'k', answer_keywords: 'a', message: 5 },
        'body.message: expected string or null',
      ],
      [
        { op: 'upsert_answer', keywords: 'k', answer_keywords: 'a', append_on_existing: 'yes' },
        'body.append_on_existing: must be boolean',
      ],
      [
        { op: 'upsert_answer', keywords: 'k', answer_keywords: 'a', answer_time: 'now' },
        'body.answer_time: must be number',
      ],
      [{ op: 'insert' }, 'body.context: required'],
      [{ op: 'insert', context: {} }, 'body.context.keywords: required'],
      [{ op: 'insert', context: { keywords: 'k', answers: [{}] } }, 'body.context.answers.0.keywords: required'],
      [{ op: 'insert', context: { keywords: 'k', answers: ['a'] } }, 'body.context.answers.0: must be object'],
      [
        { op: 'insert', context: { keywords: 'k', answers: [{ keywords: 'a', count: 0 }] } },
        'body.context.answers.0.count: must be >= 1',
      ],
      [
        { op: 'insert', context: { keywords: 'k', answers: [{ keywords: 'a', messages: [1] }] } },
        'body.context.answers.0.messages.0: must be string',
      ],
      [
        { op: 'insert', context: { keywords: 'k', answers: [1, 2, 3, 4].map((i) => ({ keywords: `a${i}` })) } },
        'body.context.answers: must not have more than 3 items',
      ],
    ];
    for (const [body, detail] of cases) {
      const reply = await client.contribute(body, token);
      assert.deepEqual([reply.status, reply.body], [400, { detail }], JSON.stringify(body));
    }
    const json = await client.request('POST', '/v1/corpus/contribute', { token, raw: '{"op":' });
    assert.equal(json.status, 400);
    assert.match(json.body.detail, /^body: /);
    const keywords = await client.get('/v1/corpus/context', token);
    assert.deepEqual([keywords.status, keywords.body], [400, { detail: 'query.keywords: required' }]);
    const blank = await client.context('  ', token);
    assert.deepEqual([blank.status, blank.body], [400, { detail: 'query.keywords: required' }]);
    assert.equal((await rows('hub_context')).length, 0);
    assert.equal((await client.get('/v1/corpus/usage', token)).body.contribute_ok, 0);
    const route = await client.get('/v1/nothing');
    assert.deepEqual([route.status, route.body], [404, { detail: 'no such route: GET /v1/nothing' }]);
  });

  it('enrollments per client address per minute are limited', async (t) => {
    const clock = new FakeClock(START_MS);
    const { client } = await openHub(t, engine, { enrollPerIpPerMinute: 2, clock });
    await client.enroll();
    await client.enroll();
    const limited = await client.post('/v1/corpus/enroll', { deployment_id: crypto.randomUUID() });
    assert.deepEqual([limited.status, limited.headers.get('retry-after')], [429, '40']);
  });
});
