/**
 * GET /api/community-stats over a real port, reading a real hub on loopback (src/hub/start.ts):
 * the hub's public /v1/stats counts as the console shows them, cached 30 s; 409 without a hub;
 * 502 naming the reason when the hub cannot be reached.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { startHub, type RunningHub } from '../../src/hub/start.ts';
import { FakeClock } from '../../src/common/clock.ts';
import { silentLog } from '../../src/common/log.ts';
import { dataOf, READ_TOKEN, startHarness } from '../unit/console/harness.ts';

interface Stats {
  deployments_total: number;
  deployments_online: number;
  bots_online_sum: number;
  stats_url: string;
  online_ttl_sec?: number;
  as_of?: string;
  corpus?: Record<string, number>;
}

async function hubOnLoopback(t: TestContext): Promise<RunningHub> {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-hub-stats-'));
  const hub = await startHub({ host: '127.0.0.1', port: 0, databaseUrl: '', dataDir: dir, log: silentLog });
  t.after(async () => {
    await hub.close();
    await rm(dir, { recursive: true, force: true, maxRetries: 5 });
  });
  return hub;
}

async function heartbeat(hub: RunningHub, onlineBots: number): Promise<void> {
  const response = await fetch(`${hub.url}/v1/heartbeat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ deployment_id: randomUUID(), ts: Math.floor(Date.now() / 1000), online_bots: onlineBots }),
  });
  assert.equal(response.status, 200);
}

describe('GET /api/community-stats', () => {
  it("shows the hub's public statistics and caches them for 30 s", async (t) => {
    const hub = await hubOnLoopback(t);
    await heartbeat(hub, 2);
    await heartbeat(hub, 3);
    const clock = new FakeClock(Date.now());
    const h = await startHarness(t, { clock, env: { CHORUS_CORPUS_COMMUNITY_API_BASE: hub.apiBase } });
    const stats = dataOf<Stats>(await h.request('GET', '/community-stats', { token: READ_TOKEN }));
    assert.deepEqual(
      [stats.deployments_total, stats.deployments_online, stats.bots_online_sum, stats.online_ttl_sec],
      [2, 2, 5, 900],
    );
    assert.equal(stats.stats_url, `${hub.url}/v1/stats`);
    assert.equal(stats.corpus?.contexts_total, 0);
    assert.ok(stats.as_of?.endsWith('Z'));

    await heartbeat(hub, 4);
    const cached = dataOf<Stats>(await h.request('GET', '/community-stats', { token: READ_TOKEN }));
    assert.equal(cached.deployments_total, 2, 'served from the cache within 30 s');
    clock.advance(31_000);
    await h.request('GET', '/community-stats', { token: READ_TOKEN }); // stale: answered, refreshed behind
    await new Promise((resolve) => setTimeout(resolve, 200));
    const fresh = dataOf<Stats>(await h.request('GET', '/community-stats', { token: READ_TOKEN }));
    assert.deepEqual([fresh.deployments_total, fresh.bots_online_sum], [3, 9]);
  });

  it('409 without a hub; 502 naming the reason when the hub cannot be reached', async (t) => {
    const none = await startHarness(t);
    const missing = await none.request('GET', '/community-stats', { token: READ_TOKEN });
    assert.equal(missing.status, 409);
    assert.match(String((missing.json as { detail?: string }).detail), /no community hub/);

    const hub = await hubOnLoopback(t);
    const gone = hub.apiBase;
    await hub.close();
    const h = await startHarness(t, { env: { CHORUS_CORPUS_COMMUNITY_API_BASE: gone } });
    const failed = await h.request('GET', '/community-stats', { token: READ_TOKEN });
    assert.equal(failed.status, 502);
    assert.match(String((failed.json as { detail?: string }).detail), /community hub unreachable: ECONNREFUSED/);
  });
});
