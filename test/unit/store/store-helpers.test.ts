/** Pure helpers of the store: BusyWindow, AdaptiveChunk, replyCaps, template() and toNumber(). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { SQLITE_PRESSURE_WINDOW_MS } from '../../../src/common/limits.ts';
import { AdaptiveChunk } from '../../../src/common/adaptive-chunk.ts';
import { BusyWindow } from '../../../src/sql/busy-window.ts';
import { replyCaps, type ReplySettings } from '../../../src/store/corpus-store.ts';
import { bound, template, type Param } from '../../../src/sql/query.ts';
import { toNumber, toNumberOr } from '../../../src/sql/numbers.ts';
import type { Database } from '../../../src/store/schema.ts';

describe('BusyWindow', () => {
  const window = () => {
    let now = 10_000;
    const busy = new BusyWindow(() => now);
    return { busy, at: (ms: number) => (now = ms) };
  };

  it('is 0 when nothing was recorded', () => {
    assert.equal(window().busy.fraction(), 0);
  });

  it('is the busy time over the last second', () => {
    const { busy, at } = window();
    at(10_000);
    busy.record(100);
    assert.equal(busy.fraction(), 0.1);
    at(10_050);
    busy.record(50);
    at(10_420);
    busy.record(250);
    assert.equal(busy.fraction(), 0.4);
    at(10_999);
    assert.equal(busy.fraction(), 0.4);
  });

  it('forgets buckets older than the window, one bucket at a time', () => {
    const { busy, at } = window();
    at(10_000);
    busy.record(100);
    at(10_500);
    busy.record(200);
    at(10_000 + SQLITE_PRESSURE_WINDOW_MS);
    assert.equal(busy.fraction(), 0.2);
    at(10_500 + SQLITE_PRESSURE_WINDOW_MS);
    assert.equal(busy.fraction(), 0);
  });

  it('reuses a slot for a new period without carrying the old time', () => {
    const { busy, at } = window();
    at(10_000);
    busy.record(300);
    at(11_010); // same slot, ten buckets later
    busy.record(10);
    assert.equal(busy.fraction(), 0.01);
  });

  it('is capped at 1', () => {
    const { busy } = window();
    busy.record(5000);
    assert.equal(busy.fraction(), 1);
  });
});

describe('AdaptiveChunk', () => {
  it('shrinks in proportion to an overrun, doubles after a quick step, keeps the size in between', () => {
    const chunk = new AdaptiveChunk(100, 10, 400, 6);
    chunk.record(12);
    assert.equal(chunk.size, 50, 'twice the target: half the size');
    chunk.record(60);
    assert.equal(chunk.size, 10, 'ten times the target: a tenth (bounded below by min)');
    chunk.record(3);
    assert.equal(chunk.size, 10);
    chunk.record(1.9);
    assert.equal(chunk.size, 20);
    chunk.record(6);
    assert.equal(chunk.size, 20);
  });

  it('stays within its bounds', () => {
    const chunk = new AdaptiveChunk(100, 30, 300, 6);
    for (let i = 0; i < 10; i++) chunk.record(100);
    assert.equal(chunk.size, 30);
    for (let i = 0; i < 10; i++) chunk.record(0);
    assert.equal(chunk.size, 300);
  });
});

describe('replyCaps', () => {
  const settings: ReplySettings = {
    replyMessagesCap: 16,
    replyAnswersCap: 128,
    replySnapshotSec: 5,
    replySnapshotMax: 20000,
    replyQueryTimeoutSec: 2,
  };

  it('tightens by character length: <= 2 → 6/48, 3 → 8/64, longer → the settings', () => {
    assert.deepEqual(replyCaps('hi', settings), { messages: 6, answers: 48 });
    assert.deepEqual(replyCaps('h', settings), { messages: 6, answers: 48 });
    assert.deepEqual(replyCaps('abc', settings), { messages: 8, answers: 64 });
    assert.deepEqual(replyCaps('abcd', settings), { messages: 16, answers: 128 });
    assert.deepEqual(replyCaps('你好', settings), { messages: 6, answers: 48 });
    assert.deepEqual(replyCaps('你好吗', settings), { messages: 8, answers: 64 });
    assert.deepEqual(replyCaps('a b c d e', settings), { messages: 16, answers: 128 });
  });

  it('counts code points, not UTF-16 units (an emoji is one character)', () => {
    assert.deepEqual(replyCaps('😀😀', settings), { messages: 6, answers: 48 });
    assert.deepEqual(replyCaps('😀😀😀', settings), { messages: 8, answers: 64 });
    assert.deepEqual(replyCaps('😀😀😀😀', settings), { messages: 16, answers: 128 });
  });

  it('never raises a cap above the settings', () => {
    const low = { ...settings, replyMessagesCap: 4, replyAnswersCap: 32 };
    assert.deepEqual(replyCaps('hi', low), { messages: 4, answers: 32 });
    assert.deepEqual(replyCaps('abc', low), { messages: 4, answers: 32 });
    assert.deepEqual(replyCaps('abcdef', low), { messages: 4, answers: 32 });
  });
});

describe('template', () => {
  const dialects = {
    sqlite: { adapter: SqliteAdapter, introspector: SqliteIntrospector, compiler: SqliteQueryCompiler },
    postgres: { adapter: PostgresAdapter, introspector: PostgresIntrospector, compiler: PostgresQueryCompiler },
  };
  for (const [name, parts] of Object.entries(dialects)) {
    const db = new Kysely<Database>({
      dialect: {
        createAdapter: () => new parts.adapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (kysely) => new parts.introspector(kysely),
        createQueryCompiler: () => new parts.compiler(),
      },
    });

    it(`${name}: compiles once and binds named parameters in order, keeping constants`, () => {
      let builds = 0;
      const query = template((p: Param<{ group: number; text: string }>) => {
        builds++;
        return db
          .selectFrom('message')
          .select('id')
          .where('group_id', '=', p('group'))
          .where('raw_message', '=', 'constant')
          .where('keywords', '=', p('text'))
          .where('user_id', '=', p('group'))
          .limit(7);
      });
      const first = query({ group: 5, text: 'x' });
      const second = query({ group: 6, text: 'y\u0000z' });
      assert.equal(builds, 1);
      assert.deepEqual(first.parameters, [5, 'constant', 'x', 5, 7]);
      assert.deepEqual(second.parameters, [6, 'constant', 'y\u0000z', 6, 7]);
      assert.equal(first.sql, second.sql);
      assert.equal(first.prepared, true);
      assert.ok(!first.sql.includes('chorus-param'));
      assert.match(first.sql, name === 'postgres' ? /\$5/ : /\?/);
    });

    it(`${name}: bound() compiles per call and is not prepared`, () => {
      const query = bound(db.deleteFrom('context_answer').where('id', 'in', [1, 2, 3]));
      assert.deepEqual(query.parameters, [1, 2, 3]);
      assert.equal(query.prepared, undefined);
    });
  }
});

describe('toNumber / toNumberOr', () => {
  it('reads a driver number in any of its shapes', () => {
    assert.equal(toNumber(42), 42);
    assert.equal(toNumber('9007199254740991'), 9007199254740991);
    assert.equal(toNumber(12n), 12);
  });

  it('gives the fallback only for no value or NULL, not for 0', () => {
    assert.equal(toNumberOr(undefined, 7), 7);
    assert.equal(toNumberOr(null, 7), 7);
    assert.equal(toNumberOr('0', 7), 0);
    assert.equal(toNumberOr(0, 7), 0);
  });
});
