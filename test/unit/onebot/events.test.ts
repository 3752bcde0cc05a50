import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseFrame, storedMessageText, type OneBotFrame } from '../../../src/onebot/events.ts';
import {
  ONEBOT_MESSAGE_MAX_CHARS,
  ONEBOT_MESSAGE_MAX_RAW_CHARS,
  ONEBOT_MESSAGE_MAX_SEGMENTS,
} from '../../../src/onebot/limits.ts';

const SELF = 10001;
const NOW_MS = 1_800_000_000_000;
const parse = (frame: unknown): OneBotFrame =>
  parseFrame(typeof frame === 'string' ? frame : JSON.stringify(frame), SELF, NOW_MS);

function groupEvent(message: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    time: 1_700_000_123,
    self_id: SELF,
    post_type: 'message',
    message_type: 'group',
    sub_type: 'normal',
    message_id: 555,
    group_id: 123456,
    user_id: 42,
    message,
    raw_message: 'ignored when message is present',
    sender: { user_id: 42, nickname: 'Nick', card: 'Card', role: 'admin' },
    ...extra,
  };
}

function expectKind<K extends OneBotFrame['kind']>(frame: OneBotFrame, kind: K): Extract<OneBotFrame, { kind: K }> {
  assert.equal(frame.kind, kind, JSON.stringify(frame));
  return frame as Extract<OneBotFrame, { kind: K }>;
}

const ARRAY_FORM = [
  { type: 'reply', data: { id: '777' } },
  { type: 'at', data: { qq: String(SELF) } },
  { type: 'text', data: { text: ' look [this] & that, ok' } },
  { type: 'image', data: { file: 'F00D.jpg', subType: 0, url: 'https://multimedia/?rkey=zz', file_size: '1234' } },
  { type: 'face', data: { id: 14, raw: { faceIndex: 14, faceText: '/微笑' } } },
];
const STRING_FORM =
  `[CQ:reply,id=777][CQ:at,qq=${SELF}] look &#91;this&#93; &amp; that, ok` +
  '[CQ:image,file=F00D.jpg,subType=0,url=https://multimedia/?rkey=zz,file_size=1234][CQ:face,id=14]';
const STORED = `[CQ:reply,id=777][CQ:at,qq=${SELF}] look &#91;this&#93; &amp; that, ok[CQ:image,file=F00D.jpg][CQ:face,id=14]`;

