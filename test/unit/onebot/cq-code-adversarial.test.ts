/**
 * parseCq on hostile input: it must agree with the plain definition of the format on random
 * input, and its cost must grow linearly with the input, up to the OneBot frame limit.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseCq, unescapeParam, unescapeText, type Segment } from '../../../src/onebot/cq-code.ts';
import { ONEBOT_MAX_FRAME_BYTES } from '../../../src/onebot/limits.ts';

/** The format's definition, written the obvious (quadratic) way; fine on short inputs. */
function definitionalParse(message: string): Segment[] {
  const segments: Segment[] = [];
  let textStart = 0;
  let cursor = 0;
  while (cursor < message.length) {
    const open = message.indexOf('[CQ:', cursor);
    if (open < 0) break;
    const close = message.indexOf(']', open + 4);
    if (close < 0) break;
    const body = message.slice(open + 4, close);
    const parts = body.split(',');
    const type = parts[0] ?? '';
    if (type === '' || body.includes('[')) {
      cursor = open + 1;
      continue;
    }
    const data: Record<string, string> = {};
    for (const part of parts.slice(1)) {
      const equals = part.indexOf('=');
      data[equals < 0 ? part : part.slice(0, equals)] = equals < 0 ? '' : unescapeParam(part.slice(equals + 1));
    }
    if (open > textStart) segments.push({ type: 'text', data: { text: unescapeText(message.slice(textStart, open)) } });
    segments.push({ type, data });
    textStart = close + 1;
    cursor = textStart;
  }
  if (textStart < message.length)
    segments.push({ type: 'text', data: { text: unescapeText(message.slice(textStart)) } });
  return segments;
}

/** A small deterministic generator (mulberry32), so a failure can be replayed from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  '[CQ:',
  '[',
  ']',
  ',',
  '=',
  '&amp;',
  '&#91;',
  '&#93;',
  '&#44;',
  '&',
  'a',
  'at',
  'qq',
  '1',
  '中',
  ' ',
  '[CQ:]',
];

function randomMessage(next: () => number): string {
  const length = Math.floor(next() * 40);
  let out = '';
  for (let i = 0; i < length; i++) out += PIECES[Math.floor(next() * PIECES.length)];
  return out;
}

/** Inputs built to defeat a naive scanner, each `size` characters long (about). */
const ADVERSARIAL: Record<string, (size: number) => string> = {
  'unclosed opens before one close': (size) => '[CQ:'.repeat(size / 4) + ']',
  'raw brackets inside codes': (size) => '[CQ:a['.repeat(size / 6) + ']',
  'empty types': (size) => '[CQ:]'.repeat(size / 5),
  'opens with no close at all': (size) => '[CQ:a,b=c'.repeat(size / 9),
  'brackets only': (size) => '['.repeat(size / 2) + ']'.repeat(size / 2),
  'entities only': (size) => '&#91;&amp;'.repeat(size / 10),
  'one code with many parameters': (size) => `[CQ:x${',k=v'.repeat(size / 4)}]`,
  'valid codes back to back': (size) => '[CQ:at,qq=1]'.repeat(size / 12),
};

/**
 * The CPU milliseconds one parse takes, the best of nine. CPU time, not wall time: a busy machine
 * that deschedules the process stretches the wall clock of a run but not its CPU time.
 */
function timeParse(input: string): number {
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < 9; run++) {
    const started = process.cpuUsage();
    parseCq(input);
    const used = process.cpuUsage(started);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

describe('parseCq on hostile input', () => {
  test('agrees with the definition of the format on 20,000 random messages', () => {
    const next = random(20261124);
    for (let i = 0; i < 20_000; i++) {
      const message = randomMessage(next);
      assert.deepEqual(parseCq(message), definitionalParse(message), JSON.stringify(message));
    }
  });

  test('agrees with the definition on every adversarial shape (small sizes)', () => {
    for (const [name, build] of Object.entries(ADVERSARIAL)) {
      const input = build(4096);
      assert.deepEqual(parseCq(input), definitionalParse(input), name);
    }
  });

  for (const [name, build] of Object.entries(ADVERSARIAL)) {
    test(`cost grows linearly: ${name}`, () => {
      // Eight times the input, measured as the best of several runs: a linear parse costs about
      // eight times as much, a quadratic one sixty-four; garbage collection makes single runs noisy,
      // so the bound sits halfway (32x) between the two.
      const small = build(256 * 1024);
      const large = build(2048 * 1024);
      timeParse(small); // warm the JIT
      const smallMs = Math.max(timeParse(small), 0.5);
      const largeMs = timeParse(large);
      assert.ok(
        largeMs < 4 * 8 * smallMs,
        `${name}: ${smallMs.toFixed(1)} ms for 256 KiB, ${largeMs.toFixed(1)} ms for 2 MiB`,
      );
    });
  }

  test('an adversarial message as large as the frame limit parses within a second', () => {
    const input = ADVERSARIAL['unclosed opens before one close']!(ONEBOT_MAX_FRAME_BYTES);
    // CPU time, like the growth checks above: a wall clock on a busy machine counts other
    // processes' turns (a suite run on the busy 2-core machine saw 1012 ms of wall time).
    const started = process.cpuUsage();
    const segments = parseCq(input);
    const used = process.cpuUsage(started);
    const cpuMs = (used.user + used.system) / 1000;
    assert.equal(segments.length, 1);
    assert.ok(cpuMs < 1000, `${cpuMs.toFixed(0)} ms of CPU`);
  });
});
