/**
 * Milky event frames (src/milky/events.ts) as the domain's chat values: a group message with its
 * message_seq as the message id, a recall, and the frames that are ignored or refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { milkyFrame, parseMilkyTarget, parseMilkyTargets } from '../../../src/milky/index.ts';

const SELF = 10001;
const frame = (eventType: string, data: unknown, selfId = SELF) => ({
  time: 1_700_000_000,
  self_id: selfId,
  event_type: eventType,
  data,
});

describe('Milky event frames', () => {
  it('a group message: peer_id, sender_id, message_seq, segments and the member card', () => {
    const parsed = milkyFrame(
      frame('message_receive', {
        message_scene: 'group',
        peer_id: 7001,
        message_seq: 52,
        sender_id: 5,
        time: 1_700_000_001,
        segments: [
          { type: 'reply', data: { message_seq: 50 } },
          { type: 'mention', data: { user_id: SELF } },
          { type: 'text', data: { text: ' 早' } },
        ],
        group_member: { user_id: 5, nickname: '小五', card: '五哥', role: 'admin', group_id: 7001 },
      }),
      SELF,
      0,
    );
    assert.equal(parsed.kind, 'group_message');
    assert.deepEqual(parsed.kind === 'group_message' ? parsed : null, {
      kind: 'group_message',
      sentBySelf: false,
      message: {
        selfId: SELF,
        groupId: 7001,
        userId: 5,
        messageId: 52,
        time: 1_700_000_001,
        rawMessage: `[CQ:reply,id=50][CQ:at,qq=${SELF}] 早`,
        plainText: ' 早',
        senderName: '五哥',
        senderRole: 'admin',
        replyToMessageId: 50,
        mentionsSelf: true,
      },
    });
  });

  it("the bot's own message is marked as such", () => {
    const parsed = milkyFrame(
      frame('message_receive', {
        message_scene: 'group',
        peer_id: 1,
        message_seq: 2,
        sender_id: SELF,
        time: 3,
        segments: [],
      }),
      SELF,
      0,
    );
    assert.equal(parsed.kind === 'group_message' && parsed.sentBySelf, true);
  });

  it('a group recall names the message by its message_seq (its time: the envelope’s)', () => {
    assert.deepEqual(
      milkyFrame(
        frame('message_recall', {
          message_scene: 'group',
          peer_id: 7001,
          message_seq: 60,
          sender_id: SELF,
          operator_id: 9,
          display_suffix: '',
        }),
        SELF,
        0,
      ),
      {
        kind: 'group_recall',
        recall: { selfId: SELF, groupId: 7001, userId: SELF, operatorId: 9, messageId: 60, time: 1_700_000_000 },
      },
    );
  });

  it('ignores friend messages and kinds it does not use; refuses the wrong shape or account', () => {
    assert.equal(
      milkyFrame(frame('message_receive', { message_scene: 'friend', segments: [] }), SELF, 0).kind,
      'ignored',
    );
    assert.equal(milkyFrame(frame('group_poke', { group_id: 1 }), SELF, 0).kind, 'ignored');
    const problem = (value: unknown) => {
      const parsed = milkyFrame(value, SELF, 0);
      return parsed.kind === 'problem' ? parsed.field : parsed.kind;
    };
    assert.equal(problem('x'), 'frame');
    assert.equal(problem(frame('message_receive', {}, 4242)), 'self_id');
    assert.equal(problem({ ...frame('message_receive', {}), data: [] }), 'data');
    assert.equal(
      problem(frame('message_receive', { message_scene: 'group', peer_id: 1, sender_id: 2, segments: [] })),
      'data.message_seq',
    );
    assert.equal(
      problem(
        frame('message_receive', { message_scene: 'group', peer_id: 1, message_seq: 1, sender_id: 2, segments: {} }),
      ),
      'data.segments',
    );
  });
});

describe('CHORUS_MILKY_CONNECT entries', () => {
  it('splits the base from its token, which is never in what is shown', () => {
    assert.deepEqual(parseMilkyTarget('http://127.0.0.1:3000/?access_token=s3cret'), {
      base: 'http://127.0.0.1:3000',
      token: 's3cret',
      display: 'http://127.0.0.1:3000',
    });
    assert.deepEqual(parseMilkyTarget('https://bot.example/milky/'), {
      base: 'https://bot.example/milky',
      token: '',
      display: 'https://bot.example/milky',
    });
  });

  it('reads a comma-separated list and names the bad entries without their text', () => {
    const parsed = parseMilkyTargets('http://a:1?access_token=t1, ws://b:2?access_token=t2 ,http://u:p@c:3');
    assert.deepEqual(
      parsed.targets.map((target) => target.base),
      ['http://a:1'],
    );
    assert.deepEqual(parsed.problems, [
      'entry 2: expected an http:// or https:// URL',
      'entry 3: put the token in ?access_token=, not in the URL',
    ]);
    assert.equal(parsed.problems.join(' ').includes('t2'), false);
  });
});
