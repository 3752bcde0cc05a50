/**
 * Bringing a corpus over from Pallas-Bot: fixtures in the origin's own formats (its PostgreSQL
 * tables, and mongoexport output of its MongoDB collections with Extended JSON numbers), a few
 * hundred contexts with images as CQ codes, bans and blacklists; imported with the command line,
 * then a running Chorus answers a phrase of the fixture through a OneBot peer.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { startService } from '../../src/app/service.ts';
import { describeText, jiebaTagger, KeywordExtractor } from '../../src/repeater/keywords.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { CHORUS_MAIN, freePort } from '../support/chorus-process.ts';
import { PG_URL, requirePostgres } from '../support/engines.ts';

const run = promisify(execFile);
const KEYWORDS = new KeywordExtractor({ tagger: jiebaTagger() });
const keywordsOf = (text: string): string => describeText(text, text, KEYWORDS).keywords;
const GROUP = 4242;
const PHRASE = '今天的晚饭吃什么好呢';
const ANSWER = '去吃楼下那家面馆';

interface FixtureContext {
  keywords: string;
  count: number;
  time: number;
  answers: { keywords: string; group_id: number; count: number; time: number; messages: string[] }[];
  ban: { keywords: string; group_id: number; reason: string; time: number }[];
}

/** 300 contexts in the origin's shape; the first is the phrase the test asks. */
function fixture(): FixtureContext[] {
  const contexts: FixtureContext[] = [
    {
      keywords: keywordsOf(PHRASE),
      count: 12,
      time: 1_700_000_000,
      answers: [{ keywords: keywordsOf(ANSWER), group_id: GROUP, count: 9, time: 1_700_000_000, messages: [ANSWER] }],
      ban: [],
    },
  ];
  for (let i = 1; i < 300; i++) {
    contexts.push({
      keywords: `旧话题${i} 闲聊`,
      count: 1 + (i % 9),
      time: 1_690_000_000 + i,
      answers: [
        {
          keywords: `旧回答${i}`,
          group_id: GROUP + (i % 4),
          count: 2 + (i % 5),
          time: 1_690_000_100,
          messages: [`旧回答${i}`],
        },
        {
          keywords: `[CQ:image,file=${i}.image]`,
          group_id: GROUP,
          count: 1,
          time: 1_690_000_200,
          messages: [`[CQ:image,file=${i}.image]`],
        },
      ],
      ban: i % 25 === 0 ? [{ keywords: `旧回答${i}`, group_id: 114514, reason: '10001', time: 1_690_000_300 }] : [],
    });
  }
  return contexts;
}

