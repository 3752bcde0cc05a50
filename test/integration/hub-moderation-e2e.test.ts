/**
 * Bans that travel, end to end on loopback (docs/hub.md#moderation): a real hub on SQLite and on
 * PostgreSQL, and three real bot deployments (each its own SQLite store, wired as `chorus serve`
 * wires the community side; test/unit/community/support.ts). A and B contribute; C reads in
 * prefetch mode and imports. A ban in two deployments withdraws an answer and C, which had
 * imported it, stops answering it by its next poll; a moderator's withdrawal does the same; an
 * answer C learned itself in its group is never removed by the hub. The admin API refuses what
 * it must.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { it, type TestContext } from 'node:test';
import type { FetchLike } from '../../src/community/http.ts';
import { WITHDRAWN_ACTOR } from '../../src/community/withdrawals.ts';
import { ModerationStore } from '../../src/store/moderation-store.ts';
import { forEachEngine, type EngineFixture } from '../support/engines.ts';
import { waitFor } from '../support/corpus-fakes.ts';
import { deployment, learn, type Deployment } from '../unit/community/support.ts';
import { openHub, type TestHub } from './hub-support.ts';

const ADMIN = 'hub-admin-token-for-tests-0123456789';
const GROUP_A = 111222333;
const GROUP_B = 444555666;
const GROUP_C = 777888999;
const POLL_SEC = 1;

function botValues(hub: TestHub, more: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    CHORUS_CORPUS_COMMUNITY_ENABLED: 'true',
    CHORUS_CORPUS_AUTO_ENROLL: 'true',
    CHORUS_COMMUNITY_STATS_ENDPOINT: `${hub.hub.url}/v1/heartbeat`,
    CHORUS_CORPUS_WITHDRAWN_POLL_SEC: String(POLL_SEC),
    ...more,
  };
}

async function enrolled(d: Deployment): Promise<void> {
  await waitFor(() => d.community.enrollment() !== null, 10_000);
  await d.community.parts.state.flush();
}

async function learnAndWait(d: Deployment, groupId: number, keywords: string, answer: string): Promise<void> {
  const before = d.learnWorker.counters.handled;
  learn(d, groupId, keywords, answer, Math.floor(Date.now() / 1000));
  await waitFor(() => d.learnWorker.counters.handled > before, 10_000);
}

async function answers(d: Deployment, keywords: string): Promise<string[]> {
  const found = await d.runtime.composite.findByKeywordsForReply(keywords);
  return (found?.answers ?? []).map((answer) => answer.keywords).sort();
}

/** C misses (keys over 6 characters need one miss), prefetches from the hub, then answers locally from the import. */
async function imported(c: Deployment, keywords: string, answer: string): Promise<void> {
  const before = c.community.counters().prefetch_runner?.importedInserts ?? 0;
  await answers(c, keywords);
  await waitFor(() => (c.community.counters().prefetch_runner?.importedInserts ?? 0) > before, 10_000);
  assert.ok((await answers(c, keywords)).includes(answer), `C imported ${keywords} → ${answer}`);
}

function withdrawals(d: Deployment): Record<string, number> {
  return d.community.counters().community_withdrawals ?? {};
}

/** The withdrawal must be applied by the first poll C starts after it. */
async function removedWithinOnePoll(c: Deployment, keywords: string, answer: string): Promise<void> {
  const pollsBefore = withdrawals(c).polls ?? 0;
  // A poll running when the hub withdrew it may have read the list just before; the one after it
  // began after the withdrawal, so by its end the answer is gone from the local store.
  await waitFor(() => (withdrawals(c).polls ?? 0) >= pollsBefore + 2, 20_000);
  assert.equal((await answers(c, keywords)).includes(answer), false, `C no longer answers ${keywords} → ${answer}`);
}

async function three(t: TestContext, engine: EngineFixture) {
  const hub = await openHub(t, engine, { adminToken: ADMIN, reportThreshold: 2, webRoot: null });
  const a = await deployment(t, botValues(hub));
  const b = await deployment(t, botValues(hub));
  const c = await deployment(t, botValues(hub, { CHORUS_CORPUS_REMOTE_FIND_ENABLED: 'prefetch' }));
  await Promise.all([enrolled(a), enrolled(b), enrolled(c)]);
  return { hub, a, b, c };
}

