/**
 * The per-group window and the bot's reply records (docs/rules.md#rep-intake, #rep-reply, #rep-records,
 * learn-predecessor: only the message that arrived just before, whatever its second).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '../../../src/common/clock.ts';
import { WINDOW } from '../../../src/repeater/limits.ts';
import { MessageWindow } from '../../../src/repeater/message-window.ts';
import { ReplyRecords, type ReplyRecord } from '../../../src/repeater/reply-records.ts';

let arrivals = 0;
function message(rawMessage: string, time: number, userId = 1, sequence = arrivals++) {
  return { userId, rawMessage, keywords: rawMessage, isPlainText: true, time, sequence };
}

function record(botId: number, reply: string, messageId: number | null = null): ReplyRecord {
  return { botId, time: 1, preRawMessage: 'pre', preKeywords: 'pre', reply, replyKeywords: `kw-${reply}`, messageId };
}

describe('MessageWindow', () => {
  it('remembers the last 100 message ids per group', () => {
    const window = new MessageWindow(() => 0);
    for (let id = 1; id <= 150; id++) assert.equal(window.checkSeen(1, id, `e${id}`), null);
    assert.equal(window.checkSeen(1, 150, 'new event'), 'duplicate-id');
    assert.equal(window.checkSeen(1, 51, 'new event 2'), 'duplicate-id');
    assert.equal(window.checkSeen(1, 50, 'new event 3'), null, 'forgotten beyond 100');
    assert.equal(window.checkSeen(2, 150, 'other group'), null, 'per group');
  });

  it('detects the same event delivered twice under another message id', () => {
    const window = new MessageWindow(() => 0);
    assert.equal(window.checkSeen(1, 1, '7|100|hi'), null);
    assert.equal(window.checkSeen(1, 2, '7|100|hi'), 'duplicate-event');
    assert.equal(window.checkSeen(1, 3, '7|101|hi'), null);
  });

  it('predecessor: the message that arrived just before, in the same second or not, from the tail only', () => {
    const window = new MessageWindow(() => 0);
    const first = window.arrive(1);
    assert.equal(window.predecessor(1, first), null, 'no database fallback');
    window.append(1, message('a', 100, 1, first));
    const second = window.arrive(1);
    window.append(1, message('b', 100, 1, second));
    const third = window.arrive(1);
    assert.equal(window.predecessor(1, third)?.rawMessage, 'b', 'the same second: arrival decides');
    window.append(1, message('c', 99, 1, third));
    assert.equal(window.predecessor(1, window.arrive(1))?.rawMessage, 'c', 'an older second arriving later');
    assert.equal(window.arrive(2), 0, 'per group');
    const waiting = window.arrive(1);
    for (let i = 0; i < WINDOW.predecessorTail; i++) window.append(1, message(`later${i}`, 200, 1, window.arrive(1)));
    assert.equal(window.predecessor(1, waiting), null, 'only the last few are searched');
  });

  it('a message that waited (a fleet claim) joins in arrival order, before the later ones', () => {
    const window = new MessageWindow(() => 0);
    const [a, b, c] = [window.arrive(1), window.arrive(1), window.arrive(1)];
    window.append(1, message('a', 100, 1, a));
    window.append(1, message('c', 100, 1, c));
    assert.equal(window.predecessor(1, b)?.rawMessage, 'a');
    window.append(1, message('b', 100, 1, b));
    assert.deepEqual(
      window.recent(1, 10).map((m) => m.rawMessage),
      ['a', 'b', 'c'],
    );
    assert.equal(window.predecessor(1, window.arrive(1))?.rawMessage, 'c');
  });

  it('keeps 100 messages per group and filters recent ones', () => {
    const window = new MessageWindow(() => 0);
    for (let i = 0; i < 130; i++) window.append(1, message(`m${i}`, i, i % 2));
    const all = window.recent(1, 1000);
    assert.equal(all.length, WINDOW.messagesPerGroup);
    assert.equal(all[0]?.rawMessage, 'm30');
    assert.deepEqual(
      window.recent(1, 2, (m) => m.userId === 0).map((m) => m.rawMessage),
      ['m126', 'm128'],
    );
  });

  it('keeps 16 topic tokens and counts occurrences', () => {
    const window = new MessageWindow(() => 0);
    window.addTopics(1, ['猫', '猫', '狗']);
    assert.equal(window.topicCount(1, '猫'), 2);
    window.addTopics(
      1,
      Array.from({ length: 15 }, () => '鱼'),
    );
    assert.equal(window.topicCount(1, '猫'), 0, 'pushed out');
    assert.equal(window.topicCount(1, '狗'), 1);
    assert.equal(window.topicCount(1, '鱼'), 15);
  });

  it('drops groups idle longer than the limit', () => {
    const clock = new FakeClock();
    const window = new MessageWindow(() => clock.monotonicMs());
    window.append(1, message('a', 1));
    clock.advance(WINDOW.idleMs - 1);
    window.append(2, message('b', 1));
    clock.advance(2);
    assert.equal(window.prune(), 1);
    assert.equal(window.groupCount, 1);
    assert.equal(window.predecessor(1, Number.MAX_SAFE_INTEGER), null);
    assert.equal(window.predecessor(2, Number.MAX_SAFE_INTEGER)?.rawMessage, 'b');
  });
});

describe('ReplyRecords', () => {
  it('is bounded to 100 records per bot after 200', () => {
    const records = new ReplyRecords(() => 0);
    for (let i = 0; i < 200; i++) records.add(1, record(7, `r${i}`));
    const kept = records.recent(1, 7, 1000);
    assert.equal(kept.length, 100);
    assert.equal(kept[0]?.reply, 'r199', 'newest first');
    assert.equal(kept.at(-1)?.reply, 'r100');
    assert.equal(records.latest(1, 7)?.reply, 'r199');
  });

  it('searches the given bot newest first, then the other bots; finds by message id', () => {
    const records = new ReplyRecords(() => 0);
    records.add(1, record(7, 'a', 11));
    records.add(1, record(8, 'b', 12));
    records.add(1, record(7, 'c', 13));
    assert.deepEqual(
      [...records.search(1, 7)].map((r) => r.reply),
      ['c', 'a', 'b'],
    );
    assert.deepEqual(
      [...records.search(1, 8)].map((r) => r.reply),
      ['b', 'c', 'a'],
    );
    assert.equal(records.byMessageId(1, 12)?.reply, 'b');
    assert.equal(records.byMessageId(2, 12), undefined);
  });

  it('cool-down per bot and group on the monotonic clock; idle buckets pruned', () => {
    const clock = new FakeClock();
    const records = new ReplyRecords(() => clock.monotonicMs());
    records.quiet(1, 7, 5000);
    assert.equal(records.isQuiet(1, 7), true);
    assert.equal(records.isQuiet(1, 8), false);
    assert.equal(records.isQuiet(2, 7), false);
    clock.advance(5000);
    assert.equal(records.isQuiet(1, 7), false);
    clock.advance(10_000);
    assert.equal(records.prune(5000), 1);
    assert.equal(records.latest(1, 7), undefined);
  });
});
