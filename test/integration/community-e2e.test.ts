/**
 * The community flow end to end on loopback: a real hub (src/hub startHub, SQLite) and bot
 * deployments, each with its own SQLite database and data folder, built as `chorus serve` wires
 * them (CorpusRuntime + wireCommunity + the learn and mirror workers; test/unit/community/support.ts).
 *
 * A enrolls automatically and what it learns reaches the hub de-identified; B in prefetch mode
 * misses once, prefetches, and answers the next time; with the hub stopped, black-holed or
 * answering 500, both keep learning and answering locally; a rotated token leads to one
 * re-enrollment per cool-down; backfill uploads history at the configured rate and resumes from
 * its cursor after a restart.
 */
import assert from 'node:assert/strict';
import { createServer, request as httpRequest } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { ENROLL_COOLDOWN_MS } from '../../src/community/enrollment.ts';
import { startHub, type RunningHub, type StartHubOptions } from '../../src/hub/start.ts';
import { ORIGIN_SERVING } from './hub-support.ts';
import { FakeClock } from '../../src/common/clock.ts';
import { answer, context } from '../support/corpus-data.ts';
import { waitFor } from '../support/corpus-fakes.ts';
import { blackHole } from '../unit/community/fake-hub.ts';
import { deployment, learn, type Deployment } from '../unit/community/support.ts';

interface Hub {
  hub: RunningHub;
  dir: string;
  heartbeat: string;
  /** Every row of every hub table, as JSON text. */
  dump(): string;
  rows<T>(sql: string): T[];
}

/** A hub serving as the origin did (one deployment's answer is served: no agreement rule). */
async function hubFor(t: TestContext, options: StartHubOptions = {}): Promise<Hub> {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-hub-'));
  const hub = await startHub({ host: '127.0.0.1', port: 0, dataDir: dir, ...ORIGIN_SERVING, ...options });
  t.after(async () => {
    await hub.close();
    await rm(dir, { recursive: true, force: true });
  });
  const rows = <T>(sql: string): T[] => {
    const db = new BetterSqlite3(join(dir, 'hub.db'), { readonly: true, fileMustExist: true });
    try {
      return db.prepare(sql).all() as T[];
    } finally {
      db.close();
    }
  };
  return {
    hub,
    dir,
    heartbeat: `${hub.url}/v1/heartbeat`,
    rows,
    dump: () => {
      const tables = rows<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'");
      return JSON.stringify(tables.map(({ name }) => [name, rows(`SELECT * FROM "${name}"`)]));
    },
  };
}

/** Configuration of a deployment that uses the community and enrolls with `heartbeat`'s hub. */
function communityValues(heartbeat: string, more: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    CHORUS_CORPUS_COMMUNITY_ENABLED: 'true',
    CHORUS_CORPUS_AUTO_ENROLL: 'true',
    CHORUS_COMMUNITY_STATS_ENDPOINT: heartbeat,
    ...more,
  };
}

async function enrolled(d: Deployment): Promise<void> {
  await waitFor(() => d.community.enrollment() !== null, 5000);
  await d.community.parts.state.flush();
}

/** A reply lookup on the hot path, timed. */
async function reply(d: Deployment, keywords: string): Promise<{ answers: string[]; ms: number }> {
  const started = performance.now();
  const found = await d.runtime.composite.findByKeywordsForReply(keywords);
  return { answers: (found?.answers ?? []).map((a) => a.keywords).sort(), ms: performance.now() - started };
}

async function learnAndWait(
  d: Deployment,
  groupId: number,
  keywords: string,
  answerText: string,
  rawAnswer = answerText,
): Promise<void> {
  const before = d.learnWorker.counters.handled;
  learn(d, groupId, keywords, answerText, Math.floor(Date.now() / 1000), rawAnswer);
  await waitFor(() => d.learnWorker.counters.handled > before);
}