async function asksAndIsAnswered(dataDir: string): Promise<void> {
  const port = await freePort();
  const service = await startService({
    projectDir: dataDir,
    env: {
      CHORUS_PORT: String(port),
      CHORUS_DATA_DIR: dataDir,
      CHORUS_CONSOLE_TOKEN: 'importer-test-console-token',
      CHORUS_REPEATER_COOLDOWN_SEC: '0',
      CHORUS_REPEATER_REPLY_DELAY_SEC: '0-0',
      CHORUS_REPEATER_SPLIT_PROBABILITY: '0',
      CHORUS_REPEATER_ANSWER_THRESHOLD: '3',
      CHORUS_REPEATER_ANSWER_THRESHOLD_WEIGHTS: '0,0,1',
    },
    logDestination: new Writable({ write: (_chunk, _encoding, done) => done() }),
  });
  // Stopped here, not in an after hook: the caller's hook removes the data folder, and a service
  // still writing its files there would make that removal fail.
  try {
    const peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${port}/onebot/v11/ws`, selfId: 30001 });
    try {
      peer.groupMessage({ groupId: GROUP, userId: 77, text: '大家好' });
      peer.groupMessage({ groupId: GROUP, userId: 78, text: PHRASE });
      const [reply] = await peer.nextSent(1, 10_000);
      assert.equal(reply?.message, ANSWER);
    } finally {
      await peer.close().catch(() => undefined);
    }
  } finally {
    await service.stop();
  }
}

async function chorusImport(dataDir: string, args: string[]): Promise<Record<string, number>> {
  const { stdout } = await run(process.execPath, [CHORUS_MAIN, 'corpus', 'import', ...args, '--project-dir', dataDir], {
    env: { ...process.env, CHORUS_DATA_DIR: dataDir },
  });
  return JSON.parse(stdout) as Record<string, number>;
}

describe('importers from Pallas-Bot', () => {
  it('--from pallas-mongo: mongoexport files of context and blacklist', { timeout: 120_000 }, async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'chorus-import-mongo-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    // mongoexport writes one document per line, with Extended JSON for 64-bit numbers and ids.
    const lines = fixture().map((context, i) =>
      JSON.stringify({
        _id: { $oid: randomBytes(12).toString('hex') },
        keywords: context.keywords,
        time: { $numberLong: String(context.time) },
        count: context.count,
        answers: context.answers.map((answer) => ({ ...answer, group_id: { $numberLong: String(answer.group_id) } })),
        ban: context.ban,
        clear_time: i % 2 === 0 ? 0 : { $numberLong: '1690000500' },
      }),
    );
    const contexts = join(dir, 'context.json');
    await writeFile(contexts, `${lines.join('\n')}\n`);
    const blacklist = join(dir, 'blacklist.json');
    const lists = [
      { _id: { $oid: 'a'.repeat(24) }, group_id: GROUP, answers: ['旧回答7'], answers_reserve: ['旧回答8'] },
    ];
    await writeFile(blacklist, JSON.stringify(lists));
    const data = join(dir, 'data');
    const first = await chorusImport(data, ['--from', 'pallas-mongo', contexts, blacklist]);
    assert.deepEqual(
      [first.contexts_read, first.contexts_added, first.bans_added, first.blacklists_merged],
      [300, 300, 11, 1],
    );
    const again = await chorusImport(data, ['--from', 'pallas-mongo', contexts, blacklist]);
    assert.deepEqual([again.contexts_added, again.contexts_unchanged], [0, 300]);
    await asksAndIsAnswered(data);
  });

  it(
    '--from qq-export: a QQ group chat text export learned in order, as if it had just arrived',
    { timeout: 120_000 },
    async (t) => {
      const dir = await mkdtemp(join(tmpdir(), 'chorus-import-qq-'));
      t.after(() => rm(dir, { recursive: true, force: true }));
      const lines = [
        '\uFEFF消息记录（此消息记录为文本格式，不支持重新导入）',
        '',
        '================================================================',
        '消息分组:我的QQ群',
        '================================================================',
        '消息对象:干饭群',
        '================================================================',
        '',
      ];
      let second = 0;
      const stamp = () => {
        second += 7;
        const date = new Date(2024, 0, 1, 12, 0, second);
        const pad = (n: number) => String(n).padStart(2, '0');
        return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${date.getHours()}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
      };
      const say = (who: string, text: string) => lines.push(`${stamp()} ${who}`, text, '');
      for (let round = 0; round < 6; round++) {
        say('小明(123456789)', PHRASE);
        say('小红<xiaohong@example.com>', ANSWER);
        say('路人(55555)', '[图片]');
        say('阿强(66666)', `第${round}轮闲聊\n还有第二行`);
      }
      for (let i = 0; i < 200; i++) say(`成员${i}(${100000 + i})`, `随口说的第${i}句话`);
      const file = join(dir, '干饭群.txt');
      await writeFile(file, lines.join('\r\n'));
      const data = join(dir, 'data');
      const report = await chorusImport(data, ['--from', 'qq-export', file, '--group', String(GROUP)]);
      assert.equal(report.skipped_media_only, 6);
      assert.equal(report.messages, 18 + 200);
      assert.ok((report.pairs_learned ?? 0) > 200);
      await asksAndIsAnswered(data);
      const missingGroup = await chorusImport(data, ['--from', 'qq-export', file]).catch(
        (error: { stderr: string }) => error,
      );
      assert.match((missingGroup as { stderr: string }).stderr, /needs --group/);
    },
  );

  it("--from learning-chat: nonebot-plugin-learning-chat's SQLite database", { timeout: 120_000 }, async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'chorus-import-lc-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'learning_chat.db');
    // The tables as that plugin's ORM (Tortoise) creates them.
    const db = new BetterSqlite3(file);
    db.exec(`
      CREATE TABLE "context" ("id" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, "keywords" TEXT NOT NULL,
        "time" INT NOT NULL, "count" INT NOT NULL DEFAULT 1);
      CREATE TABLE "answer" ("id" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, "keywords" TEXT NOT NULL,
        "group_id" INT NOT NULL, "count" INT NOT NULL DEFAULT 1, "time" INT NOT NULL, "messages" JSON NOT NULL,
        "context_id" INT REFERENCES "context" ("id") ON DELETE CASCADE);
      CREATE TABLE "blacklist" ("id" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, "keywords" TEXT NOT NULL,
        "global_ban" INT NOT NULL DEFAULT 0, "ban_group_id" JSON NOT NULL);
    `);
    const addContext = db.prepare('INSERT INTO context (keywords, time, count) VALUES (?, ?, ?)');
    const addAnswer = db.prepare(
      'INSERT INTO answer (keywords, group_id, count, time, messages, context_id) VALUES (?, ?, ?, ?, ?, ?)',
    );
    db.transaction(() => {
      for (const context of fixture()) {
        const id = addContext.run(context.keywords, context.time, context.count).lastInsertRowid;
        for (const answer of context.answers) {
          addAnswer.run(
            answer.keywords,
            answer.group_id,
            answer.count,
            answer.time,
            JSON.stringify(answer.messages),
            id,
          );
        }
      }
    })();
    db.prepare('INSERT INTO blacklist (keywords, global_ban, ban_group_id) VALUES (?, ?, ?)').run('旧回答7', 1, '[]');
    db.prepare('INSERT INTO blacklist (keywords, global_ban, ban_group_id) VALUES (?, ?, ?)').run(
      '旧回答8',
      0,
      `[${GROUP}, ${GROUP + 1}]`,
    );
    db.close();
    const data = join(dir, 'data');
    const report = await chorusImport(data, ['--from', 'learning-chat', file]);
    assert.deepEqual([report.contexts_read, report.contexts_added, report.blacklists_merged], [300, 300, 3]);
    await asksAndIsAnswered(data);
  });

  it("--from pallas-pg: the origin's PostgreSQL tables", { timeout: 120_000 }, async (t) => {
    if (!requirePostgres(t)) return;
    const schema = `pallas_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    t.after(async () => {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    });
    // The origin's schema, as its repository creates it.
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(`SET search_path TO ${schema}`);
    await admin.query(`
      CREATE TABLE context (id bigserial PRIMARY KEY, keywords text NOT NULL, keywords_hash text NOT NULL UNIQUE,
        time bigint NOT NULL DEFAULT 0, trigger_count int NOT NULL DEFAULT 1, clear_time bigint NOT NULL DEFAULT 0);
      CREATE TABLE context_answer (id bigserial PRIMARY KEY, context_id bigint REFERENCES context(id) ON DELETE CASCADE,
        keywords text, keywords_hash text, group_id bigint, count int DEFAULT 1, time bigint DEFAULT 0,
        CONSTRAINT uq_context_answer_ctx_group_kw UNIQUE (context_id, group_id, keywords_hash));
      CREATE TABLE context_answer_message (id bigserial PRIMARY KEY,
        answer_id bigint REFERENCES context_answer(id) ON DELETE CASCADE, message text NOT NULL);
      CREATE TABLE context_ban (id bigserial PRIMARY KEY, context_id bigint REFERENCES context(id) ON DELETE CASCADE,
        keywords text, group_id bigint, reason text DEFAULT '', time bigint DEFAULT 0);
      CREATE TABLE blacklist (id bigserial PRIMARY KEY, group_id bigint UNIQUE, answers jsonb, answers_reserve jsonb);
    `);
    for (const context of fixture()) {
      const { rows } = await admin.query<{ id: string }>(
        'INSERT INTO context (keywords, keywords_hash, time, trigger_count) VALUES ($1, md5($1), $2, $3) RETURNING id',
        [context.keywords, context.time, context.count],
      );
      const contextId = rows[0]?.id;
      for (const answer of context.answers) {
        const inserted = await admin.query<{ id: string }>(
          'INSERT INTO context_answer (context_id, keywords, keywords_hash, group_id, count, time) VALUES ($1, $2, md5($2), $3, $4, $5) RETURNING id',
          [contextId, answer.keywords, answer.group_id, answer.count, answer.time],
        );
        for (const message of answer.messages) {
          await admin.query('INSERT INTO context_answer_message (answer_id, message) VALUES ($1, $2)', [
            inserted.rows[0]?.id,
            message,
          ]);
        }
      }
      for (const ban of context.ban) {
        await admin.query(
          'INSERT INTO context_ban (context_id, keywords, group_id, reason, time) VALUES ($1, $2, $3, $4, $5)',
          [contextId, ban.keywords, ban.group_id, ban.reason, ban.time],
        );
      }
    }
    await admin.query(`INSERT INTO blacklist (group_id, answers, answers_reserve) VALUES ($1, '["旧回答7"]', '[]')`, [
      GROUP,
    ]);
    const dir = await mkdtemp(join(tmpdir(), 'chorus-import-pg-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const url = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const report = await chorusImport(join(dir, 'data'), ['--from', 'pallas-pg', url]);
    assert.deepEqual(
      [report.contexts_read, report.contexts_added, report.bans_added, report.blacklists_merged],
      [300, 300, 11, 1],
    );
    await asksAndIsAnswered(join(dir, 'data'));
  });
});
