/**
 * The media cache (src/onebot/media-cache.ts) in a demo run: a group's pictures learned and sent
 * again, skewed as chat is (a few pictures sent often, many once), with a budget smaller than all
 * of them. A stand-in download server on 127.0.0.1 serves the pictures; each "learn" fetches one
 * once, each "send" asks the cache for its bytes after the implementation forgot the name. Prints
 * the cache's files, bytes, hits, misses and evictions, the hit rate, and the time a hit takes.
 *
 *   npm run bench:media-cache [-- --quick]
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { silentLog } from '../src/common/log.ts';
import { MediaCache } from '../src/onebot/media-cache.ts';

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
const quick = values.quick ?? false;
const PICTURES = quick ? 200 : 1000;
const SENDS = quick ? 2000 : 10_000;
const PICTURE_BYTES = 40 * 1024;
/** Room for a quarter of the pictures. */
const BUDGET_BYTES = Math.floor((PICTURES * PICTURE_BYTES) / 4);

/** A seeded generator (mulberry32), so runs compare. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = seeded(30);
/** Zipf-like: picture k is chosen about 1/k as often as picture 1. */
const zipf = (): number => Math.min(PICTURES - 1, Math.floor(Math.exp(random() * Math.log(PICTURES))) - 1);

const bodies = Array.from({ length: PICTURES }, () => randomBytes(PICTURE_BYTES));
const server = createServer((request, response) => {
  const index = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('fileid'));
  response.writeHead(200, { 'content-length': PICTURE_BYTES }).end(bodies[index]);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.address() as AddressInfo).port;
const dir = await mkdtemp(join(tmpdir(), 'chorus-bench-media-'));
const cache = new MediaCache({ dir, log: silentLog, budgetBytes: BUDGET_BYTES, pictureMaxBytes: 4 * 1024 * 1024 });
await cache.start();

const name = (index: number) => `${index.toString(16).toUpperCase().padStart(32, '0')}.jpg`;
let rkey = 0;
const hitMs: number[] = [];
try {
  for (let send = 0; send < SENDS; send++) {
    const index = zipf();
    // Learned: the sighting's URL (a new rkey each time) goes to the cache, fetched once in the background.
    cache.remember([{ file: name(index), url: `http://127.0.0.1:${port}/download?fileid=${index}&rkey=${++rkey}` }]);
    if (send % 50 === 0) await cache.idle();
    // Later sent again by bytes: the implementation forgot the name.
    const started = performance.now();
    const bytes = await cache.bytes(name(zipf()));
    if (bytes !== null) hitMs.push(performance.now() - started);
  }
  await cache.idle();
} finally {
  server.close();
}
const counters = cache.counters();
hitMs.sort((a, b) => a - b);
const p = (q: number) => (hitMs[Math.min(hitMs.length - 1, Math.floor(q * hitMs.length))] ?? 0).toFixed(3);
console.log(
  `pictures ${PICTURES} × ${PICTURE_BYTES / 1024} KiB, budget ${(BUDGET_BYTES / 1024 / 1024).toFixed(1)} MiB, ${SENDS} sends`,
);
console.log(JSON.stringify(counters));
const rate = counters.hits / Math.max(1, counters.hits + counters.misses);
console.log(
  `RESULT media-cache files=${counters.files} bytes=${counters.bytes} hits=${counters.hits} misses=${counters.misses} ` +
    `evictions=${counters.evictions} fetched=${counters.fetched} hit_rate=${(rate * 100).toFixed(1)}% hit_p50_ms=${p(0.5)} hit_p99_ms=${p(0.99)}`,
);
await rm(dir, { recursive: true, force: true });
