/**
 * The dashboards over real HTTP on the console harness (no chat running): /home/overview reports
 * a failing part as degraded on its own while the rest answers, /system describes this process,
 * and the chat routes answer their empty forms; bad queries are a 400 naming the field.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dataOf, READ_TOKEN, startHarness } from '../unit/console/harness.ts';

interface Slice {
  status: string;
  error: string | null;
  data: unknown;
}

describe('dashboards', () => {
  it('a failing part of the overview is degraded alone; the others still answer', async (t) => {
    const h = await startHarness(t, {
      health: () => {
        throw new Error('health source exploded');
      },
    });
    const overview = dataOf<Record<string, Slice>>(await h.request('GET', '/home/overview', { token: READ_TOKEN }));
    assert.deepEqual(overview.health, { status: 'degraded', error: 'health source exploded', data: null });
    for (const part of ['system', 'bots', 'activity', 'community']) {
      assert.equal(overview[part]?.status, 'ok', `${part}: ${overview[part]?.error}`);
    }
    assert.deepEqual(overview.bots?.data, []);
    assert.deepEqual(overview.activity?.data, { received_per_min: 0, replies_per_min: 0, decisions_last_hour: {} });
  });

  it('/system describes this process; a second call has CPU shares', async (t) => {
    const h = await startHarness(t);
    const first = dataOf<{ engine: string; node_version: string; process: { rss_bytes: number }; disk: unknown }>(
      await h.request('GET', '/system', { token: READ_TOKEN }),
    );
    assert.equal(first.engine, 'sqlite');
    assert.equal(first.node_version, process.version);
    assert.ok(first.process.rss_bytes > 1_000_000);
    assert.ok(first.disk !== null);
    // The answer is cached for a second (then served stale while one refresh runs): a later
    // answer was sampled after the first, so it has CPU shares over the time between.
    type Cpu = { process: { cpu_percent: number | null }; host: { cpu_percent: number | null } };
    let later: Cpu | undefined;
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      later = dataOf<Cpu>(await h.request('GET', '/system', { token: READ_TOKEN }));
      if (later.process.cpu_percent !== null) break;
    }
    assert.equal(typeof later?.process.cpu_percent, 'number');
    assert.equal(typeof later?.host.cpu_percent, 'number');
  });

  it('the chat routes answer their empty forms; bad queries name the field', async (t) => {
    const h = await startHarness(t);
    assert.deepEqual(dataOf(await h.request('GET', '/bots', { token: READ_TOKEN })), []);
    assert.deepEqual(dataOf(await h.request('GET', '/repeater/groups', { token: READ_TOKEN })), []);
    assert.deepEqual(dataOf(await h.request('GET', '/repeater-metrics/history', { token: READ_TOKEN })), []);
    const stats = dataOf<{ minutes: unknown[]; totals: unknown }>(
      await h.request('GET', '/message-stats', { token: READ_TOKEN, query: { minutes: '30' } }),
    );
    assert.equal(stats.minutes.length, 30);
    assert.deepEqual(stats.totals, { received: 0, replies: 0, sent: 0 });
    for (const [path, query, field] of [
      ['/message-stats', { minutes: '0' }, /query\.minutes/],
      ['/message-stats', { self_id: 'x' }, /query\.self_id/],
      ['/repeater/decisions', { group_id: '-1' }, /query\.group_id/],
      ['/repeater-metrics/history', { limit: '1000' }, /query\.limit/],
      ['/log-errors', { limit: '0' }, /query\.limit/],
    ] as const) {
      const reply = await h.request('GET', path, { token: READ_TOKEN, query: { ...query } });
      assert.equal(reply.status, 400, `${path} ${JSON.stringify(query)}`);
      assert.match((reply.json as { detail: string }).detail, field);
    }
  });
});
