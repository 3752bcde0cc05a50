/**
 * The home page's routes over real HTTP on the console harness: the first-run checklist gives the
 * OneBot token to the write level only (a read session learns only that one is set) and ticks its
 * message step once a daily count is stored; /home/status says the hub is reachable while a real
 * hub on loopback answers and unreachable (since when, and why) once it is closed, and counts
 * silenced groups; /home/daily adds up today and this week per group from the stored statistics.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FakeClock } from '../../src/common/clock.ts';
import { silentLog } from '../../src/common/log.ts';
import { localDay, localWeekStart } from '../../src/console/local-day.ts';
import { startHub } from '../../src/hub/start.ts';
import { DailyStatsStore, type DailyRow } from '../../src/store/daily-stats.ts';
import { dataOf, READ_TOKEN, startHarness, WRITE_TOKEN } from '../unit/console/harness.ts';

const ONEBOT_TOKEN = 'onebot-secret-for-the-home-test';

interface FirstRun {
  onebot_path: string;
  port: number;
  token_set: boolean;
  token: string | null;
  accounts_connected: number;
  first_message: boolean;
  done: boolean;
}
interface Hub {
  state: string;
  since: number | null;
  checked_at: number | null;
  problem: { code: string; detail: string } | null;
}
interface Status {
  hub: Hub;
  silenced_groups: number | null;
  ignored_groups: number | null;
  pending_requests: number | null;
}
type Counts = { received: number; replies: number };
interface Daily {
  today: string;
  week_start: string;
  totals: { today: Counts; week: Counts };
  groups: { group_id: number; today: Counts; week: Counts }[];
}

const row = (day: string, groupId: number, received: number, replies: number, selfId = 10001): DailyRow => ({
  day,
  selfId,
  groupId,
  received,
  replies_group: replies,
  replies_proactive: 0,
  replies_cross_group: 0,
  replies_community: 0,
  replies_repeat: 0,
  learn_queued: 0,
  bans: 0,
});

describe('home routes', () => {
  it('first run: the token only at the write level; the message step ticks once a count is stored', async (t) => {
    const h = await startHarness(t, { env: { CHORUS_ONEBOT_ACCESS_TOKEN: ONEBOT_TOKEN, CHORUS_PORT: '18088' } });
    const read = dataOf<FirstRun>(await h.request('GET', '/home/first-run', { token: READ_TOKEN }));
    assert.deepEqual(read, {
      onebot_path: '/onebot/v11/ws',
      port: 18088,
      token_set: true,
      token: null,
      accounts_connected: 0,
      first_message: false,
      done: false,
    });
    const write = dataOf<FirstRun>(await h.request('GET', '/home/first-run', { token: WRITE_TOKEN }));
    assert.equal(write.token, ONEBOT_TOKEN);

    await new DailyStatsStore(h.store.engine).add([row(localDay(Date.now()), 501, 1, 0)]);
    const after = dataOf<FirstRun>(await h.request('GET', '/home/first-run', { token: READ_TOKEN }));
    assert.equal(after.first_message, true);
    assert.equal(after.done, true);
    assert.equal(after.token, null);
  });

  it('without a token set, the read level learns that none is set', async (t) => {
    const h = await startHarness(t);
    const read = dataOf<FirstRun>(await h.request('GET', '/home/first-run', { token: READ_TOKEN }));
    assert.equal(read.token_set, false);
    assert.equal(read.token, null);
  });

  it('status: the hub reachable, then unreachable since the probe that failed; silenced groups counted', async (t) => {
    const hubDir = await mkdtemp(join(tmpdir(), 'chorus-home-hub-'));
    t.after(() => rm(hubDir, { recursive: true, force: true, maxRetries: 5 }));
    const hub = await startHub({ host: '127.0.0.1', port: 0, databaseUrl: '', dataDir: hubDir, log: silentLog });
    let hubOpen = true;
    t.after(() => (hubOpen ? hub.close() : undefined));
    const clock = new FakeClock(Date.now());
    const h = await startHarness(t, { clock, env: { CHORUS_CORPUS_COMMUNITY_API_BASE: hub.apiBase } });

    const first = dataOf<Status>(await h.request('GET', '/home/status', { token: READ_TOKEN }));
    assert.equal(first.hub.state, 'reachable', JSON.stringify(first.hub));
    assert.equal(first.hub.since, clock.nowMs());
    assert.equal(first.pending_requests, 0);
    assert.equal(first.silenced_groups, 0);

    const silenced = await h.request('PUT', '/group-configs/9001', {
      token: WRITE_TOKEN,
      body: { silence_until: Math.floor(clock.nowMs() / 1000) + 600 },
    });
    assert.equal(silenced.status, 200, JSON.stringify(silenced.json));

    await hub.close();
    hubOpen = false;
    // Within 15 s the last answer stands; after it, the hub is asked again.
    clock.advance(16_000);
    const down = dataOf<Status>(await h.request('GET', '/home/status', { token: READ_TOKEN }));
    assert.equal(down.hub.state, 'unreachable');
    assert.equal(down.hub.since, clock.nowMs());
    assert.equal(down.hub.problem?.code, 'connection');
    assert.equal(down.silenced_groups, 1);
    clock.advance(16_000);
    const still = dataOf<Hub>(await h.request('GET', '/hub-reachability', { token: READ_TOKEN }));
    assert.equal(still.state, 'unreachable');
    assert.equal(still.since, down.hub.since, 'since stays the moment it went down');
    assert.equal(still.checked_at, clock.nowMs());
  });

  it('status without a hub says not configured', async (t) => {
    const h = await startHarness(t);
    const status = dataOf<Status>(await h.request('GET', '/home/status', { token: READ_TOKEN }));
    assert.equal(status.hub.state, 'not_configured');
  });

  it("daily: today's and this week's messages and replies per group, accounts of one group added up", async (t) => {
    const h = await startHarness(t);
    const now = Date.now();
    const today = localDay(now);
    const weekStart = localWeekStart(now);
    const before = localDay(new Date(`${weekStart}T12:00:00`).getTime() - 86_400_000);
    const rows = [
      row(today, 501, 10, 3),
      row(today, 501, 5, 1, 10002),
      row(before, 501, 100, 50),
      row(today, 502, 2, 0),
    ];
    if (weekStart !== today) rows.push(row(weekStart, 502, 7, 2));
    await new DailyStatsStore(h.store.engine).add(rows);
    const daily = dataOf<Daily>(await h.request('GET', '/home/daily', { token: READ_TOKEN }));
    assert.equal(daily.today, today);
    assert.equal(daily.week_start, weekStart);
    const group501 = daily.groups.find((group) => group.group_id === 501);
    assert.deepEqual(group501?.today, { received: 15, replies: 4 });
    assert.deepEqual(group501?.week, { received: 15, replies: 4 }, 'the day before Monday is not this week');
    const group502 = daily.groups.find((group) => group.group_id === 502);
    assert.deepEqual(group502?.today, { received: 2, replies: 0 });
    assert.deepEqual(group502?.week, weekStart !== today ? { received: 9, replies: 2 } : { received: 2, replies: 0 });
    assert.deepEqual(daily.totals.today, { received: 17, replies: 4 });
  });
});
