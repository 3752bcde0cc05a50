/**
 * Milky segments ⇄ CQ text (src/milky/segments.ts): incoming segments become the CQ form a OneBot
 * implementation sends for the same message (so a phrase learned one way answers the other), and
 * CQ answers go out as Milky's outgoing segments.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cqToSegments, SegmentShapeError, segmentsToCq, UnsendableSegmentError } from '../../../src/milky/index.ts';
import { plainTextOf, renderCq } from '../../../src/onebot/index.ts';

const toCq = (segments: unknown) => renderCq(segmentsToCq(segments));
const noResolve = (file: string) => Promise.reject(new Error(`unexpected resolve of ${file}`));

describe('Milky segments to CQ text', () => {
  it('turns every kind a person sees into its CQ form, escaped', () => {
    assert.equal(
      toCq([
        { type: 'reply', data: { message_seq: 4021 } },
        { type: 'mention', data: { user_id: 10001, name: '小明' } },
        { type: 'text', data: { text: ' 看[这个]&那个, ' } },
        { type: 'face', data: { face_id: '178', is_large: true } },
        { type: 'mention_all', data: {} },
      ]),
      '[CQ:reply,id=4021][CQ:at,qq=10001] 看&#91;这个&#93;&amp;那个, [CQ:face,id=178][CQ:at,qq=all]',
    );
  });

  it('keeps a picture by its resource id, not its rotating temp_url, so sightings compare equal', () => {
    const sighting = (key: string) => [
      {
        type: 'image',
        data: { resource_id: 'abc-123', temp_url: `https://x/download?rkey=${key}`, sub_type: 'normal' },
      },
    ];
    assert.equal(toCq(sighting('one')), '[CQ:image,file=abc-123]');
    assert.equal(toCq(sighting('two')), toCq(sighting('one')));
  });

  it('merges adjacent text and drops empty text, as OneBot messages are stored', () => {
    const segments = segmentsToCq([
      { type: 'text', data: { text: '你' } },
      { type: 'text', data: { text: '' } },
      { type: 'text', data: { text: '好' } },
    ]);
    assert.equal(renderCq(segments), '你好');
    assert.equal(plainTextOf(segments), '你好');
  });

  it('keeps the names of other kinds (voice, forward, cards) and of unknown ones', () => {
    assert.equal(
      toCq([
        { type: 'record', data: { resource_id: 'r1', duration: 3 } },
        { type: 'forward', data: { forward_id: 'f1' } },
        { type: 'light_app', data: { app_name: 'x', json_payload: '{"a":1}' } },
        { type: 'something_new', data: { x: 1 } },
      ]),
      '[CQ:record,file=r1][CQ:forward,id=f1][CQ:json,data={"a":1}][CQ:something_new]',
    );
  });

  it('refuses what is not Milky’s shape, naming the field', () => {
    const problem = (segments: unknown) => {
      try {
        segmentsToCq(segments);
        return null;
      } catch (error) {
        assert.ok(error instanceof SegmentShapeError);
        return error.field;
      }
    };
    assert.equal(problem('text'), 'segments');
    assert.equal(problem([{ type: 'text', data: { text: 5 } }]), 'segments[0].data.text');
    assert.equal(
      problem([
        { type: 'text', data: { text: 'a' } },
        { type: 'mention', data: {} },
      ]),
      'segments[1].data.user_id',
    );
    assert.equal(problem([{ type: 'image', data: { temp_url: 'https://x' } }]), 'segments[0].data.resource_id');
    assert.equal(problem([null]), 'segments[0]');
  });
});

describe('CQ text to Milky segments', () => {
  it('sends text, mentions, faces and replies as Milky segments', async () => {
    assert.deepEqual(
      await cqToSegments('[CQ:reply,id=77][CQ:at,qq=10001] 你好&amp;[CQ:face,id=178][CQ:at,qq=all]', noResolve),
      [
        { type: 'reply', data: { message_seq: 77 } },
        { type: 'mention', data: { user_id: 10001 } },
        { type: 'text', data: { text: ' 你好&' } },
        { type: 'face', data: { face_id: '178' } },
        { type: 'mention_all', data: {} },
      ],
    );
  });

  it('resolves a learned resource id, passes a URI through and keeps a sticker a sticker', async () => {
    const resolved: string[] = [];
    const resolve = async (file: string) => {
      resolved.push(file);
      return `https://cdn.example/${file}`;
    };
    assert.deepEqual(
      await cqToSegments(
        '[CQ:image,file=abc-123][CQ:image,file=base64://AAAA,subType=1][CQ:image,file=https://x/y.png]',
        resolve,
      ),
      [
        { type: 'image', data: { uri: 'https://cdn.example/abc-123', sub_type: 'normal' } },
        { type: 'image', data: { uri: 'base64://AAAA', sub_type: 'sticker' } },
        { type: 'image', data: { uri: 'https://x/y.png', sub_type: 'normal' } },
      ],
    );
    assert.deepEqual(resolved, ['abc-123']);
  });

  it('round-trips what it learned: Milky → CQ → Milky', async () => {
    const incoming = [
      { type: 'mention', data: { user_id: 42 } },
      { type: 'text', data: { text: '[CQ:face,id=1] 不是表情' } },
      { type: 'face', data: { face_id: '14' } },
    ];
    assert.deepEqual(await cqToSegments(toCq(incoming), noResolve), incoming);
  });

  it('refuses a kind Milky cannot send, or a malformed id, rather than sending half a message', async () => {
    await assert.rejects(cqToSegments('你好[CQ:json,data={}]', noResolve), UnsendableSegmentError);
    await assert.rejects(cqToSegments('[CQ:at,qq=someone]', noResolve), UnsendableSegmentError);
    await assert.rejects(cqToSegments('[CQ:reply,id=x]', noResolve), UnsendableSegmentError);
  });
});
