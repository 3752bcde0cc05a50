/**
 * The media cache (src/onebot/media-cache.ts) against a real HTTP server on 127.0.0.1: fetched
 * once, bounded per picture, evicted least recently used first within its byte budget, written
 * whole, and found again (with its order of use) after a restart. And the sender over it
 * (media-send.ts): by name first, as bytes when refused, at once for a name known stale.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { silentLog } from '../../../src/common/log.ts';
import { isMediaFailure } from '../../../src/domain/chat.ts';
import { ActionFailedError } from '../../../src/onebot/errors.ts';
import { MediaCache } from '../../../src/onebot/media-cache.ts';
import { MediaSender } from '../../../src/onebot/media-send.ts';

const bodies = new Map<string, Buffer>([
  ['/a', randomBytes(100)],
  ['/b', randomBytes(100)],
  ['/c', randomBytes(100)],
  ['/big', randomBytes(5000)],
]);
const requests: string[] = [];
let server: Server;
let base = '';
let dir = '';

before(async () => {
  server = createServer((request, response) => {
    requests.push(request.url ?? '');
    const body = bodies.get(new URL(request.url ?? '/', 'http://x').pathname);
    if (body === undefined) response.writeHead(404).end();
    else response.writeHead(200).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = await mkdtemp(join(tmpdir(), 'chorus-media-cache-'));
});
after(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

const cacheIn = (folder: string, budgetBytes = 250) =>
  new MediaCache({ dir: folder, log: silentLog, budgetBytes, pictureMaxBytes: 1000 });
const picture = (name: string) => ({ file: `${name.toUpperCase()}.png`, url: `${base}/${name}?rkey=1` });

describe('media cache', () => {
  test('fetches once, evicts the least recently used beyond its budget, keeps nothing too large', async () => {
    const folder = join(dir, 'lru');
    const cache = cacheIn(folder);
    await cache.start();
    cache.remember([picture('a'), picture('a'), picture('b')]);
    await cache.idle();
    cache.remember([picture('a')]);
    await cache.idle();
    assert.equal(requests.filter((url) => url.startsWith('/a')).length, 1, 'a held picture is not fetched again');
    // a is used now, so b is the least recently used when c arrives.
    assert.ok((await cache.bytes('A.png'))?.equals(bodies.get('/a') as Buffer));
    cache.remember([picture('c'), picture('big')]);
    await cache.idle();
    assert.deepEqual(
      [cache.has('A.png'), cache.has('B.png'), cache.has('C.png'), cache.has('BIG.png')],
      [true, false, true, false],
    );
    assert.equal(await cache.bytes('B.png'), null);
    const counters = cache.counters();
    assert.deepEqual(
      [counters.files, counters.bytes, counters.hits, counters.misses, counters.evictions, counters.too_large],
      [2, 200, 1, 1, 1, 1],
    );
    assert.equal((await readdir(folder)).filter((name) => name.endsWith('.pic')).length, 2, 'the evicted file is gone');

    // A restart finds the pictures again; a temporary file a crash left behind is removed.
    await writeFile(join(folder, '.leftover.tmp'), 'half');
    const again = cacheIn(folder);
    await again.start();
    assert.deepEqual([again.counters().files, again.counters().bytes], [2, 200]);
    assert.ok((await again.bytes('C.png'))?.equals(bodies.get('/c') as Buffer));
    assert.equal((await readdir(folder)).includes('.leftover.tmp'), false);
    // A smaller budget evicts at once.
    again.applyLimits({ budgetBytes: 100, pictureMaxBytes: 1000 });
    await again.idle();
    assert.equal(again.counters().files, 1);
  });

  test('a failed download is counted and not kept; budget 0 fetches nothing', async () => {
    const cache = cacheIn(join(dir, 'failed'));
    await cache.start();
    cache.remember([{ file: 'GONE.png', url: `${base}/gone?rkey=1` }]);
    await cache.idle();
    assert.deepEqual([cache.counters().fetch_failed, cache.counters().files], [1, 0]);
    const off = cacheIn(join(dir, 'off'), 0);
    await off.start();
    const before = requests.length;
    off.remember([picture('a')]);
    await off.idle();
    assert.equal(requests.length, before);
  });
});

describe('media sender', () => {
  test('by name first; refused, as bytes; then as bytes at once; a refusal without bytes is a media failure', async () => {
    const cache = cacheIn(join(dir, 'sender'));
    await cache.start();
    cache.remember([picture('a')]);
    await cache.idle();
    const sender = new MediaSender(cache, silentLog);
    const tried: string[] = [];
    const implementation = async (text: string) => {
      tried.push(text);
      if (!text.includes('base64://')) throw new ActionFailedError('send_group_msg', 1200, 'Error: 文件下载失败');
      return { messageId: 1 };
    };
    await sender.send('看[CQ:image,file=A.png]', implementation);
    const bytes = `base64://${(bodies.get('/a') as Buffer).toString('base64')}`;
    assert.deepEqual(tried, ['看[CQ:image,file=A.png]', `看[CQ:image,file=${bytes}]`]);
    tried.length = 0;
    await sender.send('[CQ:image,file=A.png]', implementation);
    assert.deepEqual(tried, [`[CQ:image,file=${bytes}]`], 'a name known stale goes as bytes at once');
    assert.deepEqual(sender.counters(), { resent_base64: 1, sent_base64: 1, media_failures: 0 });
    // Delivered again by the implementation: it knows the name again, so the name goes first.
    sender.sawAgain(['A.png']);
    tried.length = 0;
    await sender.send('[CQ:image,file=A.png]', implementation);
    assert.deepEqual(tried, ['[CQ:image,file=A.png]', `[CQ:image,file=${bytes}]`]);

    const refused = await sender.send('[CQ:image,file=NONE.png]', implementation).catch((error: unknown) => error);
    assert.equal(isMediaFailure(refused), true, 'no bytes to send: a media failure');
    const other = async () => {
      throw new ActionFailedError('send_group_msg', 100, 'bot muted');
    };
    const muted = await sender.send('[CQ:image,file=NONE.png]', other).catch((error: unknown) => error);
    assert.equal(isMediaFailure(muted), false, 'a refusal for another reason stays one');
    const text = await sender.send('纯文字', other).catch((error: unknown) => error);
    assert.equal(isMediaFailure(text), false);
  });
});
