/**
 * CQ-code parsing cost per KiB, for ordinary messages and for inputs built to defeat a naive
 * scanner, at growing sizes up to the OneBot frame limit. Beside each figure: JSON.parse of the
 * same text as a JSON string (the work every frame costs anyway, a linear scan done in C++) and
 * the ratio. A linear parser keeps its per-KiB figure flat as the size grows.
 *
 *   npm run bench:cq-parse [-- --quick]
 */
import { parseArgs } from 'node:util';
import { parseCq } from '../src/onebot/cq-code.ts';
import { ONEBOT_MAX_FRAME_BYTES } from '../src/onebot/limits.ts';
import { fmt, formatTable } from './lib/table.ts';

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
const quick = values.quick ?? false;
const sizesKiB = quick ? [16, 256, 2048] : [16, 256, 2048, ONEBOT_MAX_FRAME_BYTES / 1024];
const runs = quick ? 3 : 7;

const ORDINARY = '今天吃什么[CQ:face,id=178]好耶&#91;真的&#93;[CQ:at,qq=10001] 吃火锅吧[CQ:image,file=abc.jpg]';
const SHAPES: Record<string, (chars: number) => string> = {
  ordinary: (chars) => fill(ORDINARY, chars),
  'unclosed opens': (chars) => fill('[CQ:', chars - 1) + ']',
  'raw [ in codes': (chars) => fill('[CQ:a[', chars - 1) + ']',
  'brackets only': (chars) => fill('[', chars / 2) + fill(']', chars / 2),
};

function fill(piece: string, chars: number): string {
  return piece.repeat(Math.max(1, Math.floor(chars / piece.length)));
}

function bestMs(work: () => unknown): number {
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    work();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

const rows: string[][] = [];
const perKiB: Record<string, number[]> = {};
for (const [shape, build] of Object.entries(SHAPES)) {
  for (const kib of sizesKiB) {
    const text = build(kib * 1024);
    const json = JSON.stringify(text);
    const oursMs = bestMs(() => parseCq(text));
    const bareMs = bestMs(() => JSON.parse(json));
    const usPerKiB = (oursMs * 1000) / kib;
    (perKiB[shape] ??= []).push(usPerKiB);
    rows.push([shape, String(kib), fmt(usPerKiB, 2), fmt((bareMs * 1000) / kib, 2), (oursMs / bareMs).toFixed(2)]);
  }
}
console.log(formatTable(['input', 'KiB', 'parseCq µs/KiB', 'JSON.parse µs/KiB', 'ratio'], rows));

// Flatness: the per-KiB cost at the largest size over that at 256 KiB (1.0 = perfectly linear).
const growth = (shape: string): number => {
  const figures = perKiB[shape] ?? [];
  return (figures.at(-1) ?? 0) / (figures[1] ?? 1);
};
const worst = Math.max(...Object.keys(SHAPES).map(growth));
const ordinary = perKiB.ordinary?.at(-1) ?? 0;
const adversarial = Math.max(
  ...Object.keys(SHAPES)
    .filter((s) => s !== 'ordinary')
    .map((s) => perKiB[s]?.at(-1) ?? 0),
);
console.log(
  `RESULT bench:cq-parse ordinary_us_per_kib=${fmt(ordinary, 2)} adversarial_us_per_kib=${fmt(adversarial, 2)} ` +
    `largest_kib=${sizesKiB.at(-1)} worst_growth=${worst.toFixed(2)}`,
);
