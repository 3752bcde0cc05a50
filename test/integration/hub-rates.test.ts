/**
 * Abuse costs the attacker, not the hub (docs/hub.md#rates), on SQLite and PostgreSQL over real
 * HTTP: enrollments per address per hour and for all addresses, contributions per deployment per
 * minute, each a 429 with Retry-After counted on GET /health; and a flood of 20,000 refused
 * requests grows the hub's database (and on SQLite its WAL) by under 1 MiB.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { it } from 'node:test';
import { sql } from 'kysely';
import { FakeClock } from '../../src/common/clock.ts';
import { HUB_SQLITE_FILE } from '../../src/hub/open-hub-store.ts';
import { forEachEngine } from '../support/engines.ts';
import { HUB_TABLES, HubClient, openHub, type TestHub } from './hub-support.ts';

const START_MS = Date.UTC(2026, 0, 1, 10, 0, 20);
const MIB = 1024 * 1024;

async function refused(client: HubClient) {
  return (await client.get('/health')).body.refused as Record<string, number>;
}

/** The hub's bytes on disk: hub.db and its WAL (SQLite), or its tables with indexes (PostgreSQL). */
async function hubBytes(hub: TestHub): Promise<number> {
  if (hub.hub.engine === 'sqlite') {
    const file = join(hub.location.dataDir, HUB_SQLITE_FILE);
    const size = async (path: string) => (await stat(path).catch(() => ({ size: 0 }))).size;
    return (await size(file)) + (await size(`${file}-wal`));
  }
  let total = 0;
  for (const table of HUB_TABLES) {
    const result = await sql<{
      bytes: string;
    }>`SELECT pg_total_relation_size(${table}::regclass) AS bytes`.execute(hub.store.engine.db);
    total += Number(result.rows[0]?.bytes ?? 0);
  }
  return total;
}

forEachEngine((engine) => {
  it('enrollments per address per hour and for all addresses: 429 with Retry-After, counted on /health', async (t) => {
    const clock = new FakeClock(START_MS);
    const hub = await openHub(t, engine, { clock, enrollPerIpPerMinute: 0, enrollPerIpPerHour: 3, enrollPerMinute: 5 });
    const one = new HubClient(hub.hub.url, '127.0.0.2');
    for (let i = 0; i < 3; i++) await one.enroll();
    const limited = await one.post('/v1/corpus/enroll', { deployment_id: randomUUID() });
    assert.deepEqual(
      [limited.status, limited.body.detail, limited.headers.get('retry-after')],
      [429, 'enroll limit reached: 3 per hour', String(3600 - 20)],
    );
    const two = new HubClient(hub.hub.url, '127.0.0.3');
    await two.enroll();
    await two.enroll();
    const global = await new HubClient(hub.hub.url, '127.0.0.4').post('/v1/corpus/enroll', {
      deployment_id: randomUUID(),
    });
    assert.deepEqual(
      [global.status, global.body.detail, global.headers.get('retry-after')],
      [429, 'enroll limit reached: 5 per minute from all addresses', '40'],
    );
    assert.equal((await hub.rows('hub_deployment')).length, 5, 'refused enrollments wrote nothing');
    const counts = await refused(hub.client);
    assert.deepEqual([counts.enroll_per_address_hour, counts.enroll_global], [1, 1]);
    clock.advance(40_000);
    assert.equal((await two.post('/v1/corpus/enroll', { deployment_id: randomUUID() })).status, 200, 'next minute');
  });

  it('contributions per deployment per minute: 429 with Retry-After, nothing written, counted on /health', async (t) => {
    const clock = new FakeClock(START_MS);
    const hub = await openHub(t, engine, { clock, contributionsPerMinute: 2 });
    const { corpus_token: token } = await hub.client.enroll();
    const upsert = (answer: string) =>
      hub.client.contribute({ op: 'upsert_answer', keywords: 'k', answer_keywords: answer }, token);
    assert.equal((await upsert('a')).status, 200);
    assert.equal((await upsert('b')).status, 200);
    const limited = await upsert('c');
    assert.deepEqual(
      [limited.status, limited.body.detail, limited.headers.get('retry-after')],
      [429, 'contribution limit reached: 2 per minute', '40'],
    );
    assert.equal((await hub.rows('hub_answer')).length, 2);
    assert.equal((await hub.client.get('/v1/corpus/usage', token)).body.contribute_ok, 2);
    assert.equal((await refused(hub.client)).contribute_per_minute, 1);
    clock.advance(40_000);
    assert.equal((await upsert('c')).status, 200);
  });

  it('a flood of 20,000 refused requests grows the database and its WAL by under 1 MiB', async (t) => {
    const hub = await openHub(t, engine, {
      enrollPerIpPerMinute: 1,
      enrollPerIpPerHour: 1,
      heartbeatPerIpPerMinute: 1,
      readPerMinute: 1,
      contributionsPerMinute: 1,
    });
    const attacker = new HubClient(hub.hub.url);
    const { corpus_token: token } = await attacker.enroll();
    await attacker.contribute({ op: 'upsert_answer', keywords: 'k', answer_keywords: 'a' }, token);
    await attacker.context('k', token);
    await attacker.post('/v1/heartbeat', { deployment_id: randomUUID() });
    const before = await hubBytes(hub);
    const kinds = [
      () => attacker.post('/v1/corpus/enroll', { deployment_id: randomUUID() }),
      () => attacker.contribute({ op: 'upsert_answer', keywords: 'flood', answer_keywords: 'a' }, token),
      () => attacker.context('k', token),
      () => attacker.post('/v1/heartbeat', { deployment_id: randomUUID() }),
      () => attacker.context('k', 'pc_not-a-token'),
    ];
    const total = 20_000;
    const statuses = new Map<number, number>();
    let sent = 0;
    const worker = async () => {
      while (sent < total) {
        const index = sent++ % kinds.length;
        const kind = kinds[index];
        if (!kind) break;
        const reply = await kind();
        const key = reply.status === 200 ? 200 + index / 10 : reply.status;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    const accepted = [...statuses].filter(([status]) => Math.floor(status) === 200).reduce((sum, [, n]) => sum + n, 0);
    // A window that turned over during the flood admits one more of each kind.
    assert.ok(accepted <= 40, `refused, all but a window's turn: ${JSON.stringify([...statuses])}`);
    assert.equal((statuses.get(429) ?? 0) + (statuses.get(401) ?? 0) + accepted, total);
    const grown = (await hubBytes(hub)) - before;
    t.diagnostic(`${engine.kind}: grew by ${grown} bytes; replies ${JSON.stringify([...statuses])}`);
    assert.ok(grown < MIB, `grew by ${grown} bytes`);
    const counts = await refused(attacker);
    assert.ok(
      (counts.read_per_minute ?? 0) > 3000 && (counts.heartbeat_per_address ?? 0) > 3000,
      JSON.stringify(counts),
    );
  });
});
