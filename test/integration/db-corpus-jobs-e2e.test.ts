/**
 * The portable corpus file from the console, end to end: a real `chorus serve` (SQLite), the
 * console over real HTTP, jobs followed through their server-sent-event stream, and a scripted
 * OneBot peer over a real WebSocket. A file uploaded and imported makes the running bot answer a
 * phrase of it at once (a miss asked before is not kept); a dry run and a second import change
 * nothing; an export downloaded holds what was imported, and an anonymised one no group but 0.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import type { Context } from '../../src/domain/corpus.ts';
import { exportCorpus } from '../../src/ops/corpus-file/index.ts';
import { describeText, jiebaTagger, KeywordExtractor } from '../../src/repeater/keywords.ts';
import { openStore } from '../../src/store/open-store.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { freePort, runChorus } from '../support/chorus-process.ts';
import { consoleApi, Conversation, EAGER_REPEATER } from '../support/console-conversation.ts';
import { DEFAULT_REPLY } from '../support/engines.ts';
import { SseClient } from '../support/sse-client.ts';

const TOKEN = 'corpus-jobs-e2e-console-token';
const GROUP = 7003;
const PHRASE = '今天的晚饭吃什么好呢';
const ANSWER = '去吃楼下那家面馆';
const KEYWORDS = new KeywordExtractor({ tagger: jiebaTagger() });
const keywordsOf = (text: string): string => describeText(text, text, KEYWORDS).keywords;

function corpus(): Context[] {
  const contexts: Context[] = [
    {
      keywords: keywordsOf(PHRASE),
      time: 1_700_000_000,
      triggerCount: 12,
      clearTime: 0,
      answers: [{ keywords: keywordsOf(ANSWER), groupId: GROUP, count: 9, time: 1_700_000_000, messages: [ANSWER] }],
      bans: [],
    },
  ];
  for (let i = 1; i < 300; i++)
    contexts.push({
      keywords: `旧话题${i} 闲聊`,
      time: 1_690_000_000 + i,
      triggerCount: 1 + (i % 9),
      clearTime: 0,
      answers: [
        {
          keywords: `旧回答${i}`,
          groupId: GROUP + (i % 4),
          count: 2 + (i % 5),
          time: 1_690_000_100,
          messages: [`旧回答${i}`],
        },
        {
          keywords: `[CQ:image,file=${i}.image]`,
          groupId: GROUP,
          count: 1,
          time: 1_690_000_200,
          messages: [`[CQ:image,file=${i}.image]`],
        },
      ],
      bans: i % 25 === 0 ? [{ keywords: `旧回答${i}`, groupId: 114514, reason: '10001', time: 1_690_000_300 }] : [],
    });
  return contexts;
}

interface Line {
  keywords: string;
  answers: { group_id: number; count: number; messages: string[] }[];
  bans: { group_id: number }[];
}

const linesOf = (file: Buffer): Line[] =>
  gunzipSync(file)
    .toString('utf8')
    .split('\n')
    .filter((line) => line !== '')
    .slice(1)
    .map((line) => JSON.parse(line) as Line);

it(
  'export and import from the console as jobs, with upload, download and progress',
  { timeout: 180_000 },
  async (t) => {
    const root = await mkdtemp(join(tmpdir(), 'chorus-corpus-jobs-e2e-'));
    t.after(() => rm(root, { recursive: true, force: true }));
    // The file to import, written by the exporter from a store holding the corpus above.
    const sourceDir = join(root, 'source');
    const source = await openStore({ databaseUrl: '', dataDir: sourceDir, poolMax: 1, reply: DEFAULT_REPLY });
    await source.corpus.importContexts(corpus());
    const file = join(root, 'corpus.jsonl.gz');
    await exportCorpus(source.corpus, file, { generator: 'test', nowSec: 1_700_000_000 });
    await source.close();
    const upload = await readFile(file);

    const port = await freePort();
    // A miss is remembered for ten minutes: only the import dropping it lets the bot answer soon.
    const chorus = runChorus(['serve', '--project-dir', join(root, 'bot')], {
      ...EAGER_REPEATER,
      CHORUS_REPEATER_BUNDLE_NEGATIVE_CACHE_SEC: '600',
      CHORUS_PORT: String(port),
      CHORUS_CONSOLE_TOKEN: TOKEN,
    });
    t.after(async () => {
      chorus.child.kill('SIGTERM');
      await chorus.exited;
    });
    await chorus.waitFor(/console listening at/);
    const base = `http://127.0.0.1:${port}/chorus`;
    const api = consoleApi(base, TOKEN);
    const talk = new Conversation(
      await OneBotPeer.connect({ url: `ws://127.0.0.1:${port}/onebot/v11/ws`, selfId: 30003 }),
      GROUP,
    );
    t.after(() => talk.peer.close().catch(() => undefined));
    // Asked before the import: a miss, which the bot keeps in its negative caches (default length).
    assert.deepEqual(await talk.ask(PHRASE, 1500), []);

    const post = (query: string, body: Buffer | string, type = 'application/gzip') =>
      fetch(`${base}/api/db/corpus/import${query}`, {
        method: 'POST',
        headers: { 'x-chorus-token': TOKEN, 'content-type': type },
        body,
      });
    /** Follows a job's stream to its end; answers the last event. */
    const follow = async (jobId: string) => {
      const stream = SseClient.open(`${base}/api/db/backup/jobs/${jobId}/stream`, { 'x-chorus-token': TOKEN });
      const events = await stream.untilEnd(60_000);
      assert.equal(stream.status, 200);
      const last = events.at(-1)?.data ?? {};
      return { events, last, result: (last.result ?? {}) as Record<string, number> };
    };

    const dry = await post('?dry_run=true', upload);
    assert.equal(dry.status, 200);
    const dryJob = (await dry.json()) as { data: { job_id: string; action: string } };
    assert.equal(dryJob.data.action, 'corpus-import-dry-run');
    const dryRun = await follow(dryJob.data.job_id);
    assert.equal(dryRun.last.type, 'complete', JSON.stringify(dryRun.last));
    assert.equal(dryRun.result.contexts_added, 300);

    const imported = await post('', upload);
    const importJob = (await imported.json()) as { data: { job_id: string } };
    const first = await follow(importJob.data.job_id);
    assert.equal(first.last.type, 'complete', JSON.stringify(first.last));
    assert.ok(
      first.events.some((event) => event.data.type === 'progress'),
      'progress events on the stream',
    );
    // The dry run wrote nothing: the import adds every context.
    assert.deepEqual(
      [first.result.contexts_read, first.result.contexts_added, first.result.bans_added],
      [300, 300, 11],
    );
    // The running bot answers at once: the import dropped its cached miss.
    assert.ok(await talk.answersOnce(PHRASE, ANSWER), 'the first ask after the import is answered');
    const again = await follow(((await (await post('', upload)).json()) as { data: { job_id: string } }).data.job_id);
    assert.deepEqual([again.result.contexts_added, again.result.contexts_unchanged], [0, 300]);

    // Export, plain and anonymised, and download both.
    const exported = async (body: object) => {
      const started = await api.call<{ job_id: string }>('POST', '/db/corpus/export', body);
      assert.equal(started.status, 200, started.detail);
      const job = await follow(started.data.job_id);
      assert.equal(job.last.type, 'complete', JSON.stringify(job.last));
      const name = (job.last.result as { name: string }).name;
      const download = await fetch(`${base}/api/db/corpus/export/download?name=${encodeURIComponent(name)}`, {
        headers: { 'x-chorus-token': TOKEN },
      });
      assert.equal(download.status, 200);
      assert.match(download.headers.get('content-disposition') ?? '', new RegExp(name.replaceAll('.', '\\.')));
      return linesOf(Buffer.from(await download.arrayBuffer()));
    };
    const plain = await exported({});
    const byKeywords = new Map(plain.map((line) => [line.keywords, line]));
    for (const line of linesOf(upload)) assert.deepEqual(byKeywords.get(line.keywords), line, line.keywords);
    const anonymous = await exported({ anonymise: true });
    assert.ok(anonymous.length >= 300);
    for (const line of anonymous) {
      for (const answer of line.answers) assert.equal(answer.group_id, 0);
      for (const ban of line.bans) assert.equal(ban.group_id, 0);
    }

    // Bad requests: a file that is not gzip fails its job naming why; names outside the folder.
    const garbage = await follow(
      ((await (await post('', Buffer.from('not a corpus file at all'))).json()) as { data: { job_id: string } }).data
        .job_id,
    );
    assert.equal(garbage.last.type, 'error');
    assert.match(String(garbage.last.error ?? garbage.last.message), /not a gzip file/);
    const json = await post('', JSON.stringify({ corpus: [] }), 'application/json');
    assert.equal(json.status, 400);
    assert.match(((await json.json()) as { detail: string }).detail, /body/);
    const empty = await post('', Buffer.alloc(0));
    assert.equal(empty.status, 400);
    for (const name of ['../chorus.db', 'chorus-corpus-20260101-000000-abcdef.jsonl.gz/../../x', '/etc/passwd']) {
      const download = await fetch(`${base}/api/db/corpus/export/download?name=${encodeURIComponent(name)}`, {
        headers: { 'x-chorus-token': TOKEN },
      });
      assert.equal(download.status, 400, name);
    }
    const missing = await fetch(
      `${base}/api/db/corpus/export/download?name=chorus-corpus-20260101-000000-abcdef.jsonl.gz`,
      { headers: { 'x-chorus-token': TOKEN } },
    );
    assert.equal(missing.status, 404);
    const badGroups = await api.call('POST', '/db/corpus/export', { groups: ['x'] });
    assert.equal(badGroups.status, 400);
    assert.match(badGroups.detail, /body\.groups/);
  },
);
