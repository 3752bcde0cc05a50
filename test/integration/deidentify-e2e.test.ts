/**
 * Nothing identifying leaves a deployment, end to end on loopback: bot A (wired as `chorus serve`
 * wires it, test/unit/community/support.ts) enrolls with a real hub through a recording proxy and
 * learns messages holding mentions, quoted replies, images, faces, a poke, a contact card, a QQ
 * number in text, phone numbers written with spaces or dashes, and a long paragraph. Every request
 * body that crossed the proxy and every row of the hub's database (read with the driver) hold no
 * `[CQ:` and no number of five or more digits other than one digit repeated, its digits counted
 * across single spaces, dashes and dots (`666 666` is kept). A foreign client posting raw CQ text
 * and spaced numbers straight to the hub is cleaned too. The hub runs on SQLite and on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it, type TestContext } from 'node:test';
import pg from 'pg';
import BetterSqlite3 from 'better-sqlite3';
import { startHub, type RunningHub } from '../../src/hub/start.ts';
import { freshSchemaName, PG_URL, requirePostgres } from '../support/engines.ts';
import { waitFor } from '../support/corpus-fakes.ts';
import { deployment, learn } from '../unit/community/support.ts';

const GROUP = 987654321;
/** Five or more digits, a single space, dash or dot allowed between two of them (`138 1234 5678`). */
const USER_NUMBER = /\d(?:[ .-]?\d){4,}/g;

/** Numbers of 5+ digits, however written, that are not one digit repeated. */
function numbersIn(text: string): string[] {
  return (text.match(USER_NUMBER) ?? []).filter((run) => !/^(\d)\1*$/.test(run.replace(/[ .-]/g, '')));
}

/** Every string in a JSON value, but the deployment's own random id. */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => (key === 'deployment_id' ? [] : stringsOf(item)));
  }
  return [];
}

/** An HTTP proxy to `target` that keeps every request body (the Host header passes unchanged). */
async function recordingProxy(t: TestContext, target: string): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = [];
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      bodies.push(`${req.method} ${req.url} ${body.toString('utf8')}`);
      const forward = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.writeHead(502).end());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies };
}

/** Every row of every hub table, read with the engine's own driver. */
type HubRows = () => Promise<[string, Record<string, unknown>[]][]>;

async function hubOn(t: TestContext, kind: 'sqlite' | 'postgres'): Promise<{ hub: RunningHub; rows: HubRows }> {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-deid-hub-'));
  if (kind === 'sqlite') {
    const hub = await startHub({ host: '127.0.0.1', port: 0, dataDir: dir });
    t.after(async () => {
      await hub.close();
      await rm(dir, { recursive: true, force: true, maxRetries: 5 });
    });
    const rows: HubRows = async () => {
      const db = new BetterSqlite3(join(dir, 'hub.db'), { readonly: true, fileMustExist: true });
      try {
        const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
        return tables.map(({ name }) => [
          name,
          db.prepare(`SELECT * FROM "${name}"`).all() as Record<string, unknown>[],
        ]);
      } finally {
        db.close();
      }
    };
    return { hub, rows };
  }
  const schema = freshSchemaName();
  const hub = await startHub({ host: '127.0.0.1', port: 0, dataDir: dir, databaseUrl: PG_URL, schema });
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  t.after(async () => {
    await hub.close();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
    await rm(dir, { recursive: true, force: true, maxRetries: 5 });
  });
  // Only the text columns: node-pg returns bigint (times, counts) as strings.
  const rows: HubRows = async () => {
    const columns = await client.query<{ table: string; column: string }>(
      `SELECT table_name AS table, column_name AS column FROM information_schema.columns
       WHERE table_schema = $1 AND data_type IN ('text', 'character varying', 'json', 'jsonb')`,
      [schema],
    );
    const byTable = new Map<string, string[]>();
    for (const { table, column } of columns.rows) byTable.set(table, [...(byTable.get(table) ?? []), column]);
    const all: [string, Record<string, unknown>[]][] = [];
    for (const [table, names] of byTable) {
      const list = names.map((name) => `"${name}"::text AS "${name}"`).join(', ');
      all.push([table, (await client.query(`SELECT ${list} FROM ${schema}."${table}"`)).rows]);
    }
    return all;
  };
  return { hub, rows };
}

