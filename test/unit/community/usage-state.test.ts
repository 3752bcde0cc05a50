/**
 * Usage cache (docs/rules.md#usage) and the community state file (docs/rules.md#cfg-files: atomic, 0600,
 * deployment_id created once and kept).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { CommunityStateFile } from '../../../src/community/state-file.ts';
import { UsageCache } from '../../../src/community/usage.ts';
import type { CommunityUsage } from '../../../src/corpus/status.ts';
import { FakeClock } from '../../../src/common/clock.ts';
import { silentLog } from '../../../src/common/log.ts';

const USAGE: CommunityUsage = {
  read_lookups: 1,
  read_hits: 1,
  contribute_ok: 0,
  updated_at: 5,
  source: 'community_stats',
};

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-community-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('usage cache', () => {
  it('returns the loader result unchanged, cached for the TTL', async () => {
    const clock = new FakeClock();
    let loads = 0;
    const cache = new UsageCache({
      load: async () => {
        loads++;
        return USAGE;
      },
      ttlMs: () => 120_000,
      now: () => clock.monotonicMs(),
    });
    assert.equal(await cache.get(), USAGE);
    clock.advance(119_999);
    assert.equal(await cache.get(), USAGE);
    assert.equal(loads, 1);
    clock.advance(1);
    await cache.get();
    assert.equal(loads, 2);
    assert.deepEqual(cache.counters, { loads: 2, hits: 1, joined: 0, failures: 0 });
  });

  it('concurrent callers share one request', async () => {
    const clock = new FakeClock();
    let loads = 0;
    let release: (value: CommunityUsage) => void = () => {};
    const cache = new UsageCache({
      load: () => {
        loads++;
        return new Promise((resolve) => (release = resolve));
      },
      ttlMs: () => 120_000,
      now: () => clock.monotonicMs(),
    });
    const all = Promise.all([cache.get(), cache.get(), cache.get()]);
    release(USAGE);
    assert.deepEqual(await all, [USAGE, USAGE, USAGE]);
    assert.equal(loads, 1);
    assert.equal(cache.counters.joined, 2);
  });

  it('failures are cached as null; peek never waits; invalidate forgets', async () => {
    const clock = new FakeClock();
    let loads = 0;
    let fail = true;
    const cache = new UsageCache({
      load: async () => {
        loads++;
        if (fail) throw new Error('hub down');
        return USAGE;
      },
      ttlMs: () => 120_000,
      now: () => clock.monotonicMs(),
    });
    assert.equal(await cache.get(), null);
    assert.equal(await cache.get(), null);
    assert.equal(loads, 1, 'the failure is cached');
    fail = false;
    cache.invalidate();
    assert.equal(cache.peek(), null, 'nothing cached yet, a refresh starts');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(cache.peek(), USAGE);
    assert.equal(loads, 2);
  });

  it('the TTL is at least 5 s', async () => {
    const clock = new FakeClock();
    let loads = 0;
    const cache = new UsageCache({
      load: async () => (loads++, USAGE),
      ttlMs: () => 0,
      now: () => clock.monotonicMs(),
    });
    await cache.get();
    clock.advance(4999);
    await cache.get();
    assert.equal(loads, 1);
  });
});

describe('community state file', () => {
  it('creates a lower-case UUID v4 once, writes it 0600 atomically, and keeps it', async (t) => {
    const dir = await tempDir(t);
    const path = join(dir, 'sub', 'community-stats.json');
    const first = new CommunityStateFile({ path, log: silentLog });
    assert.match(first.deploymentId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await first.persist();
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    const again = new CommunityStateFile({ path, log: silentLog });
    assert.equal(again.deploymentId, first.deploymentId);
    await again.persist();
    assert.deepEqual(await readdir(join(dir, 'sub')), ['community-stats.json'], 'no temporary file left');
  });

  it('stores the corpus_community block, keeps unknown fields, and the enrollment object is stable', async (t) => {
    const dir = await tempDir(t);
    const path = join(dir, 'community-stats.json');
    await writeFile(path, JSON.stringify({ deployment_id: 'ABCDEF01-2345-4789-8BCD-EF0123456789', federate_id: 'x' }));
    const state = new CommunityStateFile({ path, log: silentLog });
    assert.equal(state.deploymentId, 'abcdef01-2345-4789-8bcd-ef0123456789');
    assert.equal(state.enrollment(), null);
    await state.setEnrollment({
      apiBase: 'http://h/v1/corpus',
      token: 'pc_1',
      enrolledAt: 10,
      expiresAt: null,
      contribute: true,
    });
    const enrollment = state.enrollment();
    assert.equal(state.enrollment(), enrollment, 'same object until it changes');
    await state.recordHeartbeat('http://h/v1/heartbeat', 20);
    await state.setCorpusHotSnapshotUnix(30);
    const document = JSON.parse(await readFile(path, 'utf8'));
    assert.deepEqual(document, {
      deployment_id: 'abcdef01-2345-4789-8bcd-ef0123456789',
      federate_id: 'x',
      corpus_community: { api_base: 'http://h/v1/corpus', corpus_token: 'pc_1', enrolled_at: 10, contribute: true },
      heartbeat_endpoint: 'http://h/v1/heartbeat',
      last_heartbeat_ok_unix: 20,
      corpus_hot_snapshot_unix: 30,
    });
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    const reread = new CommunityStateFile({ path, log: silentLog });
    assert.deepEqual(reread.enrollment(), enrollment);
    assert.equal(reread.heartbeatEndpoint, 'http://h/v1/heartbeat');
    assert.equal(reread.corpusHotSnapshotUnix, 30);
  });

  it('a corrupt or non-object file starts empty with a warning; an incomplete block is no enrollment', async (t) => {
    const dir = await tempDir(t);
    const path = join(dir, 'community-stats.json');
    const warnings: string[] = [];
    const log = { ...silentLog, warn: (_: object, message?: string) => void warnings.push(message ?? '') };
    await writeFile(path, '{not json');
    assert.equal(new CommunityStateFile({ path, log }).enrollment(), null);
    await writeFile(path, '[1]');
    new CommunityStateFile({ path, log });
    assert.equal(warnings.length, 2);
    await writeFile(path, JSON.stringify({ corpus_community: { api_base: 'http://h', corpus_token: '' } }));
    assert.equal(new CommunityStateFile({ path, log }).enrollment(), null);
  });

  it('a read-only (shard worker) copy never writes and picks up the primary enrollment on reload', async (t) => {
    const dir = await tempDir(t);
    const path = join(dir, 'community-stats.json');
    const primary = new CommunityStateFile({ path, log: silentLog });
    await primary.persist();
    const worker = new CommunityStateFile({ path, log: silentLog, readOnly: true });
    assert.equal(worker.deploymentId, primary.deploymentId);
    await worker.setEnrollment({ apiBase: 'http://w', token: 'w', enrolledAt: 1, expiresAt: null, contribute: null });
    assert.equal(JSON.parse(await readFile(path, 'utf8')).corpus_community, undefined, 'the worker wrote nothing');
    await primary.setEnrollment({
      apiBase: 'http://h/v1/corpus',
      token: 'pc_9',
      enrolledAt: 2,
      expiresAt: 99,
      contribute: false,
    });
    assert.equal(await worker.reloadIfChanged(), true);
    assert.equal(worker.enrollment()?.token, 'pc_9');
    assert.equal(worker.enrollment()?.contribute, false);
    assert.equal(await worker.reloadIfChanged(), false, 'unchanged on disk');
  });
});
