/**
 * The chat-log writer (docs/rules.md#chat-log): batches, never blocks the message path,
 * keeps a failed batch, drops and counts beyond its capacity.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GroupMessage } from '../../../src/domain/corpus.ts';
import { MessageLogBuffer } from '../../../src/repeater/message-log-buffer.ts';
import { silentLog } from '../../../src/common/log.ts';
import { MemoryChatLog } from './support.ts';

function row(i: number): GroupMessage {
  return {
    groupId: 1,
    userId: 2,
    botId: 3,
    rawMessage: `m${i}`,
    isPlainText: true,
    plainText: `m${i}`,
    keywords: `m${i}`,
    time: i,
    senderName: '',
    messageId: i,
    replyToMessageId: null,
  };
}

describe('MessageLogBuffer', () => {
  it('writes in batches once a batch is full, and the rest on flush', async () => {
    const log = new MemoryChatLog();
    const buffer = new MessageLogBuffer({ log, logger: silentLog, batchSize: 3, capacity: 10 });
    buffer.push(row(1));
    buffer.push(row(2));
    assert.equal(log.appendCalls, 0);
    buffer.push(row(3));
    await buffer.flush();
    buffer.push(row(4));
    await buffer.flush();
    assert.equal(log.appendCalls, 2);
    assert.deepEqual(
      log.rows.map((r) => r.rawMessage),
      ['m1', 'm2', 'm3', 'm4'],
    );
    assert.equal(buffer.counters.written, 4);
  });

  it('a failed write keeps the messages and the next flush writes them in order', async () => {
    const log = new MemoryChatLog();
    log.failures = 1;
    const buffer = new MessageLogBuffer({ log, logger: silentLog, batchSize: 10, capacity: 10 });
    buffer.push(row(1));
    buffer.push(row(2));
    await buffer.flush();
    assert.equal(buffer.size, 2);
    assert.equal(buffer.counters.failedFlushes, 1);
    buffer.push(row(3));
    await buffer.flush();
    assert.deepEqual(
      log.rows.map((r) => r.rawMessage),
      ['m1', 'm2', 'm3'],
    );
  });

  it('beyond its capacity it drops and counts', async () => {
    const log = new MemoryChatLog();
    const buffer = new MessageLogBuffer({ log, logger: silentLog, batchSize: 100, capacity: 2 });
    for (let i = 0; i < 5; i++) buffer.push(row(i));
    assert.equal(buffer.counters.dropped, 3);
    await buffer.stop();
    assert.equal(log.rows.length, 2);
  });

  it('the timer writes what waits; stop writes the rest', async () => {
    const log = new MemoryChatLog();
    const buffer = new MessageLogBuffer({ log, logger: silentLog, batchSize: 100, flushEveryMs: 5 });
    buffer.start();
    buffer.push(row(1));
    const started = Date.now();
    while (log.rows.length === 0 && Date.now() - started < 2000) await new Promise((r) => setTimeout(r, 5));
    assert.equal(log.rows.length, 1);
    buffer.push(row(2));
    await buffer.stop();
    assert.equal(log.rows.length, 2);
  });

  it('no timer runs while nothing waits: a message arms one flush (docs/rules.md#idle-quiet)', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
    const log = new MemoryChatLog();
    const buffer = new MessageLogBuffer({ log, logger: silentLog, batchSize: 100, flushEveryMs: 2000 });
    const flushes = t.mock.method(buffer, 'flush');
    buffer.start();
    t.mock.timers.tick(60_000);
    assert.equal(flushes.mock.callCount(), 0, 'an idle minute wakes nothing');
    buffer.push(row(1));
    buffer.push(row(2));
    t.mock.timers.tick(2000);
    assert.equal(flushes.mock.callCount(), 1, 'one flush for what waited');
    t.mock.timers.tick(60_000);
    assert.equal(flushes.mock.callCount(), 1, 'and nothing after it');
  });
});