describe('group messages', () => {
  test('array form becomes a GroupChatMessage with a normalised CQ string', () => {
    const frame = expectKind(parse(groupEvent(ARRAY_FORM)), 'group_message');
    assert.equal(frame.sentBySelf, false);
    assert.deepEqual(frame.message, {
      selfId: SELF,
      groupId: 123456,
      userId: 42,
      messageId: 555,
      time: 1_700_000_123,
      rawMessage: STORED,
      plainText: ' look [this] & that, ok',
      senderName: 'Card',
      senderRole: 'admin',
      replyToMessageId: 777,
      mentionsSelf: true,
      // Where the picture can be fetched for the media cache (src/onebot/media-cache.ts).
      pictures: [{ file: 'F00D.jpg', url: 'https://multimedia/?rkey=zz' }],
    });
  });

  test('string form gives exactly the same message as the array form', () => {
    const fromArray = expectKind(parse(groupEvent(ARRAY_FORM)), 'group_message').message;
    const fromString = expectKind(parse(groupEvent(STRING_FORM)), 'group_message').message;
    assert.deepEqual(fromString, fromArray);
  });

  test('sender name falls back to the nickname; unknown roles and missing sender are tolerated', () => {
    const nick = expectKind(
      parse(groupEvent('hi', { sender: { nickname: 'Nick', card: '', role: 'superadmin' } })),
      'group_message',
    );
    assert.equal(nick.message.senderName, 'Nick');
    assert.equal(nick.message.senderRole, 'unknown');
    const bare = expectKind(parse(groupEvent('hi', { sender: undefined })), 'group_message');
    assert.equal(bare.message.senderName, '');
    assert.equal(bare.message.mentionsSelf, false);
    assert.equal(bare.message.replyToMessageId, null);
  });

  test('array values become CQ text; keys a CQ code could not carry are dropped', () => {
    const segments = [
      { type: 'mystery', data: { n: 1, yes: true, nested: { a: [1] }, 'bad,key': 'x', 'bad]': 'y', gone: null } },
    ];
    const frame = expectKind(parse(groupEvent(segments)), 'group_message');
    assert.equal(frame.message.rawMessage, '[CQ:mystery,n=1,yes=true,nested={"a":&#91;1&#93;}]');
  });

  test('numeric-string ids are accepted; a missing time gets the arrival time', () => {
    const frame = expectKind(
      parse(groupEvent('x', { group_id: '123456', user_id: '42', message_id: '-9', time: undefined })),
      'group_message',
    );
    assert.equal(frame.message.groupId, 123456);
    assert.equal(frame.message.messageId, -9);
    assert.equal(frame.message.time, NOW_MS / 1000);
  });

  test('message_sent and self-reported messages are marked as the bot’s own', () => {
    const sent = expectKind(parse(groupEvent('mine', { post_type: 'message_sent', user_id: SELF })), 'group_message');
    assert.equal(sent.sentBySelf, true);
    assert.equal(sent.message.userId, SELF);
    const withoutUser = expectKind(
      parse(groupEvent('mine', { post_type: 'message_sent', user_id: undefined })),
      'group_message',
    );
    assert.equal(withoutUser.message.userId, SELF);
    const reported = expectKind(parse(groupEvent('mine', { user_id: SELF })), 'group_message');
    assert.equal(reported.sentBySelf, true);
  });

  test('private messages are ignored, not malformed', () => {
    const frame = expectKind(parse(groupEvent('hi', { message_type: 'private', group_id: undefined })), 'ignored');
    assert.equal(frame.what, 'message/private');
  });
});

describe('notices, requests and meta events', () => {
  test('group recall', () => {
    const frame = expectKind(
      parse({
        time: 5,
        self_id: SELF,
        post_type: 'notice',
        notice_type: 'group_recall',
        group_id: 1,
        user_id: 2,
        operator_id: 3,
        message_id: 4,
      }),
      'group_recall',
    );
    assert.deepEqual(frame.recall, { selfId: SELF, groupId: 1, userId: 2, operatorId: 3, messageId: 4, time: 5 });
  });

  test('group_ban notices: a mute, a lifted one, a whole-group mute without a duration', () => {
    const ban = (extra: Record<string, unknown>) =>
      expectKind(
        parse({ post_type: 'notice', notice_type: 'group_ban', group_id: 1, operator_id: 3, ...extra }),
        'group_mute',
      ).mute;
    assert.deepEqual(ban({ sub_type: 'ban', user_id: SELF, duration: 600 }), {
      selfId: SELF,
      groupId: 1,
      userId: SELF,
      durationSec: 600,
    });
    assert.equal(ban({ sub_type: 'lift_ban', user_id: SELF, duration: 0 }).durationSec, 0);
    assert.deepEqual(
      [
        ban({ sub_type: 'ban', user_id: 0, duration: 0 }).userId,
        ban({ sub_type: 'ban', user_id: 0, duration: 0 }).durationSec,
      ],
      [0, -1],
    );
  });

  test('other notices are ignored by kind', () => {
    assert.equal(
      expectKind(parse({ post_type: 'notice', notice_type: 'group_increase', group_id: 1 }), 'ignored').what,
      'notice/group_increase',
    );
  });

  test('friend and group requests', () => {
    const friend = expectKind(
      parse({ time: 9, post_type: 'request', request_type: 'friend', user_id: 7, comment: 'hi', flag: 'f1' }),
      'request',
    );
    assert.deepEqual(friend.request, {
      selfId: SELF,
      kind: 'friend',
      subType: '',
      userId: 7,
      groupId: null,
      comment: 'hi',
      flag: 'f1',
      time: 9,
    });
    const group = expectKind(
      parse({
        time: 9,
        post_type: 'request',
        request_type: 'group',
        sub_type: 'invite',
        user_id: 7,
        group_id: 8,
        flag: 'g1',
      }),
      'request',
    );
    assert.deepEqual(group.request, {
      selfId: SELF,
      kind: 'group',
      subType: 'invite',
      userId: 7,
      groupId: 8,
      comment: '',
      flag: 'g1',
      time: 9,
    });
  });

  test('lifecycle and heartbeat', () => {
    assert.equal(
      expectKind(parse({ post_type: 'meta_event', meta_event_type: 'lifecycle', sub_type: 'enable' }), 'lifecycle')
        .subType,
      'enable',
    );
    const beat = expectKind(
      parse({
        post_type: 'meta_event',
        meta_event_type: 'heartbeat',
        status: { online: true, good: false },
        interval: 5000,
      }),
      'heartbeat',
    );
    assert.deepEqual(beat.heartbeat, { intervalMs: 5000, online: true, good: false });
    const bare = expectKind(parse({ post_type: 'meta_event', meta_event_type: 'heartbeat' }), 'heartbeat');
    assert.deepEqual(bare.heartbeat, { intervalMs: null, online: null, good: null });
  });

  test('an unknown post_type is ignored by kind', () => {
    assert.equal(expectKind(parse({ post_type: 'poke_v2' }), 'ignored').what, 'post_type/poke_v2');
  });
});

