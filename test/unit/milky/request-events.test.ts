/**
 * Milky's request events (src/milky/events.ts) as the domain's ChatRequest, and the answer each
 * one's flag leads to (src/milky/requests.ts): the Milky action and the identity it names.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatRequest } from '../../../src/domain/chat.ts';
import { milkyFrame, milkyRequestAnswer } from '../../../src/milky/index.ts';

const SELF = 10001;
const frame = (eventType: string, data: unknown) => ({
  time: 1_700_000_000,
  self_id: SELF,
  event_type: eventType,
  data,
});
const requestOf = (eventType: string, data: unknown): ChatRequest => {
  const parsed = milkyFrame(frame(eventType, data), SELF, 0);
  assert.equal(parsed.kind, 'request', JSON.stringify(parsed));
  return (parsed as { request: ChatRequest }).request;
};

describe('Milky request events', () => {
  it('friend_request: the initiator, the comment; answered by initiator_uid', () => {
    const request = requestOf('friend_request', {
      initiator_id: 5,
      initiator_uid: 'u_abc',
      comment: '你好',
      via: '群聊',
    });
    assert.deepEqual(
      { ...request, flag: undefined },
      {
        selfId: SELF,
        kind: 'friend',
        subType: '',
        userId: 5,
        groupId: null,
        comment: '你好',
        flag: undefined,
        time: 1_700_000_000,
      },
    );
    assert.deepEqual(milkyRequestAnswer(request.flag, true), {
      action: 'accept_friend_request',
      params: { initiator_uid: 'u_abc', is_filtered: false },
    });
    assert.deepEqual(milkyRequestAnswer(request.flag, false), {
      action: 'reject_friend_request',
      params: { initiator_uid: 'u_abc', is_filtered: false },
    });
  });

  it('group_join_request: someone asks to join (add); answered by notification_seq, filtered kept', () => {
    const request = requestOf('group_join_request', {
      group_id: 7001,
      notification_seq: 42,
      is_filtered: true,
      initiator_id: 6,
      comment: '求加',
    });
    assert.deepEqual(
      [request.kind, request.subType, request.userId, request.groupId, request.comment],
      ['group', 'add', 6, 7001, '求加'],
    );
    assert.deepEqual(milkyRequestAnswer(request.flag, false), {
      action: 'reject_group_request',
      params: { notification_seq: 42, notification_type: 'join_request', group_id: 7001, is_filtered: true },
    });
  });

  it('group_invited_join_request: the one to join is target_user_id', () => {
    const request = requestOf('group_invited_join_request', {
      group_id: 7001,
      notification_seq: 43,
      initiator_id: 6,
      target_user_id: 8,
    });
    assert.deepEqual([request.subType, request.userId, request.groupId], ['add', 8, 7001]);
    assert.deepEqual(milkyRequestAnswer(request.flag, true), {
      action: 'accept_group_request',
      params: { notification_seq: 43, notification_type: 'invited_join_request', group_id: 7001, is_filtered: false },
    });
  });

  it('group_invitation: the account is invited (invite); answered by group and invitation_seq', () => {
    const request = requestOf('group_invitation', { group_id: 7002, invitation_seq: 9, initiator_id: 6 });
    assert.deepEqual([request.kind, request.subType, request.userId, request.groupId], ['group', 'invite', 6, 7002]);
    assert.deepEqual(milkyRequestAnswer(request.flag, true), {
      action: 'accept_group_invitation',
      params: { group_id: 7002, invitation_seq: 9 },
    });
    assert.deepEqual(milkyRequestAnswer(request.flag, false)?.action, 'reject_group_invitation');
  });

  it('a request without what its answer needs is a problem naming the field', () => {
    assert.deepEqual(milkyFrame(frame('friend_request', { initiator_id: 5 }), SELF, 0), {
      kind: 'problem',
      field: 'data.initiator_uid',
      detail: 'expected a non-empty string',
    });
    const noSeq = milkyFrame(frame('group_invitation', { group_id: 7002, initiator_id: 6 }), SELF, 0);
    assert.equal(noSeq.kind === 'problem' ? noSeq.field : noSeq.kind, 'data.invitation_seq');
    const noTarget = milkyFrame(
      frame('group_invited_join_request', { group_id: 1, notification_seq: 2, initiator_id: 6 }),
      SELF,
      0,
    );
    assert.equal(noTarget.kind === 'problem' ? noTarget.field : noTarget.kind, 'data.target_user_id');
  });

  it('a OneBot flag, or a broken Milky one, names no Milky answer', () => {
    assert.equal(milkyRequestAnswer('1700000000123', true), null);
    assert.equal(milkyRequestAnswer('milky:invitation:x:9', true), null);
    assert.equal(milkyRequestAnswer('milky:friend:0:', true), null);
    assert.equal(milkyRequestAnswer('milky:other:1:2', true), null);
  });
});
