/** What the console keeps of the decisions: bounded rings per group, per-minute and hourly counts. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ChatActivity,
  DecisionRing,
  explainDecision,
  judgeAnswers,
  latencyPercentile,
  LATENCY_BUCKETS_MS,
  type RepeaterDecision,
} from '../../../src/repeater/index.ts';

function decision(overrides: Partial<RepeaterDecision> = {}): RepeaterDecision {
  return {
    groupId: 1,
    selfId: 100,
    userId: 5,
    messageId: 1,
    outcome: 'skipped',
    reason: 'no-context',
    texts: [],
    answerKeywords: null,
    keywords: 'k',
    learn: 'queued',
    cache: 'loaded',
    threshold: null,
    latencyMs: 1,
    rawMessage: 'k',
    senderName: 'member',
    ...overrides,
  };
}

describe('decision ring', () => {
  it('keeps the newest per group, newest first, and forgets the quietest group past the cap', () => {
    const ring = new DecisionRing({ perGroup: 3, maxGroups: 2 });
    for (let i = 1; i <= 5; i++) ring.record(decision({ messageId: i }), i);
    assert.deepEqual(
      ring.recent(1, 10).map((kept) => kept.decision.messageId),
      [5, 4, 3],
    );
    assert.deepEqual(
      ring.recent(1, 2).map((kept) => kept.decision.messageId),
      [5, 4],
    );
    ring.record(decision({ groupId: 2, messageId: 6 }), 6);
    ring.record(decision({ groupId: 1, messageId: 7 }), 7);
    ring.record(decision({ groupId: 3, messageId: 8 }), 8);
    assert.deepEqual(
      ring.groups().map((g) => [g.groupId, g.kept, g.total, g.last?.messageId]),
      [
        [3, 1, 1, 8],
        [1, 3, 6, 7],
      ],
      'group 2 was the quietest',
    );
    assert.deepEqual(ring.recent(2, 10), []);
  });
});

describe('chat activity', () => {
  it('counts per minute and bot, leaving own echoes out of received', () => {
    const activity = new ChatActivity({ minutes: 10, hours: 3 });
    const t0 = Date.UTC(2026, 10, 25, 10, 0, 30);
    activity.record(decision(), t0);
    activity.record(decision({ outcome: 'replied', reason: 'threshold', texts: ['a', 'b'] }), t0 + 1000);
    activity.record(decision({ reason: 'self' }), t0 + 2000);
    activity.record(decision({ selfId: 200 }), t0 + 60_000);
    const all = activity.minutes(null, 3, t0 + 60_000);
    assert.deepEqual(
      all.map((m) => [m.received, m.replies, m.sent]),
      [
        [0, 0, 0],
        [2, 1, 2],
        [1, 0, 0],
      ],
    );
    assert.deepEqual(
      activity.minutes(200, 2, t0 + 60_000).map((m) => m.received),
      [0, 1],
    );
    // Ten minutes later the slots were reused: the old counts are gone.
    assert.deepEqual(
      activity.minutes(null, 2, t0 + 11 * 60_000).map((m) => m.received),
      [0, 0],
    );
  });

  it('keeps hourly reasons, replies, learn writes, cache sources and a latency histogram', () => {
    const activity = new ChatActivity({ minutes: 10, hours: 2 });
    const hour = Date.UTC(2026, 10, 25, 10, 0, 0);
    for (let i = 0; i < 99; i++) activity.record(decision({ latencyMs: 0.5 }), hour + i);
    activity.record(decision({ reason: 'timeout', cache: 'timeout', latencyMs: 800, learn: 'dropped_full' }), hour);
    activity.record(decision(), hour + 3_600_000);
    const [newest, older] = activity.hours(5);
    assert.equal(newest?.decisions, 1);
    assert.deepEqual(older?.byReason, { 'no-context': 99, timeout: 1 });
    assert.equal(older?.learnWrites, 99);
    assert.deepEqual(older?.cache, { loaded: 99, timeout: 1 });
    assert.equal(latencyPercentile(older?.latency ?? [], 0.5), 1);
    assert.equal(latencyPercentile(older?.latency ?? [], 0.999), 1000);
    assert.equal(
      latencyPercentile(
        LATENCY_BUCKETS_MS.map(() => 0),
        0.5,
      ),
      null,
    );
    // Two hours kept: a third hour takes the oldest slot.
    activity.record(decision(), hour + 2 * 3_600_000);
    assert.deepEqual(
      activity.hours(5).map((h) => h.hour),
      [hour + 2 * 3_600_000, hour + 3_600_000],
    );
  });
});

describe('explanations', () => {
  it('one sentence per reason with the keywords, answer and threshold filled in', () => {
    assert.equal(explainDecision(decision({ keywords: '天气' })), 'Nothing is known about «天气» yet.');
    assert.match(explainDecision(decision({ reason: 'no-candidate', threshold: 3 })), /fewer than 3 times/);
    assert.match(
      explainDecision(decision({ outcome: 'replied', reason: 'threshold', texts: ['去爬山吧'] })),
      /Answered «去爬山吧»/,
    );
  });

  it('judges each known answer by the first rule it fails', () => {
    const answer = (keywords: string, groupId: number, count: number) => ({
      keywords,
      groupId,
      count,
      time: 0,
      messages: [`${keywords}!`],
    });
    const views = judgeAnswers(
      [
        answer('a', 1, 1),
        answer('b', 1, 5),
        answer('c', 1, 4),
        answer('k', 1, 6),
        answer('d', 2, 9),
        answer('e', 0, 3),
      ],
      { groupId: 1, messageKeywords: 'k', threshold: 3, crossGroupThreshold: 2, banned: new Set(['c']) },
      10,
    );
    assert.deepEqual(
      views.map((v) => [v.answerKeywords, v.verdict]),
      [
        ['d', 'needs-more-groups'],
        ['k', 'same-as-message'],
        ['b', 'ready'],
        ['c', 'banned'],
        ['e', 'ready'],
        ['a', 'below-threshold'],
      ],
    );
  });
});
