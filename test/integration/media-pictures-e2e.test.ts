/**
 * Pictures that stay sendable (issue 30), end to end: `startService` on SQLite, scripted OneBot
 * peers over real WebSockets, and a stand-in for the implementation's picture download server on
 * 127.0.0.1 (its URLs carry a rotating `rkey`, as QQ's do).
 *
 * - a NapCat-shaped peer that restarted (its picture cache is gone: a send by name answers retcode
 *   1200) still gets the learned picture, as the same bytes, fetched once;
 * - a Lagrange-shaped peer's rotating URLs of one picture learn as one context, and a picture it
 *   delivered (by URL) goes back to it as bytes, since it cannot send by fileid;
 * - a sticker goes back as a sticker;
 * - in security mode, a send refused for a picture does not ban the answer.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { startService, type RunningService } from '../../src/app/service.ts';
import type { RepeaterDecision } from '../../src/repeater/index.ts';
import { describeText, jiebaTagger, KeywordExtractor } from '../../src/repeater/keywords.ts';
import { OneBotPeer, type PeerOptions, type PeerSegment } from '../fixtures/onebot-peer.ts';
import { freePort } from '../support/chorus-process.ts';

const BOT = 70001;
const LAGRANGE_BOT = 70002;
const WRITE = 'media-e2e-write-token';
const WAIT_MS = 10_000;
const FILLER = '嗯嗯嗯';
const KEYWORDS = new KeywordExtractor({ tagger: jiebaTagger() });
const keywordsOf = (text: string): string => describeText(text, text, KEYWORDS).keywords;

async function waitUntil(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The implementation's download server: bytes by fileid, any rkey; counts the downloads. */
class PictureServer {
  readonly pictures = new Map<string, Buffer>();
  readonly downloads = new Map<string, number>();
  #server: Server | null = null;
  port = 0;
  #rkey = 0;