describe('action answers', () => {
  test('ok, failed and async answers with their echo', () => {
    const ok = expectKind(parse({ status: 'ok', retcode: 0, data: { message_id: 1 }, echo: '17' }), 'response');
    assert.deepEqual(ok.response, { echo: '17', status: 'ok', retcode: 0, data: { message_id: 1 }, message: '' });
    const failed = expectKind(
      parse({ status: 'failed', retcode: 1200, data: null, echo: 3, message: 'm', wording: 'w' }),
      'response',
    );
    assert.deepEqual(failed.response, { echo: '3', status: 'failed', retcode: 1200, data: null, message: 'w' });
    assert.equal(expectKind(parse({ status: 'async', retcode: 1, echo: 'x' }), 'response').response.status, 'async');
  });
});

describe('malformed frames are values, never exceptions', () => {
  const cases: [string, unknown, string][] = [
    ['not JSON', '{"post_type":', ''],
    ['an array', '[1,2]', ''],
    ['a number', '42', ''],
    ['null', 'null', ''],
    ['answer without echo', { status: 'ok', retcode: 0 }, 'echo'],
    ['answer with an unknown status', { status: 'maybe', echo: '1' }, 'status'],
    ['non-string post_type', { post_type: 7 }, 'post_type'],
    ['group message without group_id', groupEvent('x', { group_id: undefined }), 'group_id'],
    ['group_id zero', groupEvent('x', { group_id: 0 }), 'group_id'],
    ['fractional user_id', groupEvent('x', { user_id: 4.5 }), 'user_id'],
    ['message_id as an object', groupEvent('x', { message_id: { id: 1 } }), 'message_id'],
    ['message neither array nor string', groupEvent(12), 'message'],
    ['segment not an object', groupEvent(['text']), 'message[0]'],
    ['segment without type', groupEvent([{ data: { text: 'a' } }]), 'message[0].type'],
    ['segment type with a bracket', groupEvent([{ type: 'at]', data: {} }]), 'message[0].type'],
    ['segment data not an object', groupEvent([{ type: 'at', data: 'qq=1' }]), 'message[0].data'],
    ['text segment without text', groupEvent([{ type: 'text', data: {} }]), 'message[0].data.text'],
    ['sender not an object', groupEvent('x', { sender: 'Nick' }), 'sender'],
    ['card not a string', groupEvent('x', { sender: { card: 5 } }), 'sender.card'],
    [
      'recall without message_id',
      { post_type: 'notice', notice_type: 'group_recall', group_id: 1, user_id: 2 },
      'message_id',
    ],
    ['request without flag', { post_type: 'request', request_type: 'friend', user_id: 7 }, 'flag'],
    ['request with an empty flag', { post_type: 'request', request_type: 'friend', user_id: 7, flag: '' }, 'flag'],
    ['group request without group', { post_type: 'request', request_type: 'group', user_id: 7, flag: 'f' }, 'group_id'],
    [
      'heartbeat status not an object',
      { post_type: 'meta_event', meta_event_type: 'heartbeat', status: 'ok' },
      'status',
    ],
  ];
  for (const [name, frame, field] of cases) {
    test(name, () => {
      const parsed = expectKind(parse(frame), 'malformed');
      assert.equal(parsed.problem.field, field);
      assert.equal(parsed.problem.reason, field === '' ? (name === 'not JSON' ? 'json' : 'shape') : 'shape');
      assert.ok(parsed.problem.detail.length > 0);
    });
  }

  test('a deeply nested frame does not throw', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    assert.equal(parse(deep).kind, 'malformed');
  });
});