for (const kind of ['sqlite', 'postgres'] as const) {
  it(`no group or user number and no CQ segment reaches the hub, from the bot or a foreign client (${kind} hub)`, async (t) => {
    if (kind === 'postgres' && !requirePostgres(t)) return;
    const { hub, rows: hubRows } = await hubOn(t, kind);
    const proxy = await recordingProxy(t, hub.url);
    const a = await deployment(t, {
      CHORUS_CORPUS_COMMUNITY_ENABLED: 'true',
      CHORUS_CORPUS_AUTO_ENROLL: 'true',
      CHORUS_COMMUNITY_STATS_ENDPOINT: `${proxy.url}/v1/heartbeat`,
    });
    await waitFor(() => a.community.enrollment() !== null, 5000);
    assert.ok(a.community.enrollment()?.apiBase.startsWith(proxy.url), 'the bot talks to the hub through the proxy');

    const now = Math.floor(Date.now() / 1000);
    // [trigger keywords, answer keywords, the raw answer message]
    const lessons: [string, string, string][] = [
      ['今天 天气', '挺好', '挺好的[CQ:at,qq=55667788]'],
      ['今天 天气', '下雨', '[CQ:reply,id=-1234567]下雨了'],
      ['今天 天气', '看图', '看图[CQ:image,file=abc.jpg,url=https://gchat.qpic.cn/gchatpic_new/123456789/0]'],
      ['今天 天气', '哈哈', '哈哈[CQ:face,id=178]'],
      ['今天 天气', '戳', '[CQ:poke,qq=23456789]'],
      ['今天 天气', '名片', '[CQ:json,data={"app":"com.tencent.contact"&#44;"uin":34567890}]'],
      ['今天 天气', '加我', '加我 45678901 私聊'],
      ['今天 天气', '长文', `很长的一段话${'真的'.repeat(60)}`],
      ['[CQ:at,qq=56789012] 你好', '你好', '你好'],
      ['群号 67890123', '收到', '收到'],
      ['666666', '好耶', '好耶'],
      ['今天 天气', '电话', '电话 138 1234 5678'],
      ['今天 天气', '号码', '139-8765-4321'],
      ['138 1234 5678', '好的', '好的'],
      ['今天 天气', '厉害 666 666', '厉害 666 666'],
    ];
    for (const [keywords, answer, raw] of lessons) learn(a, GROUP, keywords, answer, now, raw);
    // The learning queue may exclude an event by its own rules; every queued one must be written.
    await waitFor(() => a.learnWorker.counters.handled >= a.runtime.learning.counters.queued, 5000);
    assert.ok(a.runtime.learning.counters.queued >= lessons.length - 1);
    await waitFor(() => (a.community.counters().community_mirror?.accepted ?? 0) >= 3, 5000);
    assert.equal(await a.community.parts.heartbeat.beat(), 'sent');

    // A foreign client sends raw text straight to the hub: the hub cleans it all the same.
    const token = a.community.enrollment()?.token ?? '';
    const foreign = await fetch(`${hub.apiBase}/contribute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        op: 'insert',
        context: {
          keywords: '外来 客户端',
          answers: [
            {
              keywords: '原样',
              count: 3,
              messages: [
                '原样[CQ:at,qq=78901234]',
                '[CQ:node,user_id=89012345]',
                'QQ 90123456',
                '打 138 1234 5678',
                '139-8765-4321',
              ],
            },
            { keywords: '139-8765-4321', count: 2, messages: ['y'] },
            { keywords: '[CQ:share,url=https://qm.qq.com/?uin=11223344]', count: 2, messages: ['x'] },
          ],
        },
      }),
    });
    assert.equal(foreign.status, 200);

    // Times, counts, hashes, tokens and deployment ids are the hub's own, and so is its migration
    // log; the other text columns carry what bots sent.
    const texts: string[] = [];
    for (const [name, rows] of await hubRows()) {
      if (/migration|address_rate/.test(name)) continue;
      for (const row of rows) {
        for (const [column, value] of Object.entries(row)) {
          // A cohort is a deployment id too (docs/hub.md#agreement).
          if (typeof value === 'string' && !/hash|token|deployment_id|address|cohort/.test(column))
            texts.push(`${name}.${column}=${value}`);
        }
      }
    }
    const corpusText = texts.join('\n');
    assert.deepEqual(numbersIn(corpusText), [], 'no number stored');
    assert.doesNotMatch(corpusText, /\[CQ:/i, 'no CQ segment stored');
    assert.match(corpusText, /挺好的/, 'the mention was cut, the phrase kept');
    assert.match(corpusText, /原样/, 'the foreign body was cleaned, not refused');
    assert.match(corpusText, /厉害 666 666/, 'one digit repeated is kept, spaced or not');

    const sent = proxy.bodies.filter((line) => line.startsWith('POST'));
    assert.ok(sent.length >= 3, `requests captured: ${sent.length}`);
    for (const line of sent) {
      assert.doesNotMatch(line, /\[CQ:/i, line);
      // Times and counts are numbers; every text the bot sent is a string.
      const json = line.slice(line.indexOf(' {') + 1);
      assert.deepEqual(numbersIn(stringsOf(JSON.parse(json)).join('\n')), [], line);
    }
    const withheld = a.mirrorCounters.withheld;
    assert.ok(
      (withheld.withheld_number ?? 0) >= 2 && (withheld.withheld_cq_keywords ?? 0) >= 1,
      JSON.stringify(withheld),
    );
    const health = (await (await fetch(`${hub.url}/health`)).json()) as { withheld: Record<string, number> };
    assert.ok(
      (health.withheld.withheld_number ?? 0) >= 1 && (health.withheld.withheld_cq_keywords ?? 0) >= 1,
      JSON.stringify(health),
    );
  });
}