  async start(): Promise<void> {
    this.port = await freePort();
    this.#server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const fileId = url.searchParams.get('fileid') ?? '';
      const bytes = this.pictures.get(fileId);
      this.downloads.set(fileId, (this.downloads.get(fileId) ?? 0) + 1);
      if (bytes === undefined || url.searchParams.get('rkey') === null) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'image/png', 'content-length': bytes.length }).end(bytes);
    });
    await new Promise<void>((resolve) => this.#server?.listen(this.port, '127.0.0.1', resolve));
  }

  add(fileId: string, size = 3000): Buffer {
    const bytes = randomBytes(size);
    this.pictures.set(fileId, bytes);
    return bytes;
  }

  /** A download URL as QQ hands it out: the same fileid, a new rkey each time. */
  url(fileId: string): string {
    return `http://127.0.0.1:${this.port}/download?appid=1407&fileid=${fileId}&spec=0&rkey=RK${++this.#rkey}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }
}

describe('pictures that stay sendable (NapCat and Lagrange shaped peers, SQLite)', () => {
  let dir: string;
  let port: number;
  let service: RunningService;
  const decisions: RepeaterDecision[] = [];
  const pictures = new PictureServer();
  const peers: OneBotPeer[] = [];
  let second = Math.floor(Date.now() / 1000) - 50_000;

  before(async () => {
    await pictures.start();
    dir = await mkdtemp(join(tmpdir(), 'chorus-media-e2e-'));
    port = await freePort();
    service = await startService({
      projectDir: dir,
      env: {
        CHORUS_PORT: String(port),
        CHORUS_CONSOLE_TOKEN: 'media-e2e-read-token',
        CHORUS_CONSOLE_WRITE_TOKEN: WRITE,
        CHORUS_REPEATER_COOLDOWN_SEC: '0',
        CHORUS_REPEATER_REPLY_DELAY_SEC: '0-0',
        CHORUS_REPEATER_SPLIT_DELAY_SEC: '0-0',
        CHORUS_REPEATER_SPLIT_PROBABILITY: '0',
        CHORUS_REPEATER_ANSWER_THRESHOLD: '3',
        CHORUS_REPEATER_ANSWER_THRESHOLD_WEIGHTS: '0,0,1',
        CHORUS_REPEATER_BUNDLE_CACHE_SEC: '0',
        CHORUS_REPEATER_BUNDLE_NEGATIVE_CACHE_SEC: '0',
        CHORUS_CORPUS_REPLY_SNAPSHOT_SEC: '1',
        CHORUS_ONEBOT_MEDIA_CACHE_MB: '1',
        CHORUS_ONEBOT_MEDIA_PICTURE_MAX_KB: '64',
      },
      logDestination: new Writable({ write: (_chunk, _encoding, done) => done() }),
      onDecision: (decision) => decisions.push(decision),
    });
  });
  after(async () => {
    for (const peer of peers) await peer.close().catch(() => undefined);
    await service.stop();
    await pictures.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const connect = async (selfId: number, options: Partial<PeerOptions> = {}): Promise<OneBotPeer> => {
    const peer = await OneBotPeer.connect({
      url: `ws://127.0.0.1:${port}/onebot/v11/ws`,
      selfId,
      firstMessageId: (selfId % 100) * 1_000_000 + peers.length * 10_000 + 1,
      ...options,
    });
    peers.push(peer);
    await waitUntil(`bot ${selfId} online`, () => service.chat.onebot.bots().some((bot) => bot.selfId === selfId));
    return peer;
  };
  const say = (peer: OneBotPeer, group: number, userId: number, message: string | PeerSegment[]): number =>
    peer.groupMessage({ groupId: group, userId, message, time: ++second });
  const decided = async (messageId: number): Promise<RepeaterDecision> => {
    await waitUntil(`the decision on ${messageId}`, () => decisions.some((d) => d.messageId === messageId));
    return decisions.find((d) => d.messageId === messageId) as RepeaterDecision;
  };
  /** Three rounds of (trigger, answer, filler), learned and visible. */
  const teach = async (
    peer: OneBotPeer,
    group: number,
    trigger: () => string | PeerSegment[],
    answer: () => string | PeerSegment[],
  ) => {
    const ids: number[] = [];
    for (let round = 0; round < 3; round++) {
      ids.push(say(peer, group, 2, trigger()), say(peer, group, 3, answer()), say(peer, group, 4, FILLER));
    }
    for (const id of ids) assert.notEqual((await decided(id)).outcome, 'replied', 'nothing answered while teaching');
    const { learning } = service.corpus.runtime;
    const worker = service.corpus.learnWorker;
    await waitUntil(
      'the learn worker to drain',
      () => learning.queue.size === 0 && worker.counters.handled + worker.counters.failed === learning.counters.queued,
    );
    service.store.corpus.invalidateSnapshots();
    service.corpus.runtime.composite.invalidateFindCache();
  };
  const media = () => {
    return service.chat.media();
  };
  const napcatPicture = (name: string, fileId: string, extra: Record<string, string | number> = {}): PeerSegment[] => [
    { type: 'image', data: { file: name, sub_type: 0, url: pictures.url(fileId), file_size: 3000, ...extra } },
  ];

  it('a NapCat that restarted and forgot the picture still gets it, as the same bytes, fetched once', async (t) => {
    const G = 7101;
    const served = pictures.add('NAPCAT-F1');
    const NAME = 'A1B2C3D4E5F60718293A4B5C6D7E8F90.png';
    const before = await connect(BOT, { pictureCache: true });
    await teach(
      before,
      G,
      () => '发个图看看',
      () => napcatPicture(NAME, 'NAPCAT-F1'),
    );
    await waitUntil('the picture in the media cache', () => service.chat.pictures.holds(NAME));
    assert.equal(pictures.downloads.get('NAPCAT-F1'), 1, 'three sightings, one download');
    const files = await readdir(join(dir, 'data', 'media'));
    assert.equal(files.filter((name) => name.endsWith('.pic')).length, 1, 'one file in data/media');

    // NapCat restarts: a new connection whose picture cache is empty.
    await before.close();
    const after = await connect(BOT, { pictureCache: true });
    const asked = await decided(say(after, G, 9, '发个图看看'));
    assert.deepEqual([asked.outcome, asked.texts], ['replied', [`[CQ:image,file=${NAME}]`]]);
    const [sent] = await after.nextSent(1);
    const match = /\[CQ:image,file=base64:\/\/([^,\]]+)\]/.exec(sent?.message ?? '');
    assert.ok(match?.[1], `sent as bytes: ${sent?.message.slice(0, 80)}`);
    assert.ok(Buffer.from(match[1], 'base64').equals(served), 'the same picture arrived');
    await service.chat.repeater.idle();
    const attempts = after.actions.filter((action) => action.action === 'send_group_msg');
    assert.equal(attempts.length, 2, 'by name (refused, retcode 1200), then as bytes');
    assert.equal(attempts[0]?.params.message, `[CQ:image,file=${NAME}]`);
    const counters = media();
    assert.equal(counters.resent_base64, 1);
    assert.ok(counters.hits >= 1);
    assert.equal(counters.media_failures, 0);

    // The console's database page counts it.
    const overview = (await (
      await fetch(`http://127.0.0.1:${port}/chorus/api/db/overview`, { headers: { 'x-chorus-token': WRITE } })
    ).json()) as { data?: { media?: Record<string, number> }; media?: Record<string, number> };
    const shown = overview.data?.media ?? overview.media;
    assert.equal(shown?.files, 1);
    assert.equal(shown?.bytes, served.length);
    assert.equal(shown?.resent_base64, 1);
    t.diagnostic(`media cache after the restart: ${JSON.stringify(shown)}`);
  });

  it("a Lagrange-shaped peer's rotating URLs of one picture learn as one context", async () => {
    const G = 7201;
    pictures.add('LAGRANGE-F2');
    const lagrange = await connect(LAGRANGE_BOT, { format: 'string' });
    // Lagrange's file is the download URL itself, with a new rkey on every sighting.
    const picture = () => {
      const url = pictures.url('LAGRANGE-F2');
      return [{ type: 'image', data: { file: url, url } }] as PeerSegment[];
    };
    await teach(lagrange, G, picture, () => '这图好可爱');
    const stored = '[CQ:image,file=LAGRANGE-F2]';
    const context = await service.store.corpus.findByKeywords(describeText(stored, '', KEYWORDS).keywords);
    assert.deepEqual(
      context?.answers.map((answer) => [answer.keywords, answer.count]),
      [[keywordsOf('这图好可爱'), 3]],
      'three sightings with three rkeys: one context, its answer learned three times',
    );
  });

  it('a picture learned from Lagrange (which cannot send by fileid) arrives as its bytes', async () => {
    const G = 7501;
    const served = pictures.add('LAGRANGE-F4');
    // pictureCache: it resolves only what it delivered, which was the download URL, never the fileid.
    const lagrange = await connect(LAGRANGE_BOT, { format: 'string', pictureCache: true });
    const picture = () => {
      const url = pictures.url('LAGRANGE-F4');
      return [{ type: 'image', data: { file: url, url } }] as PeerSegment[];
    };
    await teach(lagrange, G, () => '来张猫猫图', picture);
    await waitUntil('the picture in the media cache', () => service.chat.pictures.holds('LAGRANGE-F4'));
    const asked = await decided(say(lagrange, G, 9, '来张猫猫图'));
    assert.deepEqual(asked.texts, ['[CQ:image,file=LAGRANGE-F4]'], 'learned by its fileid, not its URL');
    const [sent] = await lagrange.nextSent(1);
    const match = /\[CQ:image,file=base64:\/\/([^,\]]+)\]/.exec(sent?.message ?? '');
    assert.ok(match?.[1] && Buffer.from(match[1], 'base64').equals(served), 'the same picture arrived');
  });

  it('a sticker goes back as a sticker', async () => {
    const G = 7301;
    pictures.add('STICKER-F3');
    const STICKER = '5A5A5A5A5A5A5A5A5A5A5A5A5A5A5A5A.gif';
    const peer = await connect(BOT, { pictureCache: true });
    const sticker = () => napcatPicture(STICKER, 'STICKER-F3', { sub_type: 1, summary: '[动画表情]' });
    await teach(peer, G, () => '来个表情包吧', sticker);
    const asked = await decided(say(peer, G, 9, '来个表情包吧'));
    assert.deepEqual(asked.texts, [`[CQ:image,file=${STICKER},sub_type=1]`], 'stored with its sticker mark');
    const [sent] = await peer.nextSent(1);
    assert.equal(sent?.message, `[CQ:image,file=${STICKER},sub_type=1,summary=&#91;动画表情&#93;]`);
  });

  it('in security mode, a send refused for a picture does not ban the answer', async () => {
    const G = 7401;
    const saved = await fetch(`http://127.0.0.1:${port}/chorus/api/bot-configs/${BOT}`, {
      method: 'PUT',
      headers: { 'x-chorus-token': WRITE, 'content-type': 'application/json' },
      body: JSON.stringify({ security: true }),
    });
    assert.equal(saved.status, 200);
    const peer = await connect(BOT, { pictureCache: true });
    // Never downloadable (the server does not have it): nothing to send instead.
    const NAME = 'DEADBEEFDEADBEEFDEADBEEFDEADBEEF.jpg';
    await teach(
      peer,
      G,
      () => '再来一张图',
      () => napcatPicture(NAME, 'NOT-SERVED'),
    );
    await waitUntil('the failed fetch', () => media().fetch_failed >= 1);
    peer.failAction('send_group_msg', { retcode: 1200, message: 'Error: 文件下载失败', times: 1 });
    const failures = media().media_failures;
    assert.equal((await decided(say(peer, G, 9, '再来一张图'))).outcome, 'replied');
    await waitUntil('the refused send', () => media().media_failures === failures + 1);
    await service.chat.repeater.idle();
    const bannedPictures = async () =>
      ((await service.store.corpus.findByKeywords(keywordsOf('再来一张图')))?.bans ?? []).map((ban) => ban.keywords);
    assert.deepEqual(await bannedPictures(), [], 'not banned');

    // The control: the same send refused for another reason is banned (security mode is on).
    const OTHER = 'CAFEBABECAFEBABECAFEBABECAFEBABE.jpg';
    await teach(
      peer,
      G,
      () => '换一张图吧',
      () => napcatPicture(OTHER, 'NOT-SERVED'),
    );
    peer.failAction('send_group_msg', { retcode: 100, message: 'scripted failure', times: 1 });
    assert.equal((await decided(say(peer, G, 9, '换一张图吧'))).outcome, 'replied');
    await waitUntil('the ban of the refused answer', async () => {
      const other = await service.store.corpus.findByKeywords(keywordsOf('换一张图吧'));
      return (other?.bans.length ?? 0) > 0;
    });
    assert.equal(media().media_failures, failures + 1, 'not counted as a media failure');
    assert.equal(
      (await bannedPictures()).includes(`[CQ:image,file=${NAME}]`),
      false,
      'the picture refused for a media reason is still not banned',
    );
  });
});
