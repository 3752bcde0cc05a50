/**
 * What one process learned reaches the fleet's other processes (docs/rules.md#fleet-feed): a
 * batch's context keys go as `learned` changes of at most 64 keys, and a malformed change from
 * another process is logged and dropped, never applied.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { followChanges, learnedKeys, publishLearned, type FleetParts } from '../../../src/app/fleet-wiring.ts';
import type { Log } from '../../../src/common/log.ts';
import { TaskSet } from '../../../src/common/task-set.ts';
import type { ChangeFeed, ChangeTopic } from '../../../src/store/change-feed.ts';

describe('learned keys on the change feed', () => {
  it('a batch goes in changes of at most 64 keys, each a JSON list that reads back', () => {
    const sent: [ChangeTopic, string][] = [];
    const keys = Array.from({ length: 130 }, (_, index) => `关键 词${index}`);
    publishLearned((topic, key) => sent.push([topic, key]), keys);
    assert.deepEqual(
      sent.map(([topic, key]) => [topic, learnedKeys(key)?.length]),
      [
        ['learned', 64],
        ['learned', 64],
        ['learned', 2],
      ],
    );
    assert.deepEqual(
      sent.flatMap(([, key]) => learnedKeys(key) ?? []),
      keys,
    );
  });

  it('the other process forgets each learned key; a malformed change is logged and dropped', () => {
    const subscribers = new Map<ChangeTopic, (key: string) => void>();
    const feed = { subscribe: (topic: ChangeTopic, take: (key: string) => void) => subscribers.set(topic, take) };
    const forgotten: string[] = [];
    const warned: string[] = [];
    const log = { warn: (_fields: unknown, message: string) => warned.push(message) } as unknown as Log;
    const parts = { forgetLearnedKey: (keywords: string) => forgotten.push(keywords), log } as unknown as FleetParts;
    followChanges(feed as unknown as ChangeFeed, new TaskSet(() => undefined), parts);
    const learned = subscribers.get('learned')!;
    learned(JSON.stringify(['早上 好', '晚安']));
    for (const bad of ['not json', '{"a":1}', '[1,2]', '["ok", null]']) learned(bad);
    assert.deepEqual(forgotten, ['早上 好', '晚安']);
    assert.equal(warned.length, 4);
  });
});
