import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  escapeParam,
  escapeText,
  mentions,
  parseCq,
  plainTextOf,
  renderCq,
  replyIdOf,
  unescapeParam,
  unescapeText,
  type Segment,
} from '../../../src/onebot/cq-code.ts';
import { normaliseForStorage } from '../../../src/onebot/stored-form.ts';

const text = (value: string): Segment => ({ type: 'text', data: { text: value } });

describe('CQ escaping', () => {
  test('text escapes &, [ and ] but not commas', () => {
    assert.equal(escapeText('a&b[c]d,e'), 'a&amp;b&#91;c&#93;d,e');
    assert.equal(unescapeText('a&amp;b&#91;c&#93;d,e&#44;'), 'a&b[c]d,e&#44;');
  });

  test('parameter values also escape commas', () => {
    assert.equal(escapeParam('a,b&[c]'), 'a&#44;b&amp;&#91;c&#93;');
    assert.equal(unescapeParam('a&#44;b&amp;&#91;c&#93;'), 'a,b&[c]');
  });

  test('unescaping is one pass: an escaped entity stays an entity', () => {
    assert.equal(unescapeText('&amp;#91;'), '&#91;');
    assert.equal(unescapeParam('&amp;#44;'), '&#44;');
    assert.equal(unescapeText(escapeText('&#91;&amp;')), '&#91;&amp;');
  });

  test('escape then unescape is the identity on awkward strings', () => {
    for (const value of ['', '&', '&&amp;', '[[]]', '&#44;,', '[CQ:at,qq=1]', '中文&#93;', ']]&[[']) {
      assert.equal(unescapeText(escapeText(value)), value, value);
      assert.equal(unescapeParam(escapeParam(value)), value, value);
    }
  });
});

describe('parseCq / renderCq', () => {
  test('splits text and codes, unescaping both', () => {
    assert.deepEqual(parseCq('hi &#91;x&#93; [CQ:at,qq=123] [CQ:image,file=a&#44;b.jpg,url=http://x/?a=1&amp;b=2]!'), [
      text('hi [x] '),
      { type: 'at', data: { qq: '123' } },
      text(' '),
      { type: 'image', data: { file: 'a,b.jpg', url: 'http://x/?a=1&b=2' } },
      text('!'),
    ]);
  });

  test('a value may contain "=", a code may have no parameters, and unknown types are kept', () => {
    assert.deepEqual(parseCq('[CQ:image,file=base64://QUJD==][CQ:shake][CQ:mystery_9,k=v,flag]'), [
      { type: 'image', data: { file: 'base64://QUJD==' } },
      { type: 'shake', data: {} },
      { type: 'mystery_9', data: { k: 'v', flag: '' } },
    ]);
  });

  test('unterminated or empty codes and raw brackets stay text', () => {
    assert.deepEqual(parseCq('[CQ:at,qq=1'), [text('[CQ:at,qq=1')]);
    assert.deepEqual(parseCq('[CQ:]x'), [text('[CQ:]x')]);
    assert.deepEqual(parseCq('[[CQ:face,id=1]]'), [text('['), { type: 'face', data: { id: '1' } }, text(']')]);
    assert.deepEqual(parseCq('[CQ:at,qq=1 [x] y'), [text('[CQ:at,qq=1 [x] y')]);
    assert.deepEqual(parseCq(''), []);
  });

  test('segments survive render → parse exactly, including every escape', () => {
    const segments: Segment[] = [
      text('[[nested [brackets]]] & &amp; &#44; ,'),
      { type: 'at', data: { qq: '10001' } },
      text(' '),
      { type: 'reply', data: { id: '-42' } },
      { type: 'json', data: { data: '{"a":[1,2],"b":"x&y"}' } },
      { type: 'unknown_kind', data: { 'k.1': 'a=b,c]d[e&f', empty: '' } },
      text('end'),
    ];
    const rendered = renderCq(segments);
    assert.equal(
      rendered,
      '&#91;&#91;nested &#91;brackets&#93;&#93;&#93; &amp; &amp;amp; &amp;#44; ,[CQ:at,qq=10001] [CQ:reply,id=-42]' +
        '[CQ:json,data={"a":&#91;1&#44;2&#93;&#44;"b":"x&amp;y"}][CQ:unknown_kind,k.1=a=b&#44;c&#93;d&#91;e&amp;f,empty=]end',
    );
    assert.deepEqual(parseCq(rendered), segments);
  });

  test('canonical strings survive parse → render exactly', () => {
    for (const message of [
      'plain',
      '&#91;CQ:at,qq=1&#93; is how you mention',
      '[CQ:reply,id=5][CQ:at,qq=1] hi&amp;bye',
      '[CQ:image,file=x.jpg,url=https://a/b?c=1&amp;d=2&#44;3]',
      '[CQ:face,id=14][CQ:face,id=14]',
      '[CQ:rps]',
    ]) {
      assert.equal(renderCq(parseCq(message)), message);
    }
  });
});

