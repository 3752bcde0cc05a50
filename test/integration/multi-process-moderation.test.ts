/**
 * Two Chorus services on one PostgreSQL schema, as two processes of a scaled-out deployment: a ban
 * made in A's console silences the answer in B within about a second, although B had the context
 * cached, and an undo in A makes B answer again (the change feed, src/store/change-feed.ts). The
 * bot account talks to B over a real WebSocket; A's console is called over real HTTP.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { it } from 'node:test';
import pg from 'pg';
import { startService, type RunningService } from '../../src/app/service.ts';
import { describeText, jiebaTagger, KeywordExtractor } from '../../src/repeater/keywords.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { freePort } from '../support/chorus-process.ts';
import { PG_URL, requirePostgres } from '../support/engines.ts';

const KEYWORDS = new KeywordExtractor({ tagger: jiebaTagger() });
const keywordsOf = (text: string): string => describeText(text, text, KEYWORDS).keywords;
const PHRASE = '今天的晚饭吃什么好呢';
const ANSWER = '去吃楼下那家面馆';
const GROUPS = [5101, 5102, 5103];
const WRITE = 'multi-process-write-token';
/** The feed polls once a second; a little more for the poll itself. */
const PROPAGATION_MS = 1_600;

const quiet = () => new Writable({ write: (_chunk, _encoding, done) => done() });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it(
  'a ban and its undo in one process take effect in another on the same PostgreSQL',
  { timeout: 90_000 },
  async (t) => {
    if (!requirePostgres(t)) return;
    const schema = `chorus_mp_${randomBytes(5).toString('hex')}`;
    // Undone last first: the services stop before their schema is dropped.
    const cleanups: (() => Promise<unknown>)[] = [];
    t.after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    });
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    cleanups.push(async () => {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    });
    const url = new URL(PG_URL);
    url.searchParams.set('options', `-c search_path=${schema}`);

    const start = async (name: string): Promise<{ service: RunningService; port: number }> => {
      const dir = await mkdtemp(join(tmpdir(), `chorus-mp-${name}-`));
      const port = await freePort();
      const service = await startService({
        projectDir: dir,
        env: {
          CHORUS_PORT: String(port),
          CHORUS_DATA_DIR: dir,
          CHORUS_DATABASE_URL: url.toString(),
          CHORUS_CONSOLE_TOKEN: `multi-process-read-${name}`,
          CHORUS_CONSOLE_WRITE_TOKEN: WRITE,
          CHORUS_REPEATER_COOLDOWN_SEC: '0',
          CHORUS_REPEATER_REPLY_DELAY_SEC: '0-0',
          CHORUS_REPEATER_SPLIT_PROBABILITY: '0',
          CHORUS_REPEATER_ANSWER_THRESHOLD: '3',
          CHORUS_REPEATER_ANSWER_THRESHOLD_WEIGHTS: '0,0,1',
        },
        logDestination: quiet(),
      });
      cleanups.push(async () => {
        await service.stop();
        await rm(dir, { recursive: true, force: true });
      });
      return { service, port };
    };
    const a = await start('a');
    const b = await start('b');

    // The pair, learned well in every group (through A's store: the same database).
    for (const groupId of GROUPS) {
      for (let i = 0; i < 4; i++) {
        await a.service.store.corpus.learnAnswer({
          keywords: keywordsOf(PHRASE),
          groupId,
          answerKeywords: keywordsOf(ANSWER),
          answerTime: 1_700_000_000 + i,
          message: ANSWER,
          appendOnExisting: true,
        });
      }
    }

    const peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${b.port}/onebot/v11/ws`, selfId: 30001 });
    cleanups.push(() => peer.close().catch(() => undefined));
    const ask = (groupId: number) => {
      peer.groupMessage({ groupId, userId: 77, text: '大家好' });
      peer.groupMessage({ groupId, userId: 78, text: PHRASE });
    };
    // B answers, and now holds the context in its caches.
    ask(GROUPS[0] as number);
    assert.equal((await peer.nextSent(1, 10_000))[0]?.message, ANSWER);

    const console = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`http://127.0.0.1:${a.port}/chorus/api${path}`, {
        method,
        headers: { 'x-chorus-token': WRITE, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      assert.equal(response.status, 200, `${method} ${path}`);
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies checked field by field
      return ((await response.json()) as { data: any }).data;
    };
    const found = await console('GET', `/corpus/search?q=${encodeURIComponent(ANSWER)}&in=answer`);
    const answer = found.items[0].answers.find((item: { group_id: number }) => item.group_id === GROUPS[1]);
    const receivedByB = async () =>
      (
        (await (await fetch(`http://127.0.0.1:${b.port}/chorus/api/health`)).json()) as {
          change_feed: { received: number };
        }
      ).change_feed.received;
    const before = await receivedByB();
    const banStarted = performance.now();
    const banned = await console('POST', `/corpus/answers/${answer.id}/ban`, { scope: 'everywhere', reason: 'test' });
    // The ban reaches B through NOTIFY within a second (docs/rules.md#fleet-feed), not at the next poll.
    for (;;) {
      if ((await receivedByB()) > before) break;
      assert.ok(performance.now() - banStarted < 1_000, 'B applied the ban within a second');
      await sleep(10);
    }
    ask(GROUPS[1] as number);
    await assert.rejects(peer.nextSent(1, 2_500), 'B no longer answers once A banned the answer everywhere');

    await console('POST', `/corpus/moderation/${banned.entry.id}/undo`);
    await sleep(PROPAGATION_MS);
    ask(GROUPS[2] as number);
    assert.equal((await peer.nextSent(1, 10_000))[0]?.message, ANSWER, 'the undo reached B too');

    const health = (await (await fetch(`http://127.0.0.1:${b.port}/chorus/api/health`)).json()) as {
      change_feed: { received: number };
    };
    assert.ok(health.change_feed.received >= 2, `B applied A's changes: ${JSON.stringify(health.change_feed)}`);
  },
);