forEachEngine((engine) => {
  it('a ban in two deployments withdraws the answer; C, which imported it, stops answering it by its next poll', async (t) => {
    const { hub, a, b, c } = await three(t, engine);
    await learnAndWait(a, GROUP_A, '加我好友送福利啦', '加群领红包');
    await learnAndWait(b, GROUP_B, '加我好友送福利啦', '加群领红包');
    await waitFor(
      () =>
        (a.community.counters().community_mirror?.accepted ?? 0) >= 1 &&
        (b.community.counters().community_mirror?.accepted ?? 0) >= 1,
      10_000,
    );
    await imported(c, '加我好友送福利啦', '加群领红包');

    // A bans in chat (the composite's ban, as BanManager writes it): one report, not yet withdrawn.
    const ban = (groupId: number) => ({
      keywords: '加群领红包',
      groupId,
      reason: '10001',
      time: Math.floor(Date.now() / 1000),
    });
    await a.runtime.composite.appendBan('加我好友送福利啦', ban(GROUP_A));
    await waitFor(() => (a.community.counters().community_ban_reports?.sent ?? 0) === 1, 10_000);
    assert.equal((await hub.rows('hub_withdrawal')).length, 0, 'one report withdraws nothing');
    const report = await hub.rows('hub_report');
    assert.equal(report.length, 1);
    // Whole numbers only: a timestamp or a hash may hold the same digits (1795810001 ends in 10001).
    assert.doesNotMatch(
      JSON.stringify(report),
      new RegExp(`\\b(${GROUP_A}|10001)\\b`),
      'no group, no member in a report',
    );

    // B bans too: two distinct deployments reach the line.
    await b.runtime.composite.appendBan('加我好友送福利啦', ban(GROUP_B));
    await waitFor(() => (b.community.counters().community_ban_reports?.sent ?? 0) === 1, 10_000);
    const withdrawn = await hub.rows('hub_withdrawal');
    assert.deepEqual(
      withdrawn.map((row) => [row.answer_keywords, row.reason]),
      [['加群领红包', 'reports']],
    );

    await removedWithinOnePoll(c, '加我好友送福利啦', '加群领红包');
    assert.equal(withdrawals(c).removed, 1);
    // In C's activity log as a delete by the hub, undoable from the console.
    const log = await new ModerationStore(c.store.engine).list(0, 10);
    assert.deepEqual(
      log.items.map((entry) => [entry.action, entry.actor, entry.answerKeywords]),
      [['delete_answer', `hub ${WITHDRAWN_ACTOR}`, '加群领红包']],
    );
    // The hub no longer serves it to anyone.
    const token = c.community.enrollment()?.token ?? '';
    const served = await hub.client.context('加我好友送福利啦', token);
    assert.deepEqual(served.body.answers ?? [], []);
    // A's own copy, learned in its group, stays (banned there by A's own ban, not removed).
    assert.equal((await a.store.corpus.findByKeywords('加我好友送福利啦'))?.answers.length, 1);
  });

  it('a moderator withdrawal reaches C by its next poll; an answer C learned itself in its group stays', async (t) => {
    const { hub, a, c } = await three(t, engine);
    await learnAndWait(a, GROUP_A, '周末去哪里玩比较好', '去爬山');
    await learnAndWait(a, GROUP_A, '早上好呀', '早安');
    await waitFor(() => (a.community.counters().community_mirror?.accepted ?? 0) >= 2, 10_000);
    await imported(c, '周末去哪里玩比较好', '去爬山');
    // C learned the same pair in its own group: the hub must never take it away.
    await learnAndWait(c, GROUP_C, '早上好呀', '早安');

    for (const [keywords, answer] of [
      ['周末去哪里玩比较好', '去爬山'],
      ['早上好呀', '早安'],
    ] as const) {
      const reply = await hub.client.request('POST', '/admin/api/withdraw', {
        token: ADMIN,
        body: { keywords, answer_keywords: answer },
      });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      assert.equal(reply.body.changed, true);
    }
    await removedWithinOnePoll(c, '周末去哪里玩比较好', '去爬山');
    assert.deepEqual(await answers(c, '早上好呀'), ['早安'], 'learned in its group: kept');
    assert.equal(withdrawals(c).kept_learned_here, 1);
    const audit = await hub.client.request('GET', '/admin/api/audit', { token: ADMIN });
    assert.deepEqual(
      audit.body.items.map((entry: { action: string }) => entry.action),
      ['withdraw', 'withdraw'],
    );
    const cursor = JSON.parse(await readFile(join(c.dir, 'community-withdrawn.json'), 'utf8')) as { since: number };
    assert.ok(cursor.since > 0, 'the poll cursor is kept');
  });

  it('the admin API: 401 without the token, 4xx naming the field, block refuses the token, restore serves again', async (t) => {
    const hub = await openHub(t, engine, { adminToken: ADMIN, webRoot: null });
    const http = hub.client;
    assert.equal((await http.get('/admin/api/answers')).status, 401);
    assert.equal((await http.get('/admin/api/answers', 'wrong-token-wrong-token')).status, 401);
    const bad = await http.request('POST', '/admin/api/withdraw', { token: ADMIN, body: { keywords: '你好' } });
    assert.equal(bad.status, 400);
    assert.match(bad.body.detail, /answer_keywords/);
    const blank = await http.request('POST', '/admin/api/withdraw', {
      token: ADMIN,
      body: { keywords: '   ', answer_keywords: '好' },
    });
    assert.equal(blank.status, 400);
    assert.match(blank.body.detail, /body\.keywords/);
    const badId = await http.request('POST', '/admin/api/deployments/not-a-uuid/block', { token: ADMIN });
    assert.equal(badId.status, 400);
    assert.match(badId.body.detail, /params\.id/);
    assert.equal((await hub.rows('hub_audit')).length, 0, 'refused requests change nothing');

    const enrolledBot = await http.enroll();
    const token = enrolledBot.corpus_token;
    const upsert = { op: 'upsert_answer', keywords: '你好呀', answer_keywords: '你好', message: '你好' };
    assert.equal((await http.contribute(upsert, token)).status, 200);
    const search = await http.request('GET', `/admin/api/answers?q=${encodeURIComponent('你好')}`, { token: ADMIN });
    assert.deepEqual(
      search.body.items.map((item: { answer_keywords: string; reports: number }) => [
        item.answer_keywords,
        item.reports,
      ]),
      [['你好', 0]],
    );
    const pair = { keywords: '你好呀', answer_keywords: '你好' };
    const hotAnswers = async () =>
      ((await http.get('/v1/corpus/hot?mode=pool')).body.items as { answers: { answer_keywords: string }[] }[]).flatMap(
        (item) => item.answers.map((answer) => answer.answer_keywords),
      );
    assert.deepEqual(await hotAnswers(), ['你好']);
    assert.equal((await http.request('POST', '/admin/api/withdraw', { token: ADMIN, body: pair })).status, 200);
    assert.deepEqual((await http.context('你好呀', token)).body.answers, []);
    assert.deepEqual(await hotAnswers(), [], 'nor shown among the hot words');
    const listed = await http.get('/v1/corpus/withdrawn?since=0', token);
    assert.deepEqual(
      listed.body.items.map((item: { answer_keywords: string; reason: string }) => [item.answer_keywords, item.reason]),
      [['你好', 'moderator']],
    );
    assert.equal((await http.get('/v1/corpus/withdrawn?since=-1', token)).status, 400);
    assert.equal((await http.request('POST', '/admin/api/restore', { token: ADMIN, body: pair })).status, 200);
    assert.equal((await http.context('你好呀', token)).body.answers.length, 1, 'restored: served again');

    const id = enrolledBot.deployment_id;
    assert.equal((await http.request('POST', `/admin/api/deployments/${id}/block`, { token: ADMIN })).status, 200);
    assert.equal((await http.context('你好呀', token)).status, 403, 'a blocked deployment is refused');
    assert.equal((await http.contribute(upsert, token)).status, 403);
    assert.equal((await http.request('POST', `/admin/api/deployments/${id}/unblock`, { token: ADMIN })).status, 200);
    assert.equal((await http.context('你好呀', token)).status, 200);
    const audit = await http.request('GET', '/admin/api/audit', { token: ADMIN });
    assert.deepEqual(
      audit.body.items.map((entry: { action: string }) => entry.action),
      ['unblock', 'block', 'restore', 'withdraw'],
    );
    const rates = await http.request('GET', '/admin/api/rates', { token: ADMIN });
    assert.equal(rates.body.items[0].enroll_per_hour, 1);
    // The contribution refused for the block never reached the handler: one counted.
    assert.equal(rates.body.items[0].contribute_per_hour, 1);
    assert.equal((await hub.dump()).includes(ADMIN), false, 'the admin token is never stored');
  });

  it('without an admin token the admin API is off', async (t) => {
    const hub = await openHub(t, engine, { webRoot: null });
    const reply = await hub.client.request('GET', '/admin/api/answers', { token: ADMIN });
    assert.equal(reply.status, 404);
    assert.match(reply.body.detail, /CHORUS_HUB_ADMIN_TOKEN/);
  });

  it('a report made while the hub is unreachable waits in its file through a restart and is sent after it', async (t) => {
    const hub = await openHub(t, engine, { webRoot: null });
    // The network between this bot and the hub's report route fails (nothing else does).
    const unreachable: FetchLike = async (input, init) => {
      if (String(input).endsWith('/report')) throw new TypeError('fetch failed');
      return fetch(input, init);
    };
    const a = await deployment(t, botValues(hub), { fetch: unreachable });
    await enrolled(a);
    await learnAndWait(a, GROUP_A, '今天天气真的不错啊', '出去走走');
    await waitFor(() => (a.community.counters().community_mirror?.accepted ?? 0) >= 1, 10_000);
    await a.runtime.composite.appendBan('今天天气真的不错啊', {
      keywords: '出去走走',
      groupId: GROUP_A,
      reason: '10001',
      time: Math.floor(Date.now() / 1000),
    });
    await waitFor(() => (a.community.counters().community_ban_reports?.retries ?? 0) >= 1, 10_000);
    await a.stop();
    const saved = JSON.parse(await readFile(join(a.dir, 'community-reports.json'), 'utf8')) as unknown[];
    assert.deepEqual(saved, [{ keywords: '今天天气真的不错啊', answer_keywords: '出去走走' }]);
    assert.equal((await hub.rows('hub_report')).length, 0);

    // Restarted on the same data folder with the network back: what waited is sent.
    const restarted = await deployment(t, botValues(hub), { dir: a.dir });
    await waitFor(() => (restarted.community.counters().community_ban_reports?.sent ?? 0) === 1, 20_000);
    assert.deepEqual(
      (await hub.rows('hub_report')).map((row) => row.answer_keywords),
      ['出去走走'],
    );
  });
});
