/**
 * History backfill (docs/rules.md#backfill): eligibility, paging in
 * keywords order from the cursor file, resume, wrap, the per-minute window, pressure and
 * full-mirror skips, failures that keep the cursor, the normalised message with group 0; and the
 * job's schedule.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it, mock, type TestContext } from 'node:test';
import {
  Backfill,
  BackfillCursorFile,
  RateWindow,
  type BackfillIneligible,
  type BackfillTarget,
} from '../../../src/community/backfill.ts';
import type { ContributeOutcome } from '../../../src/community/community-client.ts';
import { configFromValues, type ConfigSnapshot } from '../../../src/config/index.ts';
import { RemoteBudget } from '../../../src/corpus/remote-budget.ts';
import type { LearnInput } from '../../../src/domain/corpus.ts';
import { FakeClock } from '../../../src/common/clock.ts';
import { silentLog } from '../../../src/common/log.ts';
import { openStore, type LocalStore } from '../../../src/store/open-store.ts';
import { BackfillJob } from '../../../src/workers/backfill-job.ts';
import { answer, context } from '../../support/corpus-data.ts';
import { DEFAULT_REPLY } from '../../support/engines.ts';
import { FakePressure } from '../../support/corpus-fakes.ts';

class RecordingTarget implements BackfillTarget {
  readonly sent: LearnInput[] = [];
  outcome: ContributeOutcome | 'throw' = 'ok';
  async upsertAnswer(input: LearnInput): Promise<ContributeOutcome> {
    if (this.outcome === 'throw') throw new Error('hub unreachable');
    if (this.outcome === 'ok') this.sent.push(input);
    return this.outcome;
  }
}

interface Setup {
  store: LocalStore;
  backfill: Backfill;
  target: RecordingTarget;
  cursor: BackfillCursorFile;
  clock: FakeClock;
  pressure: FakePressure;
  state: { ineligible: BackfillIneligible | null; mirrorFull: boolean; batchSize: number; maxPerMinute: number };
}

async function setup(t: TestContext): Promise<Setup> {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-backfill-'));
  const store = await openStore({ databaseUrl: '', dataDir: dir, poolMax: 1, reply: DEFAULT_REPLY });
  t.after(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  const clock = new FakeClock();
  const pressure = new FakePressure();
  const target = new RecordingTarget();
  const cursor = new BackfillCursorFile(join(dir, 'corpus-backfill.json'));
  const state = { ineligible: null as BackfillIneligible | null, mirrorFull: false, batchSize: 30, maxPerMinute: 40 };
  const backfill = new Backfill({
    ineligible: () => state.ineligible,
    settings: () => state,
    store: store.corpus,
    pressure,
    mirrorFull: () => state.mirrorFull,
    target: () => target,
    budget: new RemoteBudget({ pressure: new FakePressure(), maxConcurrent: 3 }),
    cursor,
    clock,
    log: silentLog,
  });
  return { store, backfill, target, cursor, clock, pressure, state };
}

async function seed(store: LocalStore, keys: string[]): Promise<void> {
  for (const keywords of keys) {
    await store.corpus.insert(
      context(keywords, {
        answers: [answer(`${keywords}-a`, { groupId: 777, time: 50, messages: [`${keywords} said`] })],
      }),
    );
  }
}

describe('backfill rounds', () => {
  it('first round (cursor "") pushes only "alpha" and stores it; the next gets the page after it', async (t) => {
    const s = await setup(t);
    await seed(s.store, ['beta', 'alpha']);
    s.state.batchSize = 1;
    const first = await s.backfill.runRound();
    assert.deepEqual([first.outcome, first.cursor, first.pushed], ['paged', 'alpha', 1]);
    assert.deepEqual(
      s.target.sent.map((input) => input.keywords),
      ['alpha'],
    );
    assert.equal((await s.cursor.read()).cursorKeywords, 'alpha');
    const second = await s.backfill.runRound();
    assert.equal(second.cursor, 'beta');
    assert.deepEqual(
      s.target.sent.map((input) => input.keywords),
      ['alpha', 'beta'],
    );
  });

  it('uploads group 0, the first message with text after normalisation, append_on_existing', async (t) => {
    const s = await setup(t);
    await s.store.corpus.insert(
      context('早上好', {
        answers: [
          answer('早', {
            groupId: 123,
            time: 0,
            messages: ['[CQ:image,file=a.png]', '早啊[CQ:face,id=178]呀', 'later'],
          }),
          answer('[CQ:face,id=1]', { groupId: 123, messages: ['  '] }),
          answer('kw only', { groupId: 5, time: 9, messages: [] }),
        ],
      }),
    );
    await s.backfill.runRound();
    assert.deepEqual(
      s.target.sent.sort((a, b) => a.answerKeywords.localeCompare(b.answerKeywords)),
      [
        {
          keywords: '早上好',
          groupId: 0,
          answerKeywords: 'kw only',
          answerTime: 9,
          message: 'kw only',
          appendOnExisting: true,
        },
        {
          keywords: '早上好',
          groupId: 0,
          answerKeywords: '早',
          answerTime: 0,
          message: '早啊呀',
          appendOnExisting: true,
        },
      ],
    );
    assert.equal(s.backfill.counters.answersWithoutText, 1);
    assert.deepEqual(s.backfill.withheld.counts.withheld_cq_keywords, 1, 'the answer keyed by a face');
  });

  it('resumes from the cursor file after a restart, and wraps at the end', async (t) => {
    const s = await setup(t);
    await seed(s.store, ['a', 'b', 'c', 'd']);
    s.state.batchSize = 2;
    await s.backfill.runRound();
    const written = JSON.parse(await readFile(s.cursor.path, 'utf8'));
    assert.equal(written.cursor_keywords, 'b');
    assert.equal(typeof written.updated_unix, 'number');
    assert.equal((await stat(s.cursor.path)).mode & 0o777, 0o600);
    // A new Backfill on the same file (a restart) continues after "b".
    const restarted = new Backfill({
      ineligible: () => null,
      settings: () => s.state,
      store: s.store.corpus,
      pressure: s.pressure,
      mirrorFull: () => false,
      target: () => s.target,
      budget: new RemoteBudget({ pressure: s.pressure, maxConcurrent: 1 }),
      cursor: new BackfillCursorFile(s.cursor.path),
      clock: s.clock,
      log: silentLog,
    });
    assert.equal((await restarted.runRound()).cursor, 'd');
    assert.deepEqual(
      s.target.sent.map((input) => input.keywords),
      ['a', 'b', 'c', 'd'],
    );
    const wrap = await restarted.runRound();
    assert.equal(wrap.outcome, 'wrapped');
    const state = await s.cursor.read();
    assert.equal(state.cursorKeywords, '');
    assert.equal(state.wrappedUnix, 1_700_000_000);
    assert.equal((await restarted.runRound()).cursor, 'b', 'after the wrap it starts over');
  });

  it('a cursor file written by hand (keywords only) or unreadable still works', async (t) => {
    const s = await setup(t);
    await seed(s.store, ['a', 'b', 'c']);
    await writeFile(s.cursor.path, JSON.stringify({ cursor_keywords: 'a' }));
    assert.equal((await s.backfill.runRound()).cursor, 'c');
    await writeFile(s.cursor.path, 'garbage');
    assert.deepEqual(await s.cursor.read(), {
      cursorKeywords: '',
      cursorId: null,
      wrappedUnix: null,
      updatedUnix: null,
    });
  });

  it('at most MAX_PER_MINUTE contexts per fixed 60 s window', async (t) => {
    const s = await setup(t);
    await seed(s.store, ['a', 'b', 'c', 'd', 'e']);
    s.state.maxPerMinute = 2;
    await s.backfill.runRound();
    assert.equal(s.target.sent.length, 2);
    assert.equal(s.backfill.counters.rateLimited, 3);
    s.clock.advance(59_999);
    await s.backfill.runRound();
    assert.equal(s.target.sent.length, 2, 'the window has not restarted');
    s.clock.advance(1);
    await s.backfill.runRound();
    assert.deepEqual(
      s.target.sent.map((input) => input.keywords),
      ['a', 'b', 'c', 'd'],
    );
    const window = new RateWindow(() => s.clock.monotonicMs());
    assert.deepEqual([window.take(1), window.take(1)], [true, false]);
  });

  it('pressure >= 0.78 or a full mirror queue skips the round, or the item', async (t) => {
    const s = await setup(t);
    await seed(s.store, ['a', 'b']);
    s.pressure.value = 0.78;
    assert.equal((await s.backfill.runRound()).outcome, 'pressure');
    s.pressure.value = 0;
    s.state.mirrorFull = true;
    assert.equal((await s.backfill.runRound()).outcome, 'pressure');
    assert.equal(s.backfill.counters.skippedPressureRounds, 2);
    s.state.mirrorFull = false;
    // Pressure rising during the round: the item is skipped, not uploaded.
    let calls = 0;
    s.pressure.pressure = () => (++calls === 2 ? 0.9 : 0);
    await s.backfill.runRound();
    assert.deepEqual(
      s.target.sent.map((input) => input.keywords),
      ['b'],
    );
    assert.equal(s.backfill.counters.contextsSkippedPressure, 1);
    assert.equal((await s.cursor.read()).cursorKeywords, 'b', 'a later success moves the cursor past it');
  });

  it('refused or failed uploads keep the cursor: the next round retries them', async (t) => {
    const s = await setup(t);
    await seed(s.store, ['a', 'b']);
    for (const outcome of ['rejected', 'auth', 'throw'] as const) {
      s.target.outcome = outcome;
      const result = await s.backfill.runRound();
      assert.equal(result.pushed, 0);
      assert.equal((await s.cursor.read()).cursorKeywords, '', outcome);
    }
    assert.equal(s.backfill.counters.contextsFailed, 6);
    s.target.outcome = 'ok';
    s.clock.advance(60_000);
    await s.backfill.runRound();
    assert.deepEqual(
      s.target.sent.map((input) => input.keywords),
      ['a', 'b'],
    );
  });

  it('does nothing while ineligible', async (t) => {
    const s = await setup(t);
    await seed(s.store, ['a']);
    s.state.ineligible = 'not_enrolled';
    assert.deepEqual(await s.backfill.runRound(), {
      outcome: 'ineligible',
      reason: 'not_enrolled',
      pushed: 0,
      cursor: '',
    });
    assert.equal(s.target.sent.length, 0);
  });

  it('an empty corpus is an empty round (no wrap, no file)', async (t) => {
    const s = await setup(t);
    assert.equal((await s.backfill.runRound()).outcome, 'empty');
    await assert.rejects(stat(s.cursor.path));
  });
});

describe('backfill job', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));
  afterEach(() => mock.timers.reset());

  function job(values: Record<string, unknown>) {
    let config: ConfigSnapshot = configFromValues(values);
    let rounds = 0;
    const backfill = { runRound: async () => void rounds++ } as unknown as Backfill;
    const j = new BackfillJob({ backfill, config: () => config, log: silentLog });
    return {
      j,
      rounds: () => rounds,
      set: (more: Record<string, unknown>) => {
        config = configFromValues({ ...values, ...more });
      },
    };
  }

  async function settle() {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  }

  it('registered when enabled: first run after 120 s, then every interval; re-registered on change', async () => {
    const b = job({ CHORUS_CORPUS_BACKFILL_ENABLED: 'true', CHORUS_CORPUS_BACKFILL_INTERVAL_SEC: '600' });
    b.j.sync();
    mock.timers.tick(119_999);
    await settle();
    assert.equal(b.rounds(), 0);
    mock.timers.tick(1);
    await settle();
    assert.equal(b.rounds(), 1);
    mock.timers.tick(600_000);
    await settle();
    assert.equal(b.rounds(), 2);
    b.set({ CHORUS_CORPUS_BACKFILL_INTERVAL_SEC: '300' });
    assert.match(b.j.reregister().detail, /every 300 s/);
    mock.timers.tick(120_000);
    await settle();
    assert.equal(b.rounds(), 3);
    mock.timers.tick(300_000);
    await settle();
    assert.equal(b.rounds(), 4);
    b.set({ CHORUS_CORPUS_BACKFILL_ENABLED: 'false' });
    assert.match(b.j.reregister().detail, /not registered/);
    mock.timers.tick(10_000_000);
    await settle();
    assert.equal(b.rounds(), 4);
  });

  it('never registered when disabled or on a shard worker', async () => {
    for (const values of [{}, { CHORUS_CORPUS_BACKFILL_ENABLED: 'true', CHORUS_SHARD_ROLE: 'worker' }]) {
      const b = job(values);
      b.j.sync();
      mock.timers.tick(10_000_000);
      await settle();
      assert.equal(b.rounds(), 0);
      assert.equal(b.j.counters().registered, 0);
    }
  });
});
