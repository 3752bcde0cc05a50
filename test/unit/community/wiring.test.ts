/**
 * wireCommunity with a real CorpusRuntime on SQLite and the loopback fake hub: the build order,
 * automatic enrollment at start, the mirror path (group 0 on the wire), the status extras and
 * control, configuration changes, and a shard worker that runs no singleton job.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { prefetchConcurrency } from '../../../src/workers/prefetch-worker.ts';
import { configFromValues, type StepReport } from '../../../src/config/index.ts';
import { waitFor } from '../../support/corpus-fakes.ts';
import { FakeHub } from './fake-hub.ts';
import { deployment, learn } from './support.ts';

describe('community wiring', () => {
  let hub: FakeHub;
  let values: Record<string, unknown>;

  before(async () => {
    hub = await FakeHub.start();
  });
  after(() => hub.close());
  beforeEach(() => {
    hub.requests.length = 0;
    hub.contexts.clear();
    hub.override = undefined;
    hub.policy = { read: true, contribute: true };
    values = {
      CHORUS_CORPUS_COMMUNITY_ENABLED: 'true',
      CHORUS_CORPUS_AUTO_ENROLL: 'true',
      CHORUS_COMMUNITY_STATS_ENDPOINT: hub.heartbeatUrl,
    };
  });

  it('enrolls at start, the composite wraps the community, learning is mirrored with group 0', async (t) => {
    const d = await deployment(t, values);
    await waitFor(() => d.community.enrollment() !== null);
    await d.community.parts.state.flush();
    const state = JSON.parse(await readFile(join(d.dir, 'community-stats.json'), 'utf8'));
    assert.equal(state.deployment_id, d.community.status.deployment().deployment_id);
    assert.equal(state.corpus_community.api_base, hub.apiBase);
    assert.equal(d.community.derivedApiBase(), hub.apiBase);
    assert.ok(d.community.sources().community, 'a community source is built');
    assert.equal(d.community.sources(), d.community.sources(), 'the same object while nothing changed');
    assert.equal(d.runtime.composite.wrapping(), true);
    assert.ok(d.community.mirrorTarget());
    learn(d, 424242, '早上好', '早啊', 1_700_000_100);
    await waitFor(() => hub.to('/v1/corpus/contribute').length === 1);
    const body = hub.to('/v1/corpus/contribute')[0]?.body as {
      op: string;
      context: { answers: { group_id: number }[] };
    };
    assert.equal(body.op, 'insert');
    assert.deepEqual(
      body.context.answers.map((answer) => answer.group_id),
      [0],
    );
    assert.doesNotMatch(JSON.stringify(hub.requests.map((r) => r.body)), /424242/);
    assert.deepEqual((await d.community.status.usage())?.contribute_ok, hub.usage.contribute_ok);
    const counters = d.community.counters();
    assert.equal(counters.community_mirror?.accepted, 1);
    assert.equal(counters.enrollment?.enrolled, 1);
  });

  it('no hub configured: nothing runs, and nothing is built', async (t) => {
    const d = await deployment(t, { ...values, CHORUS_COMMUNITY_STATS_ENDPOINT: '' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(hub.requests.length, 0);
    assert.equal(d.community.enrollment(), null);
    assert.deepEqual(d.community.sources(), {});
    assert.equal(d.community.mirrorTarget(), null);
    assert.equal(d.runtime.composite.wrapping(), false);
    assert.equal(d.community.parts.heartbeatJob.job.started, false);
  });

  it('a shard worker runs no singleton job and never writes the state file', async (t) => {
    const d = await deployment(t, {
      ...values,
      CHORUS_SHARD_ROLE: 'worker',
      CHORUS_CORPUS_BACKFILL_ENABLED: 'true',
      CHORUS_CORPUS_REMOTE_FIND_ENABLED: 'prefetch',
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(hub.requests.length, 0, 'no enrollment, no heartbeat');
    assert.equal(d.community.parts.heartbeatJob.job.started, false);
    assert.equal(d.community.parts.backfillJob.job.started, false);
    assert.equal(d.community.parts.enrollmentJob.job.started, false);
    assert.equal((await d.community.parts.backfill.runRound()).reason, 'shard_worker');
    await assert.rejects(readFile(join(d.dir, 'community-stats.json')));
    assert.equal(d.community.parts.prefetchWorkers.running, true, 'prefetch is per process, not a singleton');
  });

  it('a shard worker picks up its primary enrollment from the shared state file', async (t) => {
    const primary = await deployment(t, values);
    await waitFor(() => primary.community.enrollment() !== null);
    await primary.community.parts.state.flush();
    const worker = await deployment(t, { ...values, CHORUS_SHARD_ROLE: 'worker' }, { dir: primary.dir });
    assert.equal(worker.community.enrollment()?.token, primary.community.enrollment()?.token);
    assert.equal(
      worker.community.status.deployment().deployment_id,
      primary.community.status.deployment().deployment_id,
    );
  });

  it('configuration changes: a hub set later starts enrollment; each reaction reports what it did', async (t) => {
    const d = await deployment(t, { ...values, CHORUS_COMMUNITY_STATS_ENDPOINT: '' });
    const report = (steps: StepReport[], step: string) => steps.find((each) => each.step === step);
    assert.equal(d.community.enrollment(), null);
    const hubSet = await d.set({ CHORUS_COMMUNITY_STATS_ENDPOINT: hub.heartbeatUrl });
    assert.equal(report(hubSet, 'sync_community_jobs')?.ok, true);
    assert.equal(report(hubSet, 'restart_prefetch')?.skipped, true);
    await waitFor(() => d.community.enrollment() !== null);
    assert.equal(d.community.parts.heartbeatJob.job.started, true);

    const builds = d.community.parts.repository.counters.rebuilds;
    const prefetch = await d.set({ CHORUS_CORPUS_REMOTE_FIND_ENABLED: 'prefetch' });
    assert.match(report(prefetch, 'restart_prefetch')?.detail ?? '', /restarted/);
    assert.match(report(prefetch, 'rebuild_shared_repository')?.detail ?? '', /rebuilt/);
    assert.equal(d.community.parts.repository.counters.rebuilds, builds + 1, 'rebuilt once');
    assert.equal(report(prefetch, 'reregister_backfill')?.skipped, true);
    const sync = await d.set({ CHORUS_CORPUS_REMOTE_FIND_ENABLED: 'sync' });
    assert.match(report(sync, 'restart_prefetch')?.detail ?? '', /stopped/);

    const backfill = await d.set({ CHORUS_CORPUS_BACKFILL_ENABLED: 'true' });
    assert.match(report(backfill, 'reregister_backfill')?.detail ?? '', /registered \(every 1800 s\)/);
    const off = await d.set({ CHORUS_CORPUS_BACKFILL_ENABLED: 'false' });
    assert.match(report(off, 'reregister_backfill')?.detail ?? '', /not registered/);

    await d.set({ CHORUS_COMMUNITY_STATS_ENABLED: 'false' });
    assert.equal(d.community.parts.heartbeatJob.job.started, false);
  });

  it('prefetch concurrency follows the pool: 1 on SQLite and with the default pool', () => {
    assert.equal(prefetchConcurrency(configFromValues({}), 'sqlite'), 1);
    assert.equal(prefetchConcurrency(configFromValues({}), 'postgres'), 1);
    assert.equal(
      prefetchConcurrency(
        configFromValues({ CHORUS_DATABASE_POOL_MAX: '200', CHORUS_CORPUS_REMOTE_MAX_CONCURRENT: '4' }),
        'postgres',
      ),
      4,
    );
  });
});
