/** The history seed's paging, depth, mark, account choice and cancel (src/repeater/history-seed.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { GroupChatMessage } from '../../../src/domain/chat.ts';
import type { ChatHistory, HistoryMessage, HistoryPage } from '../../../src/ports/chat.ts';
import type { HistoryLearner, HistoryOutcome } from '../../../src/repeater/history-learn.ts';
import { seedHistory, type SeedOptions } from '../../../src/repeater/history-seed.ts';

const GROUP = 500;
const message = (id: number): HistoryMessage => ({
  seq: id,
  message: {
    selfId: 1,
    groupId: GROUP,
    userId: 42,
    messageId: id,
    time: 1000 + id,
    rawMessage: `m${id}`,
    plainText: `m${id}`,
    senderName: '',
    senderRole: 'member',
    replyToMessageId: null,
    mentionsSelf: false,
  },
});

/** A history of messages 1..total, answered in pages of at most `pageMax`, ending at the seq asked. */
function history(total: number, pageMax: number, calls: number[][]): ChatHistory {
  return {
    groupHistory: async (selfId, _groupId, beforeSeq, count): Promise<HistoryPage> => {
      calls.push([selfId, beforeSeq, count]);
      const end = beforeSeq === 0 ? total : beforeSeq;
      const start = Math.max(1, end - Math.min(count, pageMax) + 1);
      return {
        kind: 'page',
        messages: Array.from({ length: end - start + 1 }, (_, i) => message(start + i)),
        dropped: 0,
      };
    },
  };
}

function learner(offered: number[], outcome: HistoryOutcome = 'learned'): HistoryLearner {
  return {
    offer: async (m: GroupChatMessage) => {
      offered.push(m.messageId);
      return outcome;
    },
  } as unknown as HistoryLearner;
}

const options = (over: Partial<SeedOptions>): SeedOptions => ({
  history: history(0, 10, []),
  selfIds: [1],
  groupId: GROUP,
  depth: 100,
  learner: learner([]),
  queuePressure: () => 0,
  sleep: async () => undefined,
  signal: new AbortController().signal,
  report: () => undefined,
  ...over,
});

it('pages back from the newest to the depth and offers oldest first', async () => {
  const calls: number[][] = [];
  const offered: number[] = [];
  const result = await seedHistory(options({ history: history(95, 10, calls), depth: 25, learner: learner(offered) }));
  assert.equal(result.kind, 'done');
  assert.deepEqual(
    offered,
    Array.from({ length: 25 }, (_, i) => 71 + i),
  );
  assert.deepEqual(
    calls.map((c) => c[1]),
    [0, 86, 77],
    'each page ends at the oldest message of the one before',
  );
  if (result.kind === 'done') assert.deepEqual([result.counts.fetched, result.counts.learned], [25, 25]);
});

it('stops at the start of the history and at the mark of an earlier seed', async () => {
  const offered: number[] = [];
  await seedHistory(options({ history: history(12, 5, []), learner: learner(offered) }));
  assert.deepEqual(
    offered,
    Array.from({ length: 12 }, (_, i) => i + 1),
  );
  const after: number[] = [];
  const calls: number[][] = [];
  await seedHistory(options({ history: history(40, 5, calls), after: 1000 + 33, learner: learner(after) }));
  assert.deepEqual(after, [34, 35, 36, 37, 38, 39, 40]);
  assert.equal(calls.length, 2, 'no page read past the mark');
});

it('counts skips by reason, waits while the learning queue is full, and stops when cancelled', async () => {
  let pressure = 1;
  let waits = 0;
  const skipped = await seedHistory(
    options({
      history: history(3, 10, []),
      learner: learner([], 'command'),
      queuePressure: () => pressure,
      sleep: async () => {
        waits++;
        pressure = 0;
      },
    }),
  );
  assert.equal(waits, 1);
  assert.ok(skipped.kind === 'done' && skipped.counts.skippedBy.command === 3 && skipped.counts.skipped === 3);

  const abort = new AbortController();
  const offered: number[] = [];
  const cancelled = await seedHistory(
    options({
      history: history(30, 10, []),
      learner: {
        offer: async (m: GroupChatMessage) => {
          offered.push(m.messageId);
          if (offered.length === 4) abort.abort();
          return 'learned';
        },
      } as unknown as HistoryLearner,
      signal: abort.signal,
    }),
  );
  assert.equal(cancelled.kind, 'cancelled');
  assert.deepEqual(offered, [1, 2, 3, 4]);
  if (cancelled.kind === 'cancelled') assert.equal(cancelled.offeredUntil, 1004);
});

it('tries the accounts in turn; unsupported when none has the action', async () => {
  const calls: number[][] = [];
  const failing: ChatHistory = {
    groupHistory: async (selfId, groupId, beforeSeq, count) => {
      if (selfId === 1) throw new Error('not a member');
      if (selfId === 2) return { kind: 'unsupported', detail: 'retcode 1404' };
      return history(3, 10, calls).groupHistory(selfId, groupId, beforeSeq, count);
    },
  };
  const result = await seedHistory(options({ history: failing, selfIds: [1, 2, 3] }));
  assert.ok(result.kind === 'done' && result.selfId === 3);
  const none = await seedHistory(options({ history: failing, selfIds: [1, 2] }));
  assert.deepEqual(none, { kind: 'unsupported', selfId: 2, detail: 'retcode 1404' });
  await assert.rejects(seedHistory(options({ history: failing, selfIds: [1] })), /not a member/);
  assert.deepEqual(await seedHistory(options({ selfIds: [] })), { kind: 'no-account' });
});