describe('message helpers', () => {
  const segments = parseCq('[CQ:reply,id=77][CQ:at,qq=10001] hello &#91;world&#93; [CQ:image,file=a.jpg]x');

  test('plain text is the unescaped text segments only', () => {
    assert.equal(plainTextOf(segments), ' hello [world] x');
    assert.equal(plainTextOf(parseCq('[CQ:image,file=a.jpg]')), '');
  });

  test('reply id is the first reply code, when numeric', () => {
    assert.equal(replyIdOf(segments), 77);
    assert.equal(replyIdOf(parseCq('[CQ:reply,id=-2147483000]')), -2147483000);
    assert.equal(replyIdOf(parseCq('[CQ:reply,id=abc]')), null);
    assert.equal(replyIdOf(parseCq('no reply')), null);
  });

  test('mentions matches the exact account, not all or a prefix', () => {
    assert.equal(mentions(segments, 10001), true);
    assert.equal(mentions(segments, 1000), false);
    assert.equal(mentions(parseCq('[CQ:at,qq=all]'), 10001), false);
  });

  test('storage keeps only the image file and face id, merges text and drops empty text', () => {
    const stored = normaliseForStorage([
      text('a'),
      text(''),
      text('b'),
      { type: 'image', data: { file: 'ABC.jpg', subType: '0', url: 'https://x?rkey=1', file_size: '9' } },
      { type: 'face', data: { id: '14', raw: '{"faceIndex":14}' } },
      { type: 'at', data: { qq: '1', name: 'n' } },
    ]);
    assert.equal(renderCq(stored), 'ab[CQ:image,file=ABC.jpg][CQ:face,id=14][CQ:at,qq=1,name=n]');
  });

  test('the same picture with different volatile attributes stores as the same text', () => {
    const first = renderCq(normaliseForStorage(parseCq('[CQ:image,file=P.jpg,subType=0,url=https://a?rkey=1]')));
    const second = renderCq(normaliseForStorage(parseCq('[CQ:image,url=https://b?rkey=2,file=P.jpg,subType=0]')));
    assert.equal(first, '[CQ:image,file=P.jpg]');
    assert.equal(second, first);
  });
});

describe('round trip on generated messages', () => {
  /** Deterministic PRNG (mulberry32) so a failure reproduces. */
  function random(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  const alphabet = [
    'a',
    ' ',
    '&',
    '[',
    ']',
    ',',
    '=',
    '#',
    ';',
    '9',
    '1',
    'amp',
    '&#44;',
    '&#91;',
    '[CQ:',
    '中',
    '😀',
    '\n',
  ];

  test('500 random segment arrays: parse(render(x)) = x and render is stable', () => {
    const next = random(20261101);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
    const word = (min: number): string => {
      let out = '';
      const length = min + Math.floor(next() * 8);
      for (let index = 0; index < length; index++) out += pick(alphabet);
      return out;
    };
    for (let round = 0; round < 500; round++) {
      const segments: Segment[] = [];
      const count = Math.floor(next() * 6);
      for (let index = 0; index < count; index++) {
        if (next() < 0.5 && segments.at(-1)?.type !== 'text') segments.push(text(word(1)));
        else {
          const data: Record<string, string> = {};
          const keys = Math.floor(next() * 3);
          for (let key = 0; key < keys; key++) data[pick(['qq', 'file', 'id', 'url', 'k_1'])] = word(0);
          segments.push({ type: pick(['at', 'image', 'face', 'reply', 'json', 'x-y']), data });
        }
      }
      const rendered = renderCq(segments);
      assert.deepEqual(parseCq(rendered), segments, rendered);
      assert.equal(renderCq(parseCq(rendered)), rendered);
    }
  });
});
