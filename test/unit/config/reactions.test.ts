/**
 * The table of configuration reactions (src/config/reactions.ts): matching by section and key,
 * the order, a throwing step reported while the others run, one run per change, and a save that
 * changes several find-cache keys clearing the find caches once (the real corpus state).
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import {
  concerns,
  ConfigReactions,
  configFromValues,
  REACTION_STEPS,
  type ConfigChange,
  type ConfigEvents,
  type ConfigKey,
  type ConfigReaction,
  type ReactionStep,
} from '../../../src/config/index.ts';
import { CorpusRuntime } from '../../../src/corpus/corpus-runtime.ts';
import { FakeClock } from '../../../src/common/clock.ts';
import { silentLog } from '../../../src/common/log.ts';
import { FakeLocal, FakePressure } from '../../support/corpus-fakes.ts';

function change(keys: string[], values: Record<string, unknown> = {}): ConfigChange {
  return {
    previous: configFromValues({}),
    current: configFromValues(values),
    changedKeys: keys as ConfigKey[],
  };
}

function recording(calls: string[], step: ReactionStep, on: Pick<ConfigReaction, 'sections' | 'keys'>): ConfigReaction {
  return {
    step,
    ...on,
    run: () => {
      calls.push(step);
      return { detail: `${step} done` };
    },
  };
}

describe('concerns', () => {
  it('matches a changed key through its section or by name, nothing else', () => {
    const performance = { sections: ['performance'] } as const;
    assert.equal(concerns(performance, ['CHORUS_CORPUS_FIND_CACHE_MAX']), true);
    assert.equal(concerns(performance, ['CHORUS_CORPUS_REPLY_SNAPSHOT_SEC', 'CHORUS_LOG_LEVEL']), true);
    // Same env prefix, another section: not a match.
    assert.equal(concerns(performance, ['CHORUS_CORPUS_REMOTE_MAX_CONCURRENT']), false);
    assert.equal(concerns(performance, ['CHORUS_CORPUS_BACKFILL_ENABLED']), false);
    const byKey = { keys: ['CHORUS_SHARD_ROLE'] } as const;
    assert.equal(concerns(byKey, ['CHORUS_SHARD_ROLE']), true);
    assert.equal(concerns(byKey, ['CHORUS_LOG_LEVEL']), false, 'a key of the same section is not the key');
    assert.equal(
      concerns({ sections: ['cleanup'], keys: ['CHORUS_SHARD_ROLE'] }, ['LLM_CORPUS_CLEANUP_SCHEDULED']),
      true,
    );
    assert.equal(concerns({}, ['CHORUS_SHARD_ROLE']), false);
    assert.equal(concerns(performance, []), false);
  });
});

describe('ConfigReactions', () => {
  it('runs what a change concerns in the order of REACTION_STEPS, whatever the assembly order, waiting for each', async () => {
    const calls: string[] = [];
    const slow: ConfigReaction = {
      step: 'restart_prefetch',
      keys: ['CHORUS_CORPUS_REMOTE_FIND_ENABLED'],
      run: async () => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        calls.push('restart_prefetch');
        return { detail: 'prefetch workers restarted' };
      },
    };
    const reactions = new ConfigReactions(
      [
        recording(calls, 'apply_onebot', { sections: ['onebot'] }),
        recording(calls, 'rebuild_shared_repository', { sections: ['corpus', 'performance', 'backfill'] }),
        slow,
        recording(calls, 'invalidate_find_cache', {
          sections: ['performance'],
          keys: ['CHORUS_CORPUS_REMOTE_FIND_ENABLED'],
        }),
        recording(calls, 'reregister_backfill', { sections: ['backfill'] }),
      ],
      silentLog,
    );
    assert.deepEqual(reactions.steps, [
      'invalidate_find_cache',
      'restart_prefetch',
      'reregister_backfill',
      'rebuild_shared_repository',
      'apply_onebot',
    ]);
    const reports = await reactions.handle(
      change([
        'CHORUS_CORPUS_REMOTE_FIND_ENABLED',
        'CHORUS_CORPUS_BACKFILL_ENABLED',
        'CHORUS_CORPUS_BACKFILL_BATCH_SIZE',
      ]),
    );
    assert.deepEqual(calls, [
      'invalidate_find_cache',
      'restart_prefetch',
      'reregister_backfill',
      'rebuild_shared_repository',
    ]);
    assert.deepEqual(reports, [
      { step: 'invalidate_find_cache', ok: true, detail: 'invalidate_find_cache done' },
      { step: 'restart_prefetch', ok: true, detail: 'prefetch workers restarted' },
      { step: 'reregister_backfill', ok: true, detail: 'reregister_backfill done' },
      { step: 'rebuild_shared_repository', ok: true, detail: 'rebuild_shared_repository done' },
      { step: 'apply_onebot', ok: true, skipped: true, detail: 'no relevant change' },
    ]);
    assert.deepEqual(
      reactions.unchanged().map((report) => [report.step, report.skipped]),
      reactions.steps.map((step) => [step, true]),
    );
  });

  it('reports a throwing step (sync or async) as failed with its message, and runs the others', async () => {
    const calls: string[] = [];
    const reactions = new ConfigReactions(
      [
        {
          step: 'invalidate_find_cache',
          sections: ['performance'],
          run: () => {
            calls.push('invalidate_find_cache');
            throw new Error('cache is gone');
          },
        },
        {
          step: 'clear_reply_caches',
          sections: ['performance'],
          run: async () => {
            calls.push('clear_reply_caches');
            throw new Error('store refused');
          },
        },
        recording(calls, 'rebuild_shared_repository', { sections: ['performance'] }),
      ],
      silentLog,
    );
    const reports = await reactions.handle(change(['CHORUS_CORPUS_REPLY_MESSAGES_CAP']));
    assert.deepEqual(calls, ['invalidate_find_cache', 'clear_reply_caches', 'rebuild_shared_repository']);
    assert.deepEqual(reports, [
      { step: 'invalidate_find_cache', ok: false, detail: 'cache is gone' },
      { step: 'clear_reply_caches', ok: false, detail: 'store refused' },
      { step: 'rebuild_shared_repository', ok: true, detail: 'rebuild_shared_repository done' },
    ]);
  });

  it('runs a change once: the event and the save that follows share one run', async () => {
    const calls: string[] = [];
    const reactions = new ConfigReactions(
      [recording(calls, 'apply_logging', { keys: ['CHORUS_LOG_LEVEL'] })],
      silentLog,
    );
    const source = new EventEmitter<ConfigEvents>();
    const unfollow = reactions.follow(source);
    const event = change(['CHORUS_LOG_LEVEL']);
    source.emit('config/changed', event);
    // Synchronous steps have run when the event returns.
    assert.deepEqual(calls, ['apply_logging']);
    const [first, second] = await Promise.all([reactions.handle(event), reactions.handle(event)]);
    assert.equal(first, second);
    assert.deepEqual(calls, ['apply_logging']);
    unfollow();
    source.emit('config/changed', change(['CHORUS_LOG_LEVEL']));
    assert.deepEqual(calls, ['apply_logging'], 'no longer followed');
  });

  it('settled() waits for the runs going, however they were started', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const calls: string[] = [];
    const reactions = new ConfigReactions(
      [
        {
          step: 'restart_prefetch',
          keys: ['CHORUS_CORPUS_REMOTE_FIND_ENABLED'],
          run: async () => {
            await gate;
            calls.push('restart_prefetch');
          },
        },
      ],
      silentLog,
    );
    await reactions.settled();
    void reactions.handle(change(['CHORUS_CORPUS_REMOTE_FIND_ENABLED']));
    let settled = false;
    const waiting = reactions.settled().then(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(settled, false, 'a run is going');
    release();
    await waiting;
    assert.deepEqual(calls, ['restart_prefetch']);
  });

  it('refuses two reactions with one step name; every step name is in the vocabulary once', () => {
    assert.throws(
      () =>
        new ConfigReactions(
          [recording([], 'apply_onebot', { sections: ['onebot'] }), recording([], 'apply_onebot', { keys: [] })],
          silentLog,
        ),
      /two configuration reactions named apply_onebot/,
    );
    assert.equal(new Set(REACTION_STEPS).size, REACTION_STEPS.length);
  });

  it('a change of several find-cache and merge keys empties the find caches once, with the new size', async () => {
    const values = { CHORUS_CORPUS_FIND_CACHE_SEC: 30, CHORUS_CORPUS_FIND_CACHE_MAX: 2000 };
    const runtime = new CorpusRuntime({
      local: new FakeLocal(),
      pressure: new FakePressure(),
      config: () => configFromValues(values),
      enrollment: () => null,
      sources: () => ({}),
      prefetch: { schedule() {} },
      clock: new FakeClock(),
      log: silentLog,
    });
    const told: (string | undefined)[] = [];
    runtime.composite.onKeyChanged((key) => told.push(key));
    const cleared: string[] = [];
    const watch = () => {
      const { merged, reply } = runtime.shared.caches;
      for (const [name, cache] of [
        ['merged', merged],
        ['reply', reply],
      ] as const) {
        const invalidate = cache.invalidate.bind(cache);
        cache.invalidate = (key?: string) => {
          cleared.push(name);
          invalidate(key);
        };
      }
      return { merged, reply };
    };
    const { merged, reply } = watch();
    const reactions = new ConfigReactions(runtime.shared.configReactions(), silentLog);
    const reports = await reactions.handle(
      change(
        [
          'CHORUS_CORPUS_MERGE_ORDER',
          'CHORUS_CORPUS_REMOTE_FIND_ENABLED',
          'CHORUS_CORPUS_FIND_CACHE_SEC',
          'CHORUS_CORPUS_FIND_CACHE_MAX',
          'CHORUS_CORPUS_REPLY_SNAPSHOT_SEC',
        ],
        values,
      ),
    );
    assert.deepEqual(told, [undefined], 'the key listeners are told once that every key may have changed');
    // The new size replaced both caches (empty); the old ones were not also cleared one by one.
    assert.deepEqual(cleared, []);
    assert.notEqual(runtime.shared.caches.merged, merged);
    assert.notEqual(runtime.shared.caches.reply, reply);
    assert.deepEqual(
      reports.map((report) => [report.step, report.ok, report.skipped ?? false]),
      [
        ['invalidate_find_cache', true, false],
        ['apply_remote_budget', true, true],
      ],
    );

    // Without a size change the caches are cleared in place, once each.
    told.length = 0;
    watch();
    await reactions.handle(change(['CHORUS_CORPUS_MERGE_STRATEGY', 'CHORUS_CORPUS_REPLY_MESSAGES_CAP'], values));
    assert.deepEqual(cleared, ['merged', 'reply']);
    assert.deepEqual(told, [undefined]);
  });
});
