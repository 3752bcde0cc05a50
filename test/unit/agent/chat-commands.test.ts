/**
 * The creator's reminder commands (src/agent/tasks/chat-commands.ts): what is recognised, and who
 * is answered: the list and a cancel of one's own; nothing unless addressed when nothing of this
 * account's is named.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTaskCommand, TaskCommands } from '../../../src/agent/tasks/chat-commands.ts';
import type { CancelOutcome } from '../../../src/agent/tasks/reminders.ts';
import type { GroupChatMessage } from '../../../src/domain/chat.ts';
import type { AgentTask } from '../../../src/store/agent-tasks-store.ts';

const task = (over: Partial<AgentTask>): AgentTask => ({
  id: 3,
  selfId: 10,
  groupId: 500,
  creatorUserId: 42,
  kind: 'reminder',
  text: '喝水',
  dueAt: new Date(2026, 10, 28, 9, 30).getTime(),
  status: 'open',
  createdAt: 0,
  doneAt: 0,
  cancelledBy: '',
  failReason: '',
  ...over,
});

function commands(open: AgentTask[], outcome: CancelOutcome) {
  const said: string[] = [];
  const handler = new TaskCommands({
    reminders: { open: async () => open, cancelByCreator: async () => outcome },
    address: (message) => {
      const addressed = message.plainText.startsWith('小合');
      return { text: addressed ? message.plainText.slice(2).trim() : message.plainText, addressed };
    },
    send: async (_selfId, _groupId, text) => said.push(text),
  });
  const message = (plainText: string) =>
    ({ selfId: 10, groupId: 500, userId: 42, senderName: '阿明', plainText }) as GroupChatMessage;
  return { handler, said, message };
}

describe('reminder commands in chat', () => {
  it('recognises the list and a cancel, nothing else', () => {
    assert.deepEqual(parseTaskCommand('我的提醒'), { kind: 'list' });
    assert.deepEqual(parseTaskCommand(' 我的提醒！'), { kind: 'list' });
    assert.deepEqual(parseTaskCommand('取消提醒 12'), { kind: 'cancel', id: 12 });
    assert.deepEqual(parseTaskCommand('取消提醒#7'), { kind: 'cancel', id: 7 });
    assert.deepEqual(parseTaskCommand('取消提醒 ＃7。'), { kind: 'cancel', id: 7 });
    assert.equal(parseTaskCommand('取消提醒'), null);
    assert.equal(parseTaskCommand('我的提醒呢'), null);
    assert.equal(parseTaskCommand('帮我取消提醒 3 吧'), null);
  });

  it('lists the member’s reminders of this account, and cancels their own', async () => {
    const listing = commands([task({}), task({ id: 4, selfId: 11, text: '别的账号' })], { kind: 'not_found' });
    assert.equal(await listing.handler.onGroupMessage(listing.message('我的提醒')), true);
    assert.deepEqual(listing.said, ['你的提醒：\n#3 11月28日 09:30 喝水\n发送「取消提醒 编号」可以取消。']);

    const cancelling = commands([], { kind: 'cancelled', task: task({ status: 'cancelled' }) });
    await cancelling.handler.onGroupMessage(cancelling.message('取消提醒 3'));
    assert.deepEqual(cancelling.said, ['好的，提醒 #3 已取消。']);

    const ended = commands([], { kind: 'not_open', task: task({ status: 'done' }) });
    await ended.handler.onGroupMessage(ended.message('取消提醒 3'));
    assert.deepEqual(ended.said, ['提醒 #3 已经发过了。']);
  });

  it('says 「没有」 only when addressed', async () => {
    const quiet = commands([], { kind: 'not_found' });
    assert.equal(await quiet.handler.onGroupMessage(quiet.message('取消提醒 9')), true);
    assert.equal(await quiet.handler.onGroupMessage(quiet.message('我的提醒')), true);
    assert.deepEqual(quiet.said, []);
    await quiet.handler.onGroupMessage(quiet.message('小合 取消提醒 9'));
    await quiet.handler.onGroupMessage(quiet.message('小合 我的提醒'));
    assert.deepEqual(quiet.said, ['没有找到你的提醒 #9。', '你现在没有待发的提醒。']);
    assert.equal(await quiet.handler.onGroupMessage(quiet.message('小合 早上好')), false);
  });
});