describe('storedMessageText', () => {
  test('normalises either form and reports a bad shape as a value', () => {
    assert.deepEqual(storedMessageText(ARRAY_FORM), { ok: true, text: STORED });
    assert.deepEqual(storedMessageText(STRING_FORM), { ok: true, text: STORED });
    const bad = storedMessageText([{ type: 5 }]);
    assert.equal(bad.ok, false);
    assert.equal(!bad.ok && bad.problem.field, 'message[0].type');
  });
});

describe('message size limits count the stored message', () => {
  const bulkyRaw = { faceIndex: 277, faceText: '/汪汪', filler: 'r'.repeat(400) };
  const faces = (count: number) =>
    Array.from({ length: count }, () => ({ type: 'face', data: { id: '277', raw: bulkyRaw } }));

  test("a flood of faces with NapCat's bulky raw is over the limit as sent, within it as stored", () => {
    const flood = faces(40);
    assert.ok(JSON.stringify(flood).length > ONEBOT_MESSAGE_MAX_CHARS);
    const message = expectKind(parse(groupEvent(flood)), 'group_message').message;
    assert.equal(message.rawMessage, '[CQ:face,id=277]'.repeat(40));
  });

  test('the same flood as a CQ string with the raw inline arrives too', () => {
    const raw = escapeValue(JSON.stringify(bulkyRaw));
    const message = expectKind(parse(groupEvent(`[CQ:face,id=277,raw=${raw}]`.repeat(40))), 'group_message').message;
    assert.equal(message.rawMessage, '[CQ:face,id=277]'.repeat(40));
  });

  test('what is stored still counts: a text over the limit is refused in either form', () => {
    const long = 'x'.repeat(ONEBOT_MESSAGE_MAX_CHARS + 1);
    assert.equal(expectKind(parse(groupEvent(long)), 'refused').reason, 'oversized');
    const array = [{ type: 'text', data: { text: long } }];
    assert.equal(expectKind(parse(groupEvent(array)), 'refused').reason, 'oversized');
  });

  test('what is sent stays bounded: extras past the raw limit are refused before they are kept', () => {
    const huge = [{ type: 'face', data: { id: '1', raw: 'r'.repeat(ONEBOT_MESSAGE_MAX_RAW_CHARS) } }];
    assert.equal(expectKind(parse(groupEvent(huge)), 'refused').reason, 'oversized');
    const hugeString = `[CQ:face,id=1,raw=${'r'.repeat(ONEBOT_MESSAGE_MAX_RAW_CHARS)}]`;
    assert.equal(expectKind(parse(groupEvent(hugeString)), 'refused').reason, 'oversized');
    const manySegments = '[CQ:face,id=1]'.repeat(ONEBOT_MESSAGE_MAX_SEGMENTS + 1);
    assert.equal(expectKind(parse(groupEvent(manySegments)), 'refused').reason, 'oversized');
  });
});

const escapeValue = (value: string): string =>
  value.replace(/&/g, '&amp;').replace(/\[/g, '&#91;').replace(/\]/g, '&#93;').replace(/,/g, '&#44;');
