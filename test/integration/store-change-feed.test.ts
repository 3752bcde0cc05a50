/**
 * The change feed (src/store/change-feed.ts) between two stores on one database, on both engines:
 * each process gets the other's changes once, never its own, nothing from before it started, and
 * old rows are pruned.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ChangeFeed } from '../../src/store/change-feed.ts';
import { ChangeListener } from '../../src/store/change-listener.ts';
import type { LocalStore } from '../../src/store/open-store.ts';
import { silentLog } from '../../src/common/log.ts';
import { newChangeFeed } from '../../src/app/fleet-wiring.ts';
import { FakeClock } from '../../src/common/clock.ts';
import { openStore } from '../../src/store/open-store.ts';
import { DEFAULT_REPLY, forEachEngine, PG_URL, postgresEngine, requirePostgres } from '../support/engines.ts';

function feedOn(store: LocalStore, clock: { now: number; mono: number }): { feed: ChangeFeed; got: string[] } {
  const feed = new ChangeFeed(store.engine, {
    log: silentLog,
    nowMs: () => clock.now,
    monotonicMs: () => clock.mono,
    // Polled by hand: the timer must not race the test.
    pollMs: 3_600_000,
  });
  const got: string[] = [];
  feed.subscribe('corpus', (key) => got.push(key));
  return { feed, got };
}

forEachEngine((engine) => {
  it('two processes see each other’s changes once, never their own, and nothing from before they started', async (t) => {
    const store = await engine.open(t);
    const other = await store.reopen();
    const clock = { now: 1_800_000_000_000, mono: 0 };
    const early = feedOn(store, clock);
    await early.feed.start();
    await early.feed.publish('corpus', 'before');
    await early.feed.stop();

    const a = feedOn(store, clock);
    const b = feedOn(other, clock);
    await a.feed.start();
    await b.feed.start();
    t.after(() => Promise.all([a.feed.stop(), b.feed.stop()]));

    await a.feed.publish('corpus', '你好 呀');
    await a.feed.publish('corpus', '早上 好');
    await b.feed.publish('corpus', '晚安');
    await a.feed.poll();
    await b.feed.poll();
    await b.feed.poll();
    assert.deepEqual(b.got, ['你好 呀', '早上 好'], 'each once, in order, without the row from before start');
    assert.deepEqual(a.got, ['晚安']);
    assert.deepEqual([a.feed.counters.published, a.feed.counters.received], [2, 1]);
    assert.deepEqual([b.feed.counters.published, b.feed.counters.received], [1, 2]);

    // A subscriber that throws does not stop the others or the feed.
    b.feed.subscribe('corpus', () => {
      throw new Error('broken subscriber');
    });
    await a.feed.publish('corpus', '再见');
    await b.feed.poll();
    assert.deepEqual(b.got.at(-1), '再见');
  });

  it('rows older than ten minutes are pruned', async (t) => {
    const store = await engine.open(t);
    const clock = { now: 1_800_000_000_000, mono: 0 };
    const { feed } = feedOn(store, clock);
    await feed.start();
    t.after(() => feed.stop());
    await feed.publish('corpus', 'old');
    clock.now += 11 * 60_000;
    clock.mono += 11 * 60_000;
    await feed.publish('corpus', 'new');
    await feed.poll();
    const left = await store.engine.db.selectFrom('change_feed').select('key').execute();
    assert.deepEqual(
      left.map((row) => row.key),
      ['new'],
    );
  });
});

describe('postgres: NOTIFY wakes the other process (docs/rules.md#fleet-feed)', () => {
  it('a publish reaches a listening process in well under a second with polling out of the way', async (t) => {
    if (!requirePostgres(t)) return;
    const store = await postgresEngine().open(t);
    const other = await store.reopen();
    const clock = { now: Date.now(), mono: 0 };
    const listener = (wake: () => void) =>
      new ChangeListener({
        url: PG_URL,
        schema: store.location.schema!,
        wake,
        log: silentLog,
        monotonicMs: () => performance.now(),
      });
    const a = feedOn(store, clock);
    const b = new ChangeFeed(other.engine, {
      log: silentLog,
      nowMs: () => clock.now,
      monotonicMs: () => clock.mono,
      pollMs: 3_600_000,
      listen: listener,
    });
    const arrived: { key: string; atMs: number }[] = [];
    b.subscribe('blacklist', (key) => arrived.push({ key, atMs: performance.now() }));
    await a.feed.start();
    await b.start();
    t.after(() => Promise.all([a.feed.stop(), b.stop()]));

    const delays: number[] = [];
    for (let round = 0; round < 5; round++) {
      const started = performance.now();
      await a.feed.publish('blacklist', String(500 + round));
      const deadline = started + 1_000;
      while (arrived.length <= round && performance.now() < deadline) await new Promise((r) => setTimeout(r, 2));
      assert.equal(arrived[round]?.key, String(500 + round), `round ${round} arrived within a second`);
      delays.push(arrived[round]!.atMs - started);
    }
    t.diagnostic(`NOTIFY delivery ms: ${delays.map((ms) => ms.toFixed(1)).join(', ')}`);
    assert.ok(Math.max(...delays) < 1_000);
  });

  it('a schema’s channel does not wake another schema’s process', async (t) => {
    if (!requirePostgres(t)) return;
    const mine = await postgresEngine().open(t);
    const theirs = await postgresEngine().open(t);
    let wakes = 0;
    const listener = new ChangeListener({
      url: PG_URL,
      schema: mine.location.schema!,
      wake: () => wakes++,
      log: silentLog,
      monotonicMs: () => performance.now(),
    });
    await listener.start();
    t.after(() => listener.stop());
    assert.equal(listener.listening, true);
    const afterStart = wakes;
    const feed = feedOn(theirs, { now: Date.now(), mono: 0 });
    await feed.feed.start();
    t.after(() => feed.feed.stop());
    await feed.feed.publish('corpus', 'x');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(wakes, afterStart);
  });
});

describe('sqlite: the database files changing wake the feed (docs/rules.md#idle-quiet)', () => {
  it("an idle feed reads nothing for a minute; another process's publish still arrives", async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
    const dataDir = await mkdtemp(join(tmpdir(), 'chorus-feed-watch-'));
    const open = () => openStore({ databaseUrl: '', dataDir, poolMax: 1, reply: DEFAULT_REPLY });
    const [here, there] = [await open(), await open()];
    const clock = new FakeClock(1_800_000_000_000);
    const database = { engine: 'sqlite', file: join(dataDir, 'chorus.db') } as const;
    // The feed `chorus serve` builds on SQLite, and one in another process on the same file.
    const feed = newChangeFeed(here.engine, database, silentLog, clock);
    const other = new ChangeFeed(there.engine, { log: silentLog, nowMs: () => clock.nowMs(), monotonicMs: () => 0 });
    const got: string[] = [];
    feed.subscribe('corpus', (key) => got.push(key));
    await feed.start();
    await other.start();
    t.after(async () => {
      await Promise.all([feed.stop(), other.stop()]);
      await Promise.all([here.close(), there.close()]);
      await rm(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    });
    const polls = t.mock.method(feed, 'poll');
    clock.advance(59_000);
    t.mock.timers.tick(59_000);
    assert.equal(polls.mock.callCount(), 0, 'nothing written, nothing read');

    await other.publish('corpus', '你好 呀');
    const deadline = Date.now() + 10_000;
    while (got.length === 0 && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(got, ['你好 呀'], 'the write woke the feed');
    assert.equal(polls.mock.callCount(), 1);
  });
});
