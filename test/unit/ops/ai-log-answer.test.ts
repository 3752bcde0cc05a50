/**
 * Reading an answer of the AI service's log endpoint in slices (src/ops/ai/log-answer.ts): the same
 * lines, path and error as JSON.parse would give, for valid answers, answers wrapped in `data`, and
 * every kind of broken JSON; only the last lines kept; answers far larger than a slice.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readLogAnswer, type LogAnswer } from '../../../src/ops/ai/log-answer.ts';

/** What the answer means, by JSON.parse: the reading the slices must agree with. */
function parsed(text: string, maxLines: number): LogAnswer {
  const none = { object: false, lines: [], path: null, error: null };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return none;
  }
  const isRecord = (value: unknown): value is Record<string, unknown> =>
    typeof value === 'object' && value !== null && !Array.isArray(value);
  const inner = isRecord(body) && typeof body.data === 'object' && body.data !== null ? body.data : body;
  if (!isRecord(inner)) return none;
  const nonEmptyText = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  const lines = Array.isArray(inner.lines) ? inner.lines.filter((line) => typeof line === 'string') : [];
  return {
    object: true,
    lines: lines.slice(-maxLines),
    path: nonEmptyText(inner.path),
    error: nonEmptyText(inner.error),
  };
}

/** A small deterministic random source (the cases are the same on every run). */
function randomSource(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state % below;
  };
}

describe('AI log answers read in slices', () => {
  it('reads what JSON.parse reads', async () => {
    const cases = [
      '{"kind":"uvicorn","path":"/ai/logs/uvicorn.log","lines":["a","b","c"],"error":null,"source":"ai"}',
      '{"ok":true,"data":{"path":"/p","lines":["x",1,"y",null,["z"]],"error":"partial"}}',
      '{"data":["not","an","object"],"lines":["outer"]}',
      '{"data":null,"lines":["outer"],"path":""}',
      '{"lines":["first"],"lines":["second"],"path":{"a":1}}',
      ' {"lines" : [ "\\u00e9t\\u00e9" , "tab\\tand \\"quotes\\" and \\\\" ] } \n',
      '{"lines":["a",]}',
      '{"lines":["a" "b"]}',
      '{"lines":["raw\nnewline"]}',
      '{"lines":["bad \\x escape"]}',
      '{"lines":[01]}',
      '{"lines":["a"]} trailing',
      '{"lines":["unterminated]}',
      '[{"lines":["in a list"]}]',
      '"just a string"',
      '',
      '{',
      '{"a":}',
      '{"a" 1}',
      '{,"a":1}',
    ];
    for (const text of cases) {
      for (const maxLines of [1, 2, 300]) {
        assert.deepEqual(await readLogAnswer(text, maxLines), parsed(text, maxLines), `${text} (${maxLines})`);
      }
    }
  });

  it('agrees with JSON.parse on thousands of generated answers, whole and damaged', async () => {
    const random = randomSource(33);
    const atoms = ['"a"', '"b\\"c"', '"\\u00e9"', '1', '-2.5e3', 'true', 'false', 'null', '""', '"x\\\\"'];
    const keys = ['lines', 'path', 'error', 'data', 'kind'];
    const value = (depth: number): string => {
      const pick = random(10);
      if (depth > 3 || pick < 4) return atoms[random(atoms.length)] as string;
      const items = Array.from({ length: random(5) }, () => value(depth + 1));
      if (pick < 7) return `[${items.join(',')}]`;
      return `{${items.map((item) => `"${keys[random(keys.length)] as string}":${item}`).join(',')}}`;
    };
    const damage = (text: string): string => {
      const at = random(text.length + 1);
      switch (random(6)) {
        case 0:
          return text.slice(0, -1);
        case 1:
          return text.slice(0, at) + text.slice(at + 1);
        case 2:
          return text.slice(0, at) + (' ,:[]{}"\\x'[random(10)] as string) + text.slice(at);
        default:
          return text;
      }
    };
    for (let index = 0; index < 5000; index++) {
      const text = damage(value(0));
      const maxLines = 1 + random(3);
      assert.deepEqual(await readLogAnswer(text, maxLines), parsed(text, maxLines), text);
    }
  });

  it('keeps only the last lines of an answer many slices long', async () => {
    const lines = Array.from({ length: 200_000 }, (_, index) => `line ${index}`);
    const text = JSON.stringify({ data: { path: '/big.log', lines, error: null } });
    const answer = await readLogAnswer(text, 300);
    assert.deepEqual(answer, { object: true, lines: lines.slice(-300), path: '/big.log', error: null });
  });
});
