/**
 * Enrollment against a loopback hub (docs/rules.md#enroll,
 * corpus-contribute): when it runs, what it stores, the policy lock-out rule,
 * re-enrollment on 401 with the 5-minute cool-down counted from the last attempt.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it, type TestContext } from 'node:test';
import { CommunityView } from '../../../src/community/community-view.ts';
import { hubEndpoints } from '../../../src/community/endpoints.ts';
import { ENROLL_COOLDOWN_MS, Enrollment } from '../../../src/community/enrollment.ts';
import { CommunityStateFile } from '../../../src/community/state-file.ts';
import { configFromValues, type ConfigSnapshot } from '../../../src/config/index.ts';
import { FakeClock } from '../../../src/common/clock.ts';
import { silentLog, type Log } from '../../../src/common/log.ts';
import { TaskSet } from '../../../src/common/task-set.ts';
import { closedPort, FakeHub } from './fake-hub.ts';

interface Setup {
  enrollment: Enrollment;
  state: CommunityStateFile;
  view: CommunityView;
  clock: FakeClock;
  enrolled: number;
  tasks: TaskSet;
  logs: string[];
  setConfig(values: Record<string, unknown>): void;
}

async function setup(t: TestContext, values: Record<string, unknown>): Promise<Setup> {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-enroll-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const clock = new FakeClock();
  let config: ConfigSnapshot = configFromValues(values);
  const state = new CommunityStateFile({ path: join(dir, 'community-stats.json'), log: silentLog });
  const view = new CommunityView({ config: () => config, enrollment: () => state.enrollment(), clock });
  const tasks = new TaskSet(() => undefined);
  const logs: string[] = [];
  const log: Log = { ...silentLog, info: (_o, m) => void logs.push(m ?? ''), warn: (_o, m) => void logs.push(m ?? '') };
  const result: Setup = {
    enrollment: undefined as unknown as Enrollment,
    state,
    view,
    clock,
    enrolled: 0,
    tasks,
    logs,
    setConfig: (more) => {
      config = configFromValues({ ...values, ...more });
    },
  };
  result.enrollment = new Enrollment({
    view,
    state,
    onEnrolled: () => result.enrolled++,
    tasks,
    clock,
    log,
  });
  return result;
}

describe('enrollment', () => {
  let hub: FakeHub;
  let wanted: Record<string, unknown>;

  before(async () => {
    hub = await FakeHub.start();
  });
  after(() => hub.close());
  beforeEach(() => {
    hub.requests.length = 0;
    hub.override = undefined;
    hub.policy = { read: true, contribute: true };
    hub.expiresAt = null;
    wanted = {
      CHORUS_CORPUS_COMMUNITY_ENABLED: 'true',
      CHORUS_CORPUS_AUTO_ENROLL: 'true',
      CHORUS_COMMUNITY_STATS_ENDPOINT: hub.heartbeatUrl,
    };
  });

  it('derives the enroll URL and API base from the heartbeat endpoint', () => {
    assert.deepEqual(hubEndpoints('http://127.0.0.1:8099/v1/heartbeat'), {
      heartbeat: 'http://127.0.0.1:8099/v1/heartbeat',
      enroll: 'http://127.0.0.1:8099/v1/corpus/enroll',
      apiBase: 'http://127.0.0.1:8099/v1/corpus',
    });
    assert.deepEqual(hubEndpoints('https://hub.example/v1/'), {
      heartbeat: 'https://hub.example/v1/heartbeat',
      enroll: 'https://hub.example/v1/corpus/enroll',
      apiBase: 'https://hub.example/v1/corpus',
    });
    assert.equal(hubEndpoints(''), null);
  });

  it('startup enrollment stores the block atomically (0600) and refreshes what depends on it', async (t) => {
    const s = await setup(t, { ...wanted, CHORUS_COMMUNITY_STATS_TOKEN: 'stats-secret' });
    hub.expiresAt = 1_800_000_000;
    assert.equal(await s.enrollment.ensure(), true);
    const [request] = hub.to('/v1/corpus/enroll');
    assert.deepEqual(request?.body, { deployment_id: s.state.deploymentId });
    assert.equal(request?.authorization, 'Bearer stats-secret');
    const stored = JSON.parse(await readFile(s.state.path, 'utf8'));
    assert.deepEqual(stored.corpus_community, {
      api_base: hub.apiBase,
      corpus_token: [...hub.tokens.keys()].at(-1),
      enrolled_at: 1_700_000_000,
      expires_at: 1_800_000_000,
      contribute: true,
    });
    assert.equal((await stat(s.state.path)).mode & 0o777, 0o600);
    assert.equal(s.enrolled, 1);
    const { community } = s.view.activation();
    assert.equal(community.enrolledValid, true);
    assert.deepEqual(community.apiBases, [hub.apiBase]);
    assert.equal(community.token, stored.corpus_community.corpus_token);
  });

  it('a valid stored enrollment is kept: no HTTP', async (t) => {
    const s = await setup(t, wanted);
    await s.enrollment.ensure();
    s.clock.advance(ENROLL_COOLDOWN_MS * 2);
    assert.equal(await s.enrollment.ensure(), true);
    assert.equal(hub.to('/v1/corpus/enroll').length, 1);
  });

  it('does not run without reporting, a hub, the community, auto-enroll, or with manual credentials', async (t) => {
    const cases: [Record<string, unknown>, string, boolean][] = [
      [{ CHORUS_COMMUNITY_STATS_ENABLED: 'false' }, 'stats_disabled', false],
      [{ CHORUS_COMMUNITY_STATS_ENDPOINT: '' }, 'no_hub', false],
      [{ CHORUS_CORPUS_COMMUNITY_ENABLED: 'false' }, 'not_wanted', false],
      [{ CHORUS_CORPUS_AUTO_ENROLL: 'false' }, 'auto_enroll_off', false],
      [{ CHORUS_SHARD_ROLE: 'worker' }, 'shard_worker', false],
      [
        { CHORUS_CORPUS_COMMUNITY_API_BASE: 'http://manual/v1/corpus', CHORUS_CORPUS_COMMUNITY_TOKEN: 'manual' },
        'manual_credentials',
        true,
      ],
    ];
    for (const [more, reason, configured] of cases) {
      const s = await setup(t, { ...wanted, ...more });
      assert.equal(s.enrollment.idleReason(), reason);
      assert.equal(await s.enrollment.ensure({ force: true }), configured, reason);
    }
    assert.equal(hub.to('/v1/corpus/enroll').length, 0, 'no HTTP in any of them');
  });

  it('auto-enroll "auto" follows the community switch', async (t) => {
    const s = await setup(t, { ...wanted, CHORUS_CORPUS_AUTO_ENROLL: 'auto' });
    assert.equal(s.enrollment.idleReason(), null);
    s.setConfig({ CHORUS_CORPUS_AUTO_ENROLL: 'auto', CHORUS_CORPUS_COMMUNITY_ENABLED: 'auto' });
    assert.equal(s.enrollment.idleReason(), 'not_wanted');
  });

  it('says once that no hub is configured', async (t) => {
    const s = await setup(t, { ...wanted, CHORUS_COMMUNITY_STATS_ENDPOINT: '' });
    await s.enrollment.ensure();
    await s.enrollment.ensure();
    assert.equal(s.logs.filter((line) => line.includes('no community hub')).length, 1);
  });

  it('policy contribute=false while contribution is wanted: re-enrolls, stores the new token and policy', async (t) => {
    const s = await setup(t, wanted);
    hub.policy = { read: true, contribute: false };
    await s.enrollment.ensure();
    const first = s.state.enrollment();
    assert.equal(first?.contribute, false);
    assert.equal(s.view.activation().community.contributeEnabled, false, 'an explicit policy false wins');
    hub.policy = { read: true, contribute: true };
    s.clock.advance(ENROLL_COOLDOWN_MS);
    assert.equal(await s.enrollment.ensure(), true);
    assert.equal(hub.to('/v1/corpus/enroll').length, 2);
    assert.equal(
      hub.to('/v1/corpus/enroll')[1]?.authorization,
      `Bearer ${first?.token}`,
      'a re-enrollment proves it holds the current token (docs/hub.md#enrollment)',
    );
    assert.notEqual(s.state.enrollment()?.token, first?.token);
    assert.equal(s.state.enrollment()?.contribute, true);
    assert.equal(s.enrollment.counters.policyReenrolls, 1);
    s.clock.advance(ENROLL_COOLDOWN_MS);
    await s.enrollment.ensure();
    assert.equal(hub.to('/v1/corpus/enroll').length, 2, 're-enrolls once, then keeps it');
  });

  it('policy false and contribution explicitly off: no re-enrollment', async (t) => {
    const s = await setup(t, { ...wanted, CHORUS_CORPUS_COMMUNITY_CONTRIBUTE: 'false' });
    hub.policy = { read: true, contribute: false };
    await s.enrollment.ensure();
    s.clock.advance(ENROLL_COOLDOWN_MS);
    await s.enrollment.ensure();
    assert.equal(hub.to('/v1/corpus/enroll').length, 1);
  });

  it('a 401 forces re-enrollment, at most once per cool-down counted from the last attempt', async (t) => {
    const s = await setup(t, wanted);
    await s.enrollment.ensure();
    s.clock.advance(60_000);
    s.enrollment.onAuthFailure();
    await s.tasks.drain(2000);
    assert.equal(hub.to('/v1/corpus/enroll').length, 1, 'within 5 min of the startup attempt: skipped');
    assert.equal(s.enrollment.counters.skippedCooldown, 1);
    s.clock.advance(ENROLL_COOLDOWN_MS - 60_000);
    s.enrollment.onAuthFailure();
    s.enrollment.onAuthFailure();
    await s.tasks.drain(2000);
    assert.equal(hub.to('/v1/corpus/enroll').length, 2, 'forced despite a valid credential; twice coalesced');
    assert.equal(s.enrolled, 2);
    s.clock.advance(ENROLL_COOLDOWN_MS - 1);
    assert.equal(await s.enrollment.refreshNow(), true);
    assert.equal(hub.to('/v1/corpus/enroll').length, 2);
    s.clock.advance(1);
    await s.enrollment.refreshNow();
    assert.equal(hub.to('/v1/corpus/enroll').length, 3);
  });

  it('failed attempts count for the cool-down too; a failure returns the old validity and warns', async (t) => {
    const s = await setup(t, wanted);
    hub.override = () => ({ status: 500, body: { detail: 'down' } });
    assert.equal(await s.enrollment.ensure(), false);
    assert.equal(s.enrollment.counters.failed, 1);
    assert.ok(s.logs.some((line) => line.includes('enrollment failed')));
    s.clock.advance(ENROLL_COOLDOWN_MS - 1);
    hub.override = undefined;
    assert.equal(await s.enrollment.ensure(), false);
    assert.equal(hub.to('/v1/corpus/enroll').length, 1, 'not hammered');
    s.clock.advance(1);
    assert.equal(await s.enrollment.ensure(), true);
  });

  it('an answer without corpus_token, or an unreachable hub, is a failure', async (t) => {
    const s = await setup(t, wanted);
    hub.override = () => ({ status: 200, body: { api_base: 'x' } });
    assert.equal(await s.enrollment.ensure(), false);
    const down = await closedPort();
    const u = await setup(t, { ...wanted, CHORUS_COMMUNITY_STATS_ENDPOINT: `${down}/v1/heartbeat` });
    assert.equal(await u.enrollment.ensure(), false);
    assert.equal(u.enrollment.counters.failed, 1);
  });

  it('an expired credential counts as not configured and is renewed', async (t) => {
    const s = await setup(t, wanted);
    hub.expiresAt = Math.floor(s.clock.nowMs() / 1000) + 600;
    await s.enrollment.ensure();
    s.clock.advance(601_000);
    assert.equal(s.view.activation().community.enrolledValid, false);
    hub.expiresAt = null;
    assert.equal(await s.enrollment.ensure(), true);
    assert.equal(hub.to('/v1/corpus/enroll').length, 2);
    assert.equal(s.view.activation().community.enrolledValid, true);
  });
});
