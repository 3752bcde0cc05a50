/**
 * The corpus status snapshot and the runtime around it (docs/rules.md#status).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigReactions, configFromValues, type ConfigKey, type ConfigSnapshot } from '../../../src/config/index.ts';
import type { StoredEnrollment } from '../../../src/corpus/activation.ts';
import { CorpusRuntime } from '../../../src/corpus/corpus-runtime.ts';
import type { RemoteSources } from '../../../src/corpus/composite-repository.ts';
import { FakeClock } from '../../../src/common/clock.ts';
import { silentLog } from '../../../src/common/log.ts';
import { answer, context, learn } from '../../support/corpus-data.ts';
import { FakeLocal, FakePressure, FakePrefetch, FakeRemote } from '../../support/corpus-fakes.ts';

const DEPLOYMENT = { deployment_id: 'dep-1', community_stats_enabled: true, heartbeat_endpoint: '' };
const START_MS = 1_700_000_000_000;
const NOW = START_MS / 1000;

function runtime(
  values: Record<string, unknown>,
  options: { enrollment?: StoredEnrollment | null; sources?: RemoteSources } = {},
) {
  const clock = new FakeClock(START_MS);
  const local = new FakeLocal();
  const pressure = new FakePressure();
  const prefetch = new FakePrefetch();
  let config: ConfigSnapshot = configFromValues(values);
  let firstMirror = 0;
  const rt = new CorpusRuntime({
    local,
    pressure,
    config: () => config,
    enrollment: () => options.enrollment ?? null,
    sources: () => options.sources ?? {},
    prefetch,
    onFirstMirrorItem: () => firstMirror++,
    clock,
    log: silentLog,
  });
  // The runtime's reactions, as the composition root runs them (all synchronous: applied on return).
  const reactions = new ConfigReactions(rt.shared.configReactions(), silentLog);
  return {
    rt,
    local,
    clock,
    pressure,
    prefetch,
    firstMirror: () => firstMirror,
    setConfig(next: Record<string, unknown>, changedKeys: ConfigKey[]) {
      const previous = config;
      config = configFromValues(next);
      void reactions.handle({ previous, current: config, changedKeys });
    },
  };
}

const STORED: StoredEnrollment = {
  apiBase: 'https://stats.example/v1/corpus',
  token: 'stored-token',
  enrolledAt: NOW - 3600,
  expiresAt: NOW + 86_400,
  contribute: false,
};

describe('corpus status', () => {
  it('(a) defaults', () => {
    const { rt } = runtime({});
    const status = rt.status(DEPLOYMENT, null);
    assert.equal(status.composite_active, false);
    assert.equal(status.remote_find_mode, 'off');
    assert.deepEqual(status.merge_order, ['local', 'fed', 'community']);
    assert.equal(status.merge_strategy, 'local_first');
    assert.equal(status.on_remote_failure, 'local_only');
    assert.deepEqual(status.sources.local, { enabled: true, configured: true, readable: true, writable: true });
    assert.deepEqual(status.sources.fed, { enabled: false, configured: false, readable: false, writable: false });
    assert.deepEqual(status.sources.community, {
      enabled: false,
      wanted: false,
      configured: false,
      enrolled: false,
      manual: false,
      auto_enroll: false,
      readable: false,
      writable: false,
      api_base: '',
      api_bases: [],
      contribute: true,
      token_present: false,
      enrolled_at: null,
      expires_at: null,
      usage: null,
      hint: null,
    });
    assert.deepEqual(status.deployment, DEPLOYMENT);
    assert.deepEqual(status.control_plane, { enabled: false });
    assert.equal(status.as_of, NOW);
    assert.deepEqual(Object.keys(status.counters).sort(), ['composite', 'learning', 'mirror', 'remote_budget']);
    assert.deepEqual(status.counters.learning, {
      queued: 0,
      excluded: 0,
      tooLong: 0,
      skippedPressure: 0,
      droppedFull: 0,
      queue_size: 0,
    });
    assert.deepEqual(status.counters.mirror, { queued: 0, skippedPressure: 0, droppedFull: 0, queue_size: 0 });
    assert.deepEqual(status.counters.remote_budget, { skippedPressure: 0, skippedBusy: 0 });
    assert.deepEqual(status.counters.composite, {
      guardRejected: 0,
      remoteErrors: 0,
      remoteTimeouts: 0,
      prefetchScheduled: 0,
    });
  });

  it('(b) community enabled with a valid stored enrollment whose policy forbids contributing', () => {
    const usage = {
      read_lookups: 3,
      read_hits: 1,
      contribute_ok: 0,
      updated_at: 99,
      source: 'community_stats' as const,
    };
    const { rt } = runtime(
      { CHORUS_CORPUS_COMMUNITY_ENABLED: 'true', CHORUS_CORPUS_REMOTE_FIND_ENABLED: 'sync' },
      { enrollment: STORED },
    );
    const status = rt.status(DEPLOYMENT, usage);
    assert.equal(status.composite_active, true);
    assert.equal(status.remote_find_mode, 'sync');
    assert.deepEqual(status.sources.community, {
      enabled: true,
      wanted: true,
      configured: true,
      enrolled: true,
      manual: false,
      auto_enroll: false,
      readable: true,
      writable: false,
      api_base: 'https://stats.example/v1/corpus',
      api_bases: ['https://stats.example/v1/corpus'],
      contribute: false,
      token_present: true,
      enrolled_at: NOW - 3600,
      expires_at: NOW + 86_400,
      usage,
      hint: null,
    });
    assert.equal(status.deployment.deployment_id, 'dep-1');
  });

  it('(b2) the same enrollment with contribution allowed is writable', () => {
    const { rt } = runtime(
      { CHORUS_CORPUS_COMMUNITY_ENABLED: 'true' },
      { enrollment: { ...STORED, contribute: null } },
    );
    const community = rt.status(DEPLOYMENT, null).sources.community;
    assert.equal(community.writable, true);
    assert.equal(community.contribute, true);
  });

  it('(b3) contribution off here: contribute is false whatever the hub allows', () => {
    for (const policy of [true, null]) {
      const { rt } = runtime(
        { CHORUS_CORPUS_COMMUNITY_ENABLED: 'true', CHORUS_CORPUS_COMMUNITY_CONTRIBUTE: 'false' },
        { enrollment: { ...STORED, contribute: policy } },
      );
      const community = rt.status(DEPLOYMENT, null).sources.community;
      assert.deepEqual([community.contribute, community.writable], [false, false], `hub policy ${policy}`);
    }
  });

  it('(c) manual credentials', () => {
    const { rt } = runtime({
      CHORUS_CORPUS_COMMUNITY_ENABLED: 'auto',
      CHORUS_CORPUS_COMMUNITY_API_BASE: 'https://manual.example/v1/corpus/',
      CHORUS_CORPUS_COMMUNITY_TOKEN: 'manual-token',
      CHORUS_CORPUS_REMOTE_FIND_ENABLED: 'true',
      CHORUS_CORPUS_MERGE_ORDER: 'local,community',
    });
    const status = rt.status(DEPLOYMENT, null);
    assert.equal(status.composite_active, true);
    assert.equal(status.remote_find_mode, 'prefetch');
    assert.deepEqual(status.merge_order, ['local', 'community']);
    assert.deepEqual(status.sources.community, {
      enabled: true,
      wanted: true,
      configured: true,
      enrolled: false,
      manual: true,
      auto_enroll: false,
      readable: true,
      // Manual credentials upload every learned pair: writable.
      writable: true,
      api_base: 'https://manual.example/v1/corpus',
      api_bases: ['https://manual.example/v1/corpus'],
      contribute: true,
      token_present: true,
      enrolled_at: null,
      expires_at: null,
      usage: null,
      hint: null,
    });
  });

  it('COMMUNITY_ENABLED auto with only a stored enrollment: inactive, not enabled, wanted or readable', () => {
    const { rt } = runtime({ CHORUS_CORPUS_COMMUNITY_ENABLED: 'auto' }, { enrollment: STORED });
    const status = rt.status(DEPLOYMENT, null);
    assert.equal(status.composite_active, false);
    assert.equal(status.sources.community.enabled, false);
    assert.equal(status.sources.community.wanted, false);
    assert.equal(status.sources.community.readable, false);
    assert.equal(status.sources.community.enrolled, true);
  });

  it('counters follow the runtime and extra counters are merged in', () => {
    const { rt } = runtime({});
    rt.learning.enqueue({
      predecessor: null,
      current: { groupId: 1, rawMessage: 'x', keywords: 'x', time: 1, isPlainText: true },
    });
    rt.learning.enqueue({
      predecessor: { rawMessage: 'a', keywords: 'a' },
      current: { groupId: 1, rawMessage: 'x', keywords: 'x', time: 1, isPlainText: true },
    });
    const status = rt.status(DEPLOYMENT, null, { learn_worker: { handled: 7 } });
    assert.equal(status.counters.learning?.excluded, 1);
    assert.equal(status.counters.learning?.queued, 1);
    assert.equal(status.counters.learning?.queue_size, 1);
    assert.deepEqual(status.counters.learn_worker, { handled: 7 });
  });
});

describe('CorpusRuntime', () => {
  it('with the community off (defaults), learning mirrors nothing even though contribution is "auto"', async () => {
    const { rt, firstMirror } = runtime({});
    assert.equal(rt.activation().community.contributeEnabled, true);
    assert.equal(await rt.composite.learnAnswer(learn('k', 'a')), true);
    await rt.composite.upsertAnswer(learn('k', 'b'));
    assert.equal(rt.mirror.queue.size, 0);
    assert.deepEqual(rt.mirror.counters, { queued: 0, skippedPressure: 0, droppedFull: 0 });
    assert.equal(firstMirror(), 0, 'the mirror worker is not started');
  });

  it('a stored enrollment alone (COMMUNITY_ENABLED auto) does not mirror either', async () => {
    const { rt } = runtime({}, { enrollment: { ...STORED, contribute: null } });
    await rt.composite.learnAnswer(learn('k', 'a'));
    assert.equal(rt.mirror.queue.size, 0);
  });

  it('with the community on and contribution allowed, learning is mirrored and starts the worker once', async () => {
    const { rt, firstMirror } = runtime({
      CHORUS_CORPUS_COMMUNITY_ENABLED: 'true',
      CHORUS_CORPUS_COMMUNITY_API_BASE: 'https://manual.example',
      CHORUS_CORPUS_COMMUNITY_TOKEN: 't',
    });
    await rt.composite.learnAnswer(learn('k', 'a'));
    await rt.composite.learnAnswer(learn('k', 'a'));
    assert.deepEqual([rt.mirror.queue.take()?.kind, rt.mirror.queue.take()?.kind], ['insert', 'upsert']);
    assert.equal(firstMirror(), 1);
  });

  it('with the community on but contribute false, nothing is mirrored', async () => {
    const { rt } = runtime({
      CHORUS_CORPUS_COMMUNITY_ENABLED: 'true',
      CHORUS_CORPUS_COMMUNITY_API_BASE: 'https://manual.example',
      CHORUS_CORPUS_COMMUNITY_TOKEN: 't',
      CHORUS_CORPUS_COMMUNITY_CONTRIBUTE: 'false',
    });
    await rt.composite.learnAnswer(learn('k', 'a'));
    assert.equal(rt.mirror.queue.size, 0);
  });

  it('the guard follows the configured phrases', async () => {
    const { rt, local } = runtime({ LLM_CORPUS_LEARN_GUARD_PHRASES: '希望每个庆典' });
    assert.equal(await rt.composite.learnAnswer(learn('k', 'a', { message: '希望每个庆典' })), false);
    assert.equal(local.writes().length, 0);
    const off = runtime({ LLM_CORPUS_LEARN_GUARD_PHRASES: '希望每个庆典', LLM_CORPUS_LEARN_GUARD_ENABLED: 'false' });
    assert.equal(await off.rt.composite.learnAnswer(learn('k', 'a', { message: '希望每个庆典' })), true);
  });

  it('an enrollment that expires is no longer active once the clock passes expires_at', () => {
    const { rt, clock } = runtime(
      { CHORUS_CORPUS_COMMUNITY_ENABLED: 'true' },
      {
        enrollment: { ...STORED, expiresAt: NOW + 10 },
      },
    );
    assert.equal(rt.activation().compositeActive, true);
    clock.advance(10_000);
    assert.equal(rt.activation().compositeActive, true, 'expires_at itself is still valid');
    clock.advance(1000);
    assert.equal(rt.activation().compositeActive, false);
    assert.equal(rt.status(DEPLOYMENT, null).sources.community.configured, false);
  });

  it('a remote-find change clears the find caches; a budget change resizes the semaphore', async () => {
    const community = new FakeRemote().seed(context('k', { answers: [answer('c', { groupId: 0 })] }));
    const base = {
      CHORUS_CORPUS_COMMUNITY_ENABLED: 'true',
      CHORUS_CORPUS_COMMUNITY_API_BASE: 'https://manual.example',
      CHORUS_CORPUS_COMMUNITY_TOKEN: 't',
    };
    const r = runtime({ ...base, CHORUS_CORPUS_REMOTE_FIND_ENABLED: 'prefetch' }, { sources: { community } });
    assert.equal(await r.rt.composite.findByKeywordsForReply('k'), null);
    assert.deepEqual(r.prefetch.scheduled, ['k']);
    r.setConfig({ ...base, CHORUS_CORPUS_REMOTE_FIND_ENABLED: 'sync' }, ['CHORUS_CORPUS_REMOTE_FIND_ENABLED']);
    assert.equal((await r.rt.composite.findByKeywordsForReply('k'))?.answers.length, 1);
    assert.equal(r.rt.budget.limit, 3);
    r.setConfig({ ...base, CHORUS_CORPUS_REMOTE_FIND_ENABLED: 'sync', CHORUS_CORPUS_REMOTE_MAX_CONCURRENT: 5 }, [
      'CHORUS_CORPUS_REMOTE_MAX_CONCURRENT',
    ]);
    assert.equal(r.rt.budget.limit, 5);
  });

  it('a find-cache TTL change takes effect', async () => {
    const community = new FakeRemote();
    const base = {
      CHORUS_CORPUS_COMMUNITY_ENABLED: 'true',
      CHORUS_CORPUS_COMMUNITY_API_BASE: 'https://manual.example',
      CHORUS_CORPUS_COMMUNITY_TOKEN: 't',
      CHORUS_CORPUS_REMOTE_FIND_ENABLED: 'prefetch',
    };
    const r = runtime(base, { sources: { community } });
    r.setConfig({ ...base, CHORUS_CORPUS_FIND_CACHE_SEC: 5 }, ['CHORUS_CORPUS_FIND_CACHE_SEC']);
    await r.rt.composite.findByKeywordsForReply('k');
    r.clock.advance(5001);
    await r.rt.composite.findByKeywordsForReply('k');
    assert.equal(r.local.count('findByKeywordsForReply'), 2);
  });
  it('a database that just failed to hand out a connection: mirror uploads and remote reads stand back', async () => {
    const { rt, pressure } = runtime({
      CHORUS_CORPUS_COMMUNITY_API_BASE: 'https://manual.example/v1/corpus',
      CHORUS_CORPUS_COMMUNITY_TOKEN: 'manual-token',
      CHORUS_CORPUS_COMMUNITY_ENABLED: 'true',
    });
    assert.ok(await rt.budget.tryReadPermit(), 'healthy: a permit');
    pressure.sick = true;
    assert.equal(await rt.budget.tryReadPermit(), null);
    assert.equal(rt.budget.counters.skippedPressure, 1);
    const before = rt.mirror.counters.skippedPressure;
    rt.mirror.scheduleUpsert({
      keywords: 'k',
      groupId: 1,
      answerKeywords: 'a',
      answerTime: 1,
      message: 'm',
      appendOnExisting: true,
    });
    assert.equal(rt.mirror.counters.skippedPressure, before + 1);
  });
});
