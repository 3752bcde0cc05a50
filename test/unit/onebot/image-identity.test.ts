/**
 * The stable identity of a picture (issue 30): the same picture learns as the same text whatever
 * rotates in its delivery (NapCat/LLBot file names, Lagrange's rkey URLs), and a sticker keeps its mark.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseCq, renderCq } from '../../../src/onebot/cq-code.ts';
import { identityOfUrl, imageIdentity } from '../../../src/onebot/image-identity.ts';
import { normaliseForStorage, picturesOf } from '../../../src/onebot/stored-form.ts';
import { storedMessageText } from '../../../src/onebot/events.ts';

const stored = (message: unknown): string => {
  const result = storedMessageText(message);
  assert.ok(result.ok);
  return result.text;
};

const NT_URL = (rkey: string) =>
  `https://multimedia.nt.qq.com.cn/download?appid=1407&fileid=EhQxYjQ1ZmE2ZDc0YzE1&spec=0&rkey=${rkey}`;

describe('picture identity', () => {
  test('a NapCat or LLBot file name is the identity, whatever its url says', () => {
    const napcat = { file: 'A1B2C3D4E5F60718293A4B5C6D7E8F90.jpg', url: NT_URL('one'), file_size: '2048' };
    assert.equal(imageIdentity(napcat), 'A1B2C3D4E5F60718293A4B5C6D7E8F90.jpg');
    assert.equal(stored([{ type: 'image', data: napcat }]), '[CQ:image,file=A1B2C3D4E5F60718293A4B5C6D7E8F90.jpg]');
  });

  test("Lagrange's rotating URLs of one picture give one text, by filename, then fileid", () => {
    const first = `[CQ:image,file=${NT_URL('AAA')},url=${NT_URL('AAA')}]`;
    const second = `[CQ:image,file=${NT_URL('BBB')},url=${NT_URL('BBB')}]`;
    assert.equal(stored(first), stored(second));
    assert.equal(stored(first), '[CQ:image,file=EhQxYjQ1ZmE2ZDc0YzE1]');
    const named = { file: NT_URL('CCC'), filename: 'F00D.png', url: NT_URL('CCC') };
    assert.equal(stored([{ type: 'image', data: named }]), '[CQ:image,file=F00D.png]');
    // The same message in string and array form stores the same.
    assert.equal(stored([{ type: 'image', data: { file: NT_URL('DDD'), url: NT_URL('DDD') } }]), stored(first));
  });

  test('old-style URLs name the picture by the md5 in their path; other URLs lose only their rkey', () => {
    const md5 = '0123456789abcdef0123456789abcdef';
    assert.equal(identityOfUrl(`https://gchat.qpic.cn/gchatpic_new/1/2-3-${md5}/0?term=2&rkey=x`), md5.toUpperCase());
    assert.equal(identityOfUrl('https://img.example/p.png?size=1&rkey=abc'), 'https://img.example/p.png?size=1');
    assert.equal(identityOfUrl('not a url'), 'not a url');
    assert.equal(imageIdentity({ file: 'https://x.example/a?rkey=1', md5 }), md5.toUpperCase());
  });

  test('a sticker keeps sub_type=1 (NapCat sub_type, Lagrange subType); an ordinary picture none', () => {
    assert.equal(
      stored('[CQ:image,file=S.gif,sub_type=1,summary=&#91;动画表情&#93;]'),
      '[CQ:image,file=S.gif,sub_type=1]',
    );
    assert.equal(stored([{ type: 'image', data: { file: 'S.gif', sub_type: 1 } }]), '[CQ:image,file=S.gif,sub_type=1]');
    assert.equal(stored('[CQ:image,file=S.gif,subType=1]'), '[CQ:image,file=S.gif,sub_type=1]');
    assert.equal(stored('[CQ:image,file=P.jpg,sub_type=0]'), '[CQ:image,file=P.jpg]');
  });

  test('the pictures of a delivered message carry their download URL; those without one are left out', () => {
    const segments = parseCq(`a[CQ:image,file=P.jpg,url=${NT_URL('k')}][CQ:image,file=Q.jpg]`);
    assert.deepEqual(picturesOf(segments), [{ file: 'P.jpg', url: NT_URL('k') }]);
    assert.equal(renderCq(normaliseForStorage(segments)), 'a[CQ:image,file=P.jpg][CQ:image,file=Q.jpg]');
  });
});
