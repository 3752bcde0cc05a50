/** get_group_msg_history answers as domain values (src/onebot/history.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ActionFailedError, ActionTimeoutError } from '../../../src/onebot/errors.ts';
import { historyPage, historyParams, unsupportedHistory } from '../../../src/onebot/history.ts';

const event = (id: number, time: number, extra: Record<string, unknown> = {}) => ({
  self_id: 10001,
  post_type: 'message',
  message_type: 'group',
  group_id: 500,
  user_id: 42,
  message_id: id,
  message_seq: id + 1000,
  time,
  message: [{ type: 'text', data: { text: `m${id}` } }],
  sender: { user_id: 42, nickname: 'n' },
  ...extra,
});

it('asks oldest first from a message_seq, 0 for the newest', () => {
  assert.deepEqual(historyParams(500, 0, 20), { group_id: 500, message_seq: 0, count: 20, reverseOrder: false });
});

it('turns the messages into group messages, oldest first, with their seq; a bad one is dropped', () => {
  const page = historyPage(
    {
      messages: [
        event(3, 300),
        event(1, 100),
        { post_type: 'message', message_type: 'group' },
        event(9, 200, { group_id: 501 }),
        event(2, 200, { message_seq: undefined }),
      ],
    },
    10001,
    500,
    0,
  );
  assert.equal(page.kind, 'page');
  if (page.kind !== 'page') return;
  assert.deepEqual(
    page.messages.map((m) => [m.message.messageId, m.seq, m.message.rawMessage]),
    [
      [1, 1001, 'm1'],
      [2, 2, 'm2'],
      [3, 1003, 'm3'],
    ],
  );
  assert.equal(page.dropped, 2, 'the shapeless one and the other group’s');
  assert.deepEqual(historyPage(null, 10001, 500, 0), { kind: 'page', messages: [], dropped: 0 });
});

it('tells a missing action from other failures', () => {
  assert.match(
    unsupportedHistory(new ActionFailedError('get_group_msg_history', 1404, 'unsupported action')) ?? '',
    /1404/,
  );
  assert.notEqual(unsupportedHistory(new ActionFailedError('get_group_msg_history', 100, '不支持该操作')), null);
  assert.equal(unsupportedHistory(new ActionFailedError('get_group_msg_history', 1200, 'not a member')), null);
  assert.equal(unsupportedHistory(new ActionTimeoutError('get_group_msg_history', 10)), null);
});
