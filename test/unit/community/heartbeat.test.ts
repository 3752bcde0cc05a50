/**
 * The heartbeat (docs/rules.md#heartbeat): payload, the hot-keyword snapshot cadence
 * (only while contributing), statuses, idleness without a hub; and the job's schedule.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, it, mock, type TestContext } from 'node:test';
import { CommunityView } from '../../../src/community/community-view.ts';
import { HeartbeatReporter } from '../../../src/community/heartbeat.ts';
import { CommunityStateFile } from '../../../src/community/state-file.ts';
import { configFromValues, type ConfigSnapshot } from '../../../src/config/index.ts';
import { FakeClock } from '../../../src/common/clock.ts';
import { silentLog, type Log } from '../../../src/common/log.ts';
import type { HotKeywordRow, HotKeywordsQuery } from '../../../src/store/corpus-store.ts';
import { HeartbeatJob } from '../../../src/workers/heartbeat-job.ts';
import { closedPort, FakeHub } from './fake-hub.ts';

const CONTRIBUTING = {
  CHORUS_CORPUS_COMMUNITY_ENABLED: 'true',
  CHORUS_CORPUS_COMMUNITY_API_BASE: 'http://127.0.0.1:1/v1/corpus',
  CHORUS_CORPUS_COMMUNITY_TOKEN: 'manual',
};

function hotRows(n: number): HotKeywordRow[] {
  return Array.from({ length: n }, (_, i) => ({
    keywords: `kw${i}`,
    score: 100 - i,
    answers: [{ answerKeywords: `a${i}`, message: `secret message ${i}`, count: 3 }],
  }));
}

async function setup(t: TestContext, values: Record<string, unknown>, rows = hotRows(50)) {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-heartbeat-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const clock = new FakeClock();
  let config: ConfigSnapshot = configFromValues(values);
  const state = new CommunityStateFile({ path: join(dir, 'community-stats.json'), log: silentLog });
  const view = new CommunityView({ config: () => config, enrollment: () => state.enrollment(), clock });
  const queries: HotKeywordsQuery[] = [];
  const logs: string[] = [];
  const log: Log = { ...silentLog, info: (_o, m) => void logs.push(m ?? ''), warn: (_o, m) => void logs.push(m ?? '') };
  const reporter = new HeartbeatReporter({
    view,
    state,
    hot: {
      hotKeywords: async (query) => {
        queries.push(query);
        return rows;
      },
    },
    version: '1.2.3',
    botCounts: () => ({ online_bots: 2, catalog_bots: 3, sharded: false, shard_workers: null }),
    clock,
    log,
  });
  return {
    reporter,
    state,
    clock,
    queries,
    logs,
    set: (more: Record<string, unknown>) => {
      config = configFromValues({ ...values, ...more });
    },
  };
}

describe('heartbeat', () => {
  let hub: FakeHub;
  before(async () => {
    hub = await FakeHub.start();
  });
  after(() => hub.close());
  beforeEach(() => {
    hub.requests.length = 0;
    hub.heartbeats.length = 0;
    hub.override = undefined;
  });

  it('posts the deployment, time, version and bot counts with the stats Bearer; 200 remembers the endpoint', async (t) => {
    const s = await setup(t, { CHORUS_COMMUNITY_STATS_ENDPOINT: hub.heartbeatUrl, CHORUS_COMMUNITY_STATS_TOKEN: 'hb' });
    assert.equal(await s.reporter.beat(), 'sent');
    assert.deepEqual(hub.heartbeats[0], {
      deployment_id: s.state.deploymentId,
      ts: 1_700_000_000,
      version: '1.2.3',
      online_bots: 2,
      catalog_bots: 3,
      sharded: false,
      shard_workers: null,
      roster_public: false,
    });
    assert.equal(hub.to('/v1/heartbeat')[0]?.authorization, 'Bearer hb');
    assert.equal(s.state.heartbeatEndpoint, hub.heartbeatUrl);
    assert.equal(s.state.lastHeartbeatOkUnix, 1_700_000_000);
  });

  it('the hot snapshot rides along while contributing, at most every 900 s, labels and scores only', async (t) => {
    const s = await setup(t, { ...CONTRIBUTING, CHORUS_COMMUNITY_STATS_ENDPOINT: hub.heartbeatUrl });
    await s.reporter.beat();
    const snapshot = hub.heartbeats[0]?.corpus_hot_snapshot as { as_of: number; items: unknown[] };
    assert.equal(snapshot.as_of, 1_700_000_000);
    assert.equal(snapshot.items.length, 40);
    assert.deepEqual(snapshot.items[0], { keywords: 'kw0', score: 100 });
    assert.doesNotMatch(JSON.stringify(hub.heartbeats[0]), /secret message/);
    assert.deepEqual(s.queries[0], { scope: 'global', limit: 40, answersPerKeyword: 1 });
    assert.equal(s.state.corpusHotSnapshotUnix, 1_700_000_000);
    for (const advance of [300_000, 300_000, 299_000]) {
      s.clock.advance(advance);
      await s.reporter.beat();
    }
    assert.deepEqual(
      hub.heartbeats.map((body) => 'corpus_hot_snapshot' in body),
      [true, false, false, false],
    );
    s.clock.advance(1000);
    await s.reporter.beat();
    assert.equal('corpus_hot_snapshot' in (hub.heartbeats[4] ?? {}), true, 'due again 900 s after the last');
    assert.equal(s.reporter.counters.snapshotsSent, 2);
  });

  it('the snapshot interval setting applies (minimum 300 s)', async (t) => {
    const s = await setup(t, {
      ...CONTRIBUTING,
      CHORUS_COMMUNITY_STATS_ENDPOINT: hub.heartbeatUrl,
      CHORUS_COMMUNITY_STATS_CORPUS_HOT_SNAPSHOT_INTERVAL_SEC: '300',
    });
    await s.reporter.beat();
    s.clock.advance(300_000);
    await s.reporter.beat();
    assert.deepEqual(
      hub.heartbeats.map((body) => 'corpus_hot_snapshot' in body),
      [true, true],
    );
  });

  it('no snapshot when not contributing, or with nothing to report', async (t) => {
    const off = await setup(t, { CHORUS_COMMUNITY_STATS_ENDPOINT: hub.heartbeatUrl });
    await off.reporter.beat();
    const policyOff = await setup(t, {
      ...CONTRIBUTING,
      CHORUS_CORPUS_COMMUNITY_CONTRIBUTE: 'false',
      CHORUS_COMMUNITY_STATS_ENDPOINT: hub.heartbeatUrl,
    });
    await policyOff.reporter.beat();
    const empty = await setup(t, { ...CONTRIBUTING, CHORUS_COMMUNITY_STATS_ENDPOINT: hub.heartbeatUrl }, []);
    await empty.reporter.beat();
    assert.equal(
      hub.heartbeats.some((body) => 'corpus_hot_snapshot' in body),
      false,
    );
    assert.equal(off.queries.length, 0);
    assert.equal(empty.state.corpusHotSnapshotUnix, null);
  });

  it('a failed send does not consume the snapshot; 429 is rate limited; a transport error fails', async (t) => {
    const s = await setup(t, { ...CONTRIBUTING, CHORUS_COMMUNITY_STATS_ENDPOINT: hub.heartbeatUrl });
    hub.override = () => ({ status: 429, body: { detail: 'slow down' } });
    assert.equal(await s.reporter.beat(), 'rate_limited');
    assert.ok(s.logs.some((line) => line.includes('rate limited')));
    hub.override = () => ({ status: 500 });
    assert.equal(await s.reporter.beat(), 'failed');
    assert.equal(s.state.corpusHotSnapshotUnix, null);
    assert.equal(s.state.heartbeatEndpoint, '');
    hub.override = undefined;
    assert.equal(await s.reporter.beat(), 'sent');
    assert.equal('corpus_hot_snapshot' in (hub.requests.at(-1)?.body as object), true);
    const down = await closedPort();
    s.set({ ...CONTRIBUTING, CHORUS_COMMUNITY_STATS_ENDPOINT: `${down}/v1/heartbeat` });
    assert.equal(await s.reporter.beat(), 'failed');
    assert.deepEqual(s.reporter.counters, { sent: 1, rateLimited: 1, failed: 2, snapshotsSent: 1, idle: 0 });
  });

  it('idle without a hub (said once), when disabled, and on a shard worker', async (t) => {
    const s = await setup(t, {});
    assert.equal(s.reporter.active(), false);
    assert.equal(await s.reporter.beat(), 'idle');
    s.reporter.noteIdle();
    s.reporter.noteIdle();
    assert.equal(s.logs.filter((line) => line.includes('no community hub')).length, 1);
    s.set({ CHORUS_COMMUNITY_STATS_ENDPOINT: hub.heartbeatUrl, CHORUS_COMMUNITY_STATS_ENABLED: 'false' });
    assert.equal(s.reporter.active(), false);
    s.set({ CHORUS_COMMUNITY_STATS_ENDPOINT: hub.heartbeatUrl, CHORUS_SHARD_ROLE: 'worker' });
    assert.equal(await s.reporter.beat(), 'idle');
    assert.equal(hub.requests.length, 0);
  });
});

describe('heartbeat job', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));
  afterEach(() => mock.timers.reset());

  async function settle() {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  }

  it('first beat after 60 s, then every interval; follows interval and activity changes', async () => {
    let config = configFromValues({ CHORUS_COMMUNITY_STATS_INTERVAL_SEC: '120' });
    const state = { active: true, beats: 0, idleNotes: 0 };
    const reporter = {
      active: () => state.active,
      noteIdle: () => void state.idleNotes++,
      beat: async () => {
        state.beats++;
        return 'sent' as const;
      },
    } as unknown as HeartbeatReporter;
    const job = new HeartbeatJob({ reporter, config: () => config, log: silentLog });
    job.sync();
    mock.timers.tick(59_999);
    await settle();
    assert.equal(state.beats, 0);
    mock.timers.tick(1);
    await settle();
    assert.equal(state.beats, 1);
    mock.timers.tick(120_000);
    await settle();
    assert.equal(state.beats, 2);
    config = configFromValues({ CHORUS_COMMUNITY_STATS_INTERVAL_SEC: '600' });
    job.sync();
    mock.timers.tick(60_000);
    await settle();
    assert.equal(state.beats, 3);
    mock.timers.tick(599_999);
    await settle();
    assert.equal(state.beats, 3);
    mock.timers.tick(1);
    await settle();
    assert.equal(state.beats, 4);
    state.active = false;
    job.sync();
    assert.equal(state.idleNotes, 1);
    mock.timers.tick(10_000_000);
    await settle();
    assert.equal(state.beats, 4);
    await job.stop();
  });
});
