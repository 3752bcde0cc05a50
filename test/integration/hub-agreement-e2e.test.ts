/**
 * Agreement before serving with real bots (docs/hub.md#agreement): a real hub on SQLite and
 * PostgreSQL, bot deployments wired as `chorus serve` wires them (test/unit/community/support.ts),
 * each sending from its own loopback address (127.0.0.3 …). One deployment contributing a phrase
 * 50 times (and claiming a count of 1,000,000) makes no other bot answer it, in prefetch or in
 * sync mode; once two more bots from two more addresses learned it, both answer it, with the
 * hub's served count.
 */
import assert from 'node:assert/strict';
import { it, type TestContext } from 'node:test';
import { forEachEngine } from '../support/engines.ts';
import { waitFor } from '../support/corpus-fakes.ts';
import { deployment, learn, type Deployment } from '../unit/community/support.ts';
import { fetchFrom, HubClient, openHub } from './hub-support.ts';

const GROUP = 987654321;
/** Longer than 6 characters: prefetched on the first miss. */
const LONE = '哪里可以领到免费红包呢';
const AGREED = '周末大家一起去哪里玩呢';
const AD = '加微信领红包';
const ANSWER = '去公园走走';

async function bot(t: TestContext, hubUrl: string, address: string, values: Record<string, unknown> = {}) {
  const d = await deployment(
    t,
    {
      CHORUS_CORPUS_COMMUNITY_ENABLED: 'true',
      CHORUS_CORPUS_AUTO_ENROLL: 'true',
      CHORUS_COMMUNITY_STATS_ENDPOINT: `${hubUrl}/v1/heartbeat`,
      ...values,
    },
    { fetch: fetchFrom(address) },
  );
  await waitFor(() => d.community.enrollment() !== null, 10_000);
  return d;
}

async function answers(d: Deployment, keywords: string): Promise<{ keywords: string; count: number }[]> {
  const found = await d.runtime.composite.findByKeywordsForReply(keywords);
  return (found?.answers ?? []).map((answer) => ({ keywords: answer.keywords, count: answer.count }));
}

async function learnAndMirror(d: Deployment, keywords: string, answer: string): Promise<void> {
  const accepted = d.community.counters().community_mirror?.accepted ?? 0;
  learn(d, GROUP, keywords, answer, Math.floor(Date.now() / 1000));
  await waitFor(() => (d.community.counters().community_mirror?.accepted ?? 0) > accepted, 10_000);
}

forEachEngine((engine) => {
  it('one deployment contributing 50 times makes no bot answer; three from three addresses do', async (t) => {
    const { hub, rows } = await openHub(t, engine, { minDeployments: 3, countPerDeploymentMax: 3 });
    const attacker = new HubClient(hub.url, '127.0.0.2');
    const { corpus_token: token } = await attacker.enroll();
    for (const keywords of [LONE, AGREED]) {
      for (let i = 0; i < 50; i++) {
        const body = { op: 'upsert_answer', keywords, answer_keywords: keywords === LONE ? AD : ANSWER, message: AD };
        assert.equal((await attacker.contribute(body, token)).status, 200);
      }
    }
    const claim = { op: 'insert', context: { keywords: LONE, answers: [{ keywords: AD, count: 1_000_000 }] } };
    assert.equal((await attacker.contribute(claim, token)).status, 200);

    const prefetching = await bot(t, hub.url, '127.0.0.5', { CHORUS_CORPUS_REMOTE_FIND_ENABLED: 'prefetch' });
    const syncing = await bot(t, hub.url, '127.0.0.6', {
      CHORUS_CORPUS_REMOTE_FIND_ENABLED: 'sync',
      CHORUS_CORPUS_MERGE_STRATEGY: 'merge_counts',
    });
    const runner = () => prefetching.community.counters().prefetch_runner;

    // The phrase only the attacker contributed: the prefetch finds nothing, sync finds nothing.
    assert.deepEqual(await answers(prefetching, LONE), []);
    await waitFor(() => (runner()?.remoteMisses ?? 0) === 1, 10_000);
    assert.deepEqual(await answers(prefetching, LONE), [], 'nothing imported');
    assert.equal(await prefetching.store.corpus.findByKeywords(LONE), null);
    assert.deepEqual(await answers(syncing, LONE), []);

    // Two more bots, from two more addresses, learn the other phrase in their groups.
    const b = await bot(t, hub.url, '127.0.0.3');
    const c = await bot(t, hub.url, '127.0.0.4');
    await learnAndMirror(b, AGREED, ANSWER);
    await learnAndMirror(c, AGREED, ANSWER);
    const cohorts = new Set((await rows('hub_deployment')).map((row) => row.cohort));
    assert.equal(cohorts.size, 5, 'five deployments from five client addresses');

    assert.deepEqual(await answers(prefetching, AGREED), [], 'the first lookup misses locally');
    await waitFor(() => (runner()?.importedInserts ?? 0) === 1, 10_000);
    // 50 from one deployment count 3 (its cap), one each from the two others.
    assert.deepEqual(await answers(prefetching, AGREED), [{ keywords: ANSWER, count: 5 }]);
    const imported = await prefetching.store.corpus.findByKeywords(AGREED);
    assert.deepEqual(
      imported?.answers.map((answer) => [answer.groupId, answer.count]),
      [[0, 5]],
      'imported with the hub’s served count',
    );
    assert.deepEqual(await answers(syncing, AGREED), [{ keywords: ANSWER, count: 5 }]);
    assert.deepEqual(await answers(syncing, LONE), [], 'still nothing for the lone phrase');
  });
});
