/** The mirror leaves out the pairs of a group whose config has `share` off (src/corpus/mirror-queue.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { MirrorQueue } from '../../../src/corpus/mirror-queue.ts';
import { answer, context, learn } from '../../support/corpus-data.ts';
import { FakePressure } from '../../support/corpus-fakes.ts';

it("queues only shared groups' answers: a learned pair of a private group, and its answers in a context", () => {
  const queue = new MirrorQueue({
    pressure: new FakePressure(),
    contributionEnabled: () => true,
    shareGroup: (groupId) => groupId !== 2,
  });
  queue.scheduleUpsert(learn('k', 'a', { groupId: 2 }));
  queue.scheduleInsert(context('only-private', { answers: [answer('a', { groupId: 2 })] }));
  queue.scheduleUpsert(learn('k', 'b', { groupId: 1 }));
  queue.scheduleInsert(context('mixed', { answers: [answer('a', { groupId: 2 }), answer('c', { groupId: 3 })] }));
  const items = [];
  for (let item = queue.queue.take(); item; item = queue.queue.take()) items.push(item);
  assert.deepEqual(
    items.map((item) =>
      item.kind === 'upsert'
        ? ['upsert', item.input.answerKeywords, item.input.groupId]
        : ['insert', item.context.keywords, item.context.answers.map((a) => a.groupId)],
    ),
    [
      ['upsert', 'b', 1],
      ['insert', 'mixed', [3]],
    ],
  );
  assert.equal(queue.counters.queued, 2);
});