/** A server answering 500 to everything. */
async function failingServer(t: TestContext): Promise<string> {
  const server = createServer((_req, res) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end('{"detail":"boom"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const GROUP = 987654321;

describe('community end to end', () => {
  it('what is learned before the first enrollment waits in the retry backlog and reaches the hub once enrolled', async (t) => {
    const h = await hubFor(t);
    // The wiring not started yet: no enrollment has run, so no contribute target exists.
    const a = await deployment(t, communityValues(h.heartbeat), { start: false });
    assert.equal(a.community.enrollment(), null);
    await learnAndWait(a, GROUP, '周末去哪里玩', '去爬山');
    await learnAndWait(a, GROUP, '周末去哪里玩', '去看电影');
    await waitFor(() => a.mirrorCounters.parked === 2);
    assert.equal(a.mirrorCounters.noTarget, 0);
    assert.equal(a.community.counters().community_mirror_retry?.waiting, 2);

    await a.community.scope.start();
    await enrolled(a);
    await waitFor(() => (a.community.counters().community_mirror_retry?.delivered ?? 0) === 2, 10_000);
    const answers = h.rows<{ keywords: string }>('SELECT keywords FROM hub_answer');
    assert.deepEqual(answers.map((row) => row.keywords).sort(), ['去爬山', '去看电影'].sort());
    assert.equal(a.community.counters().community_mirror_retry?.waiting, 0);
  });

  it('A enrolls automatically; what it learns reaches the hub de-identified; its heartbeat is recorded', async (t) => {
    const h = await hubFor(t);
    const a = await deployment(t, communityValues(h.heartbeat));
    await enrolled(a);
    await learnAndWait(a, GROUP, '今天天气怎么样', '挺好的', '挺好的[CQ:at,qq=55667788]');
    await learnAndWait(a, GROUP, '今天天气怎么样', '下雨了');
    await waitFor(() => (a.community.counters().community_mirror?.accepted ?? 0) === 2, 5000);

    const contexts = h.rows<{ keywords: string }>('SELECT keywords FROM hub_context');
    assert.deepEqual(
      contexts.map((row) => row.keywords),
      ['今天天气怎么样'],
    );
    const answers = h.rows<{ keywords: string; messages: string }>('SELECT keywords, messages FROM hub_answer');
    assert.equal(answers.length, 2);
    const dump = h.dump();
    assert.doesNotMatch(dump, new RegExp(String(GROUP)), 'no group number stored');
    assert.doesNotMatch(dump, /55667788/, 'no user number stored');
    assert.doesNotMatch(dump, /group_id/, 'the hub has no group column at all');
    // What other deployments read back: every answer in group 0.
    const token = a.community.enrollment()?.token ?? '';
    const response = await fetch(`${h.hub.apiBase}/context?keywords=${encodeURIComponent('今天天气怎么样')}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await response.json()) as { answers: { group_id: number }[] };
    assert.deepEqual(
      body.answers.map((item) => item.group_id),
      [0, 0],
    );

    assert.equal(await a.community.parts.heartbeat.beat(), 'sent');
    const beats = h.rows<{ deployment_id: string }>('SELECT deployment_id FROM hub_heartbeat');
    assert.deepEqual(
      beats.map((row) => row.deployment_id),
      [a.community.status.deployment().deployment_id],
    );
    assert.equal(a.community.status.deployment().heartbeat_endpoint, h.heartbeat);
    const snapshot = h.rows<{ keywords: string }>('SELECT keywords FROM hub_hot_snapshot');
    assert.deepEqual(
      snapshot.map((row) => row.keywords),
      ['今天天气怎么样'],
      'the hot snapshot rode along',
    );
    const usage = await a.community.status.usage();
    assert.equal(usage?.contribute_ok, 2);
  });

  it('B in prefetch mode misses once, prefetches, and answers the next time', async (t) => {
    const h = await hubFor(t);
    const a = await deployment(t, communityValues(h.heartbeat));
    const b = await deployment(t, communityValues(h.heartbeat, { CHORUS_CORPUS_REMOTE_FIND_ENABLED: 'prefetch' }));
    await enrolled(a);
    await enrolled(b);
    await learnAndWait(a, GROUP, '周末去哪里玩呢', '去公园');
    await waitFor(() => (a.community.counters().community_mirror?.accepted ?? 0) === 1, 5000);

    assert.deepEqual((await reply(b, '周末去哪里玩呢')).answers, [], 'the first lookup misses');
    await waitFor(() => (b.community.counters().prefetch_runner?.importedInserts ?? 0) === 1, 5000);
    assert.deepEqual((await reply(b, '周末去哪里玩呢')).answers, ['去公园'], 'the next one answers locally');
    const local = await b.store.corpus.findByKeywords('周末去哪里玩呢');
    assert.deepEqual(
      local?.answers.map((item) => item.groupId),
      [0],
    );
    // Imported into B's local store only: nothing went back to the hub from B.
    assert.equal(b.community.counters().community_mirror?.accepted ?? 0, 0);
    assert.equal(b.runtime.mirror.counters.queued, 0);
  });

  for (const mode of ['prefetch', 'sync merge_counts'] as const) {
    it(`B half knows a key (one weak local answer): the community's answer fills it (${mode})`, async (t) => {
      const h = await hubFor(t);
      const a = await deployment(t, communityValues(h.heartbeat));
      const values =
        mode === 'prefetch'
          ? { CHORUS_CORPUS_REMOTE_FIND_ENABLED: 'prefetch' }
          : { CHORUS_CORPUS_REMOTE_FIND_ENABLED: 'sync', CHORUS_CORPUS_MERGE_STRATEGY: 'merge_counts' };
      const b = await deployment(t, communityValues(h.heartbeat, values));
      await enrolled(a);
      await enrolled(b);
      // A has learned Q → 去公园 well (three times: reply-ready in the community too).
      for (let i = 0; i < 3; i++) await learnAndWait(a, GROUP, '周末去哪里玩呢', '去公园');
      await waitFor(() => (a.community.counters().community_mirror?.accepted ?? 0) === 3, 5000);
      // B was asked Q and someone said 嗯 after it: B learned Q → 嗯 once, a weak hit.
      await learnAndWait(b, GROUP + 1, '周末去哪里玩呢', '嗯');
      const first = await reply(b, '周末去哪里玩呢');
      if (mode === 'prefetch') {
        assert.deepEqual(first.answers, ['嗯'], 'the weak local answer alone, for now');
        await waitFor(() => (b.community.counters().prefetch_runner?.importedUpserts ?? 0) >= 1, 5000);
      }
      const later = await b.runtime.composite.findByKeywordsForReply('周末去哪里玩呢');
      const community = later?.answers.find((item) => item.keywords === '去公园');
      assert.ok(community, `the community answer is there: ${JSON.stringify(later?.answers)}`);
      assert.equal(community.groupId, 0);
      assert.ok(community.count >= 3, `with its community count: ${community.count}`);
      assert.ok(
        later?.answers.some((item) => item.keywords === '嗯' && item.count === 1),
        'B keeps its own answer',
      );
    });
  }

  for (const failure of ['stopped', 'black-holed', 'answering 500'] as const) {
    it(`with the hub ${failure}, A and B keep learning and answering locally`, async (t) => {
      const h = await hubFor(t);
      const fast = { CHORUS_CORPUS_REMOTE_TIMEOUT_SEC: '0.5', CHORUS_CORPUS_CONTRIBUTE_TIMEOUT_SEC: '0.5' };
      const a = await deployment(t, communityValues(h.heartbeat, fast));
      const b = await deployment(
        t,
        communityValues(h.heartbeat, { ...fast, CHORUS_CORPUS_REMOTE_FIND_ENABLED: 'prefetch' }),
      );
      await enrolled(a);
      await enrolled(b);
      if (failure === 'stopped') {
        await h.hub.close();
      } else {
        let url: string;
        if (failure === 'black-holed') {
          const hole = await blackHole();
          t.after(() => hole.close());
          url = hole.url;
        } else {
          url = await failingServer(t);
        }
        for (const d of [a, b]) d.config.set({ CHORUS_COMMUNITY_STATS_ENDPOINT: `${url}/v1/heartbeat` });
        assert.equal(a.community.parts.repository.get()?.bases[0], `${url}/v1/corpus`);
      }
      for (const d of [a, b]) {
        await learnAndWait(d, GROUP, '晚饭吃什么好呢', '火锅');
        await learnAndWait(d, GROUP, '晚饭吃什么好呢', '面条');
        const found = await reply(d, '晚饭吃什么好呢');
        assert.deepEqual(found.answers, ['火锅', '面条']);
        assert.ok(found.ms < 500, `answered locally in ${found.ms} ms`);
      }
      // B's misses try the community in the background and fail quietly.
      const miss = await reply(b, '一个社区里才有的问题');
      assert.deepEqual(miss.answers, []);
      assert.ok(miss.ms < 500);
      await waitFor(() => {
        const runner = b.community.counters().prefetch_runner ?? {};
        return (runner.remoteErrors ?? 0) + (runner.remoteMisses ?? 0) >= 1;
      }, 5000);
      // The mirror gave up on the hub without disturbing learning.
      await waitFor(
        () =>
          (a.community.counters().community_mirror?.failed ?? 0) +
            (a.community.counters().community_mirror?.refused ?? 0) >=
          1,
        5000,
      );
      assert.deepEqual((await reply(b, '晚饭吃什么好呢')).answers, ['火锅', '面条']);
    });
  }

  it('pairs learned while the hub is down wait and all arrive when it is back', { timeout: 60_000 }, async (t) => {
    const h = await hubFor(t);
    // A switch in front of the hub: while down, every connection is cut at once.
    const hubUrl = new URL(h.hub.url);
    const gate = { down: false };
    const proxy = createServer((req, res) => {
      if (gate.down) {
        req.socket.destroy();
        return;
      }
      const forward = httpRequest(
        { host: hubUrl.hostname, port: hubUrl.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      req.pipe(forward);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const a = await deployment(
      t,
      communityValues(`${proxyUrl}/v1/heartbeat`, { CHORUS_CORPUS_CONTRIBUTE_TIMEOUT_SEC: '0.5' }),
    );
    await enrolled(a);

    gate.down = true;
    const retry = a.community.parts.mirrorTargets.retry;
    const now = Math.floor(Date.now() / 1000);
    for (let i = 0; i < 50; i++) learn(a, GROUP, `停机时学的第${i}句`, `回答${i}号`, now);
    await waitFor(() => a.learnWorker.counters.handled >= 50, 10_000);
    await waitFor(() => retry.size === 50, 10_000);
    assert.equal(h.rows('SELECT id FROM hub_context').length, 0, 'nothing arrived while the hub was down');
    const waiting = a.community.counters().community_mirror_retry;
    assert.equal(waiting?.waiting, 50);

    gate.down = false;
    await waitFor(() => retry.size === 0, 30_000);
    assert.equal(h.rows('SELECT id FROM hub_context').length, 50, 'all 50 arrived');
    const after = a.community.counters().community_mirror_retry;
    assert.deepEqual([after?.delivered, after?.droppedFull, after?.gaveUp, after?.waiting], [50, 0, 0, 0]);
  });

  it('an expired token leads to re-enrollment after a 401, no more than once per cool-down', async (t) => {
    // The hub's clock runs apart from the bot's: the bot keeps its token as valid, the hub expires it.
    const hubClock = new FakeClock(Date.now());
    const ttlSec = 3600;
    const h = await hubFor(t, { clock: hubClock, tokenTtlSec: ttlSec });
    const clock = new FakeClock(Date.now());
    const a = await deployment(t, communityValues(h.heartbeat), { clock });
    await enrolled(a);
    const enrollment = a.community.parts.enrollment;
    const first = a.community.enrollment()?.token;
    // Someone else enrolling with A's deployment id is refused and rotates nothing.
    const stranger = await fetch(`${h.hub.url}/v1/corpus/enroll`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ deployment_id: a.community.status.deployment().deployment_id }),
    });
    assert.equal(stranger.status, 409);
    const expire = () => hubClock.advance((ttlSec + 1) * 1000);
    expire();
    await learnAndWait(a, GROUP, '第一句话在这里', '好的');
    await waitFor(() => enrollment.counters.authFailures >= 1, 5000);
    await waitFor(() => enrollment.counters.skippedCooldown >= 1, 5000);
    assert.equal(enrollment.counters.attempts, 1, 'within 5 min of the startup enrollment: no second attempt');
    assert.equal(a.community.enrollment()?.token, first);

    clock.advance(ENROLL_COOLDOWN_MS);
    await learnAndWait(a, GROUP, '第二句话在这里', '好的');
    await waitFor(() => enrollment.counters.enrolled === 2, 5000);
    const second = a.community.enrollment()?.token;
    assert.notEqual(second, first);
    await learnAndWait(a, GROUP, '第三句话在这里', '好的');
    await waitFor(() => (a.community.counters().community_mirror?.accepted ?? 0) >= 1, 5000);

    // Expired again at once: the 401s that follow wait out the cool-down.
    expire();
    for (const keywords of ['第四句话在这里', '第五句话在这里', '第六句话在这里'])
      await learnAndWait(a, GROUP, keywords, '好的');
    await waitFor(() => enrollment.counters.authFailures >= 4, 5000);
    assert.equal(enrollment.counters.attempts, 2);
    clock.advance(ENROLL_COOLDOWN_MS);
    await learnAndWait(a, GROUP, '第七句话在这里', '好的');
    await waitFor(() => enrollment.counters.attempts === 3, 5000);
    await waitFor(() => enrollment.counters.enrolled === 3, 5000);
    assert.notEqual(a.community.enrollment()?.token, second);
  });

  it('backfill uploads history at the configured rate and resumes from its cursor after a restart', async (t) => {
    const h = await hubFor(t);
    const clock = new FakeClock(Date.now());
    const values = communityValues(h.heartbeat, {
      CHORUS_CORPUS_BACKFILL_ENABLED: 'true',
      CHORUS_CORPUS_BACKFILL_MAX_PER_MINUTE: '3',
      CHORUS_CORPUS_BACKFILL_BATCH_SIZE: '10',
    });
    const dir = await mkdtemp(join(tmpdir(), 'chorus-backfill-e2e-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const a = await deployment(t, values, { clock, dir });
    await enrolled(a);
    const history = Array.from({ length: 8 }, (_, i) => `历史语料第${i}条`);
    // Straight into the local store: history, never mirrored.
    for (const keywords of history) {
      await a.store.corpus.insert(
        context(keywords, {
          answers: [answer(`回答${keywords}`, { groupId: GROUP, messages: [`回答[CQ:face,id=1]${keywords}`] })],
        }),
      );
    }
    const hubKeys = () =>
      h.rows<{ keywords: string }>('SELECT keywords FROM hub_context ORDER BY keywords').map((r) => r.keywords);
    const sorted = [...history].sort();

    const round1 = await a.community.parts.backfill.runRound();
    assert.equal(round1.pushed, 3);
    assert.deepEqual(hubKeys(), sorted.slice(0, 3));
    clock.advance(30_000);
    assert.equal((await a.community.parts.backfill.runRound()).pushed, 0, 'the minute is used up');

    // Restart: a new process on the same data folder continues after the cursor.
    await a.stop();
    const again = await deployment(t, values, { clock, dir });
    await enrolled(again);
    assert.equal(again.community.parts.enrollment.counters.attempts, 0, 'the stored enrollment is reused');
    assert.equal((await again.community.parts.backfill.runRound()).pushed, 3);
    assert.deepEqual(hubKeys(), sorted.slice(0, 6));
    clock.advance(60_000);
    assert.equal((await again.community.parts.backfill.runRound()).pushed, 2);
    assert.deepEqual(hubKeys(), sorted);
    assert.equal((await again.community.parts.backfill.runRound()).outcome, 'wrapped');
    const dump = h.dump();
    assert.doesNotMatch(dump, new RegExp(String(GROUP)));
    assert.doesNotMatch(dump, /CQ:face/, 'messages went up normalised');
  });
});
