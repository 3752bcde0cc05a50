/**
 * CHORUS_LOG_CHAT: the chat reaches the console's ring at info with its numbers, standard output
 * only in `all` and without numbers, nothing in `off` or below the service's level.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChatLog, type ChatLogMode } from '../../src/app/chat-log.ts';
import type { GroupChatMessage } from '../../src/domain/chat.ts';
import type { RepeaterDecision } from '../../src/repeater/index.ts';

const message = {
  selfId: 10001,
  groupId: 20002,
  userId: 30003,
  messageId: 1,
  time: 0,
  rawMessage: '[CQ:at,qq=40004] 晚饭吃什么',
  plainText: '@40004 晚饭吃什么',
  senderName: 'x',
  senderRole: 'member',
  replyToMessageId: null,
  mentionsSelf: false,
} as unknown as GroupChatMessage;
const reply = {
  groupId: 20002,
  selfId: 10001,
  outcome: 'replied',
  reason: 'answer',
  texts: ['去吃火锅', '吧'],
} as unknown as RepeaterDecision;

function setup(mode: ChatLogMode, infoEnabled = true) {
  const ring: Record<string, unknown>[] = [];
  const stdout: Record<string, unknown>[] = [];
  const sink = (into: Record<string, unknown>[]) => ({
    write: (chunk: string) => (into.push(JSON.parse(chunk) as Record<string, unknown>), true),
  });
  const log = new ChatLog({
    mode: () => mode,
    logger: { isLevelEnabled: () => infoEnabled },
    logRing: { stream: () => sink(ring) },
    logOutput: sink(stdout),
  });
  return { log, ring, stdout };
}

describe('chat log', () => {
  it('console: the ring gets received and replied at info, stdout nothing', () => {
    const { log, ring, stdout } = setup('console');
    log.received(message);
    log.received(message, true);
    log.decided(reply);
    log.decided({ ...reply, outcome: 'skipped', texts: [] } as RepeaterDecision);
    assert.equal(ring.length, 2);
    assert.deepEqual(
      ring.map((line) => [line.level, line.chat, line.group, line.text]),
      [
        [30, 'received', 20002, '@40004 晚饭吃什么'],
        [30, 'replied', 20002, '去吃火锅 / 吧'],
      ],
    );
    assert.equal(ring[0]?.user, 30003);
    assert.deepEqual(stdout, []);
  });

  it('all: stdout too, with every number hidden', () => {
    const { log, stdout } = setup('all');
    log.received(message);
    assert.equal(stdout.length, 1);
    const line = JSON.stringify(stdout[0]);
    assert.doesNotMatch(line, /20002|30003|10001|40004/);
    assert.match(line, /晚饭吃什么/);
  });

  it('off, or info below the level: nothing', () => {
    for (const { log, ring, stdout } of [setup('off'), setup('all', false)]) {
      log.received(message);
      log.decided(reply);
      assert.deepEqual([ring.length, stdout.length], [0, 0]);
    }
  });
});
