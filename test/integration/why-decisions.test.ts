/**
 * The Why page's routes over real HTTP on SQLite and PostgreSQL (docs/repeater.md#why): a real
 * service, scripted OneBot peers over real WebSockets. Decisions are kept with the one cause that
 * decided them and its figures (the count against the threshold drawn, no context, cool-down),
 * the message text and the sender; a message two accounts received is one row; text search and
 * paging; group names from the accounts' group lists; everything survives a restart; "try a
 * sentence" answers what the bot would do and why and changes nothing; bad input is a 400 naming
 * the field.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, it, type TestContext } from 'node:test';
import pg from 'pg';
import { startService, type RunningService } from '../../src/app/service.ts';
import type { RepeaterDecision } from '../../src/repeater/index.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { freePort } from '../support/chorus-process.ts';
import { consoleApi, EAGER_REPEATER, until, type Api } from '../support/console-conversation.ts';
import { freshSchemaName, PG_URL, requirePostgres } from '../support/engines.ts';

const TOKEN = 'why-decisions-token';
const GROUP = 5301;
const [BOT_A, BOT_B] = [52001, 52002];
const Q = '下周去海边旅游吗';
const A = '好啊记得带防晒';

interface View {
  id: number | null;
  group_id: number;
  group_name: string | null;
  self_id: number;
  message_id: number;
  sender_name: string;
  raw_message: string;
  outcome: string;
  reason: string;
  cause: { code: string; params?: Record<string, string | number> };
}
interface Page {
  decisions: View[];
  next_before: number | null;
}

/** A database for the service: SQLite in the project folder, or a fresh PostgreSQL schema. */
async function databaseEnv(t: TestContext, engine: 'sqlite' | 'postgres'): Promise<Record<string, string> | null> {
  if (engine === 'sqlite') return {};
  if (!requirePostgres(t)) return null;
  const schema = freshSchemaName();
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${schema}"`);
  t.after(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { CHORUS_DATABASE_URL: url.toString() };
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(engine, () => {
    it(
      'keeps each decision with its cause, finds it by text, pages, survives a restart; try changes nothing',
      {
        timeout: 240_000,
      },
      async (t) => {
        const dbEnv = await databaseEnv(t, engine);
        if (!dbEnv) return;
        const dir = await mkdtemp(join(tmpdir(), 'chorus-why-decisions-'));
        t.after(() => rm(dir, { recursive: true, force: true }));
        const port = await freePort();
        const decisions: RepeaterDecision[] = [];
        const start = () =>
          startService({
            projectDir: dir,
            env: { CHORUS_PORT: String(port), CHORUS_CONSOLE_TOKEN: TOKEN, ...EAGER_REPEATER, ...dbEnv },
            logDestination: new Writable({ write: (_c, _e, done) => done() }),
            onDecision: (decision) => decisions.push(decision),
          });
        let service: RunningService = await start();
        const peers: OneBotPeer[] = [];
        t.after(async () => {
          for (const peer of peers) await peer.close().catch(() => undefined);
          await service.stop().catch(() => undefined);
        });
        const connect = async (selfId: number, firstMessageId: number) => {
          const peer = await OneBotPeer.connect({
            url: `ws://127.0.0.1:${port}/onebot/v11/ws`,
            selfId,
            firstMessageId,
          });
          peer.groups = [{ group_id: GROUP, group_name: '海边旅游群', member_count: 40 }];
          peers.push(peer);
          return peer;
        };
        const api: Api = consoleApi(`http://127.0.0.1:${port}/chorus`, TOKEN);
        const peerA = await connect(BOT_A, 1);
        let second = Math.floor(Date.now() / 1000) - 40_000;
        const say = (userId: number, text: string, nickname = `member${userId}`) =>
          peerA.groupMessage({ groupId: GROUP, userId, text, time: ++second, nickname });
        const decided = (messageId: number) =>
          until(`the decision on ${messageId}`, async () =>
            decisions.find((d) => d.selfId === BOT_A && d.messageId === messageId),
          );
        const page = async (query: string): Promise<Page> => {
          const answer = await api.call<Page>('GET', `/repeater/decisions?${query}`);
          assert.equal(answer.status, 200, answer.detail);
          return answer.data;
        };

        // Taught once: the answer is known, seen 1 time, and the threshold drawn is 2 (3, one
        // lower for a message with two keywords; weights 0,0,1 always draw the top).
        await decided(say(11, Q, '小林'));
        await decided(say(12, A, '阿杰'));
        await decided(say(13, '今天天气真不错啊朋友们'));
        const asked = await decided(say(14, Q, '老王'));
        assert.equal(asked.reason, 'no-candidate');
        assert.deepEqual(asked.cause, {
          code: 'below-threshold',
          params: { answer: A, count: 1, threshold: 2, others: 0 },
        });
        const unknown = await decided(say(15, '有人知道火星上能种土豆吗'));
        assert.equal(unknown.reason, 'no-context');
        assert.equal(unknown.cause?.code, 'no-context');

        // Kept in the database with the message, the sender and the group's name; newest first.
        const byText = await page(`group_id=${GROUP}&q=${encodeURIComponent('海边旅游')}`);
        assert.deepEqual(
          byText.decisions.map((d) => [d.sender_name, d.raw_message, d.reason]),
          [
            ['老王', Q, 'no-candidate'],
            ['小林', Q, 'no-context'],
          ],
        );
        const row = byText.decisions[0] as View;
        assert.deepEqual(row.cause, asked.cause);
        assert.equal(row.group_name, '海边旅游群');
        assert.equal(row.self_id, BOT_A);
        assert.equal((await page(`q=${encodeURIComponent('火星')}`)).decisions[0]?.cause.code, 'no-context');

        // One row per message even when two accounts received it.
        const peerB = await connect(BOT_B, 5000);
        const shared = '两个号都在群里能看到这句话吗';
        const time = ++second;
        const idA = peerA.groupMessage({ groupId: GROUP, userId: 16, text: shared, time, nickname: '双号' });
        await decided(idA);
        peerB.groupMessage({ groupId: GROUP, userId: 16, text: shared, time, nickname: '双号' });
        await until('the second account decided too', async () =>
          decisions.find((d) => d.selfId === BOT_B && d.rawMessage === shared),
        );
        const twice = await until('the shared message kept', async () => {
          const found = await page(`q=${encodeURIComponent(shared)}`);
          return found.decisions.length > 0 ? found : undefined;
        });
        assert.equal(twice.decisions.length, 1, 'one row for a message two accounts received');

        // Paging: two at a time, newest first, until next_before is null.
        const all = await page(`group_id=${GROUP}&limit=200`);
        const seen: number[] = [];
        let before: number | null = null;
        do {
          const part: Page = await page(`group_id=${GROUP}&limit=2${before ? `&before=${before}` : ''}`);
          assert.ok(part.decisions.length <= 2);
          seen.push(...part.decisions.map((d) => d.id as number));
          before = part.next_before;
        } while (before !== null);
        assert.deepEqual(
          seen,
          all.decisions.map((d) => d.id),
        );
        assert.ok(
          seen.every((id, i) => i === 0 || (seen[i - 1] as number) > id),
          'newest first',
        );

        // Try a sentence: what the bot would do, and why, with the answers it weighed; nothing changes.
        const sentBefore = peerA.sent.length + peerB.sent.length;
        const decisionsBefore = decisions.length;
        const tried = await api.call<{
          outcome: string;
          reason: string;
          cause: View['cause'];
          threshold: number;
          answers: { sample: string; count: number; verdict: string }[];
        }>('POST', '/repeater/try', { group_id: GROUP, text: Q });
        assert.equal(tried.status, 200, tried.detail);
        assert.equal(tried.data.outcome, 'would-skip');
        assert.equal(tried.data.cause.code, 'below-threshold');
        assert.equal(tried.data.cause.params?.count, 1);
        assert.equal(tried.data.threshold, 2);
        // A, and the line said after Q by 老王's neighbour (learned as an answer too), each seen once.
        assert.deepEqual(
          tried.data.answers.map((a) => [a.sample, a.count, a.verdict]).sort(),
          [
            [A, 1, 'below-threshold'],
            ['有人知道火星上能种土豆吗', 1, 'below-threshold'],
          ].sort(),
        );
        const never = await api.call<{ outcome: string; cause: View['cause'] }>('POST', '/repeater/try', {
          group_id: GROUP,
          text: '月亮上的兔子吃什么草',
        });
        assert.deepEqual([never.data.outcome, never.data.cause.code], ['would-skip', 'no-context']);
        // Tried a few times more: still nothing learned, no decision, nothing sent.
        for (let i = 0; i < 3; i++) await api.call('POST', '/repeater/try', { group_id: GROUP, text: Q });
        const again = await api.call<{ cause: View['cause'] }>('POST', '/repeater/try', { group_id: GROUP, text: Q });
        assert.equal(again.data.cause.params?.count, 1, 'trying learned nothing');
        assert.equal(decisions.length, decisionsBefore, 'trying decided nothing');
        assert.equal(peerA.sent.length + peerB.sent.length, sentBefore, 'trying sent nothing');

        // Taught twice more: now the bot would answer, and does.
        await decided(say(12, A, '阿杰'));
        await decided(say(11, Q, '小林'));
        await decided(say(12, A, '阿杰'));
        await decided(say(13, '随便聊点别的话题吧'));
        // Seen twice now, but 阿杰 said A a moment ago: an answer seen under 3 times is not repeated
        // while its text is among the group's last messages.
        const fresh = await until('the pair counted twice', async () => {
          const answer = await api.call<{ cause: View['cause'] }>('POST', '/repeater/try', {
            group_id: GROUP,
            text: Q,
          });
          return answer.data.cause.params?.count === 2 ? answer : undefined;
        });
        assert.equal(fresh.data.cause.code, 'just-said-here');
        for (let i = 0; i < 10; i++) await decided(say(20 + i, `闲聊第${i}句没有别的意思`));
        // Learning is written in batches: asked until the pair counts twice.
        const ready = await until('the bot would answer Q', async () => {
          const answer = await api.call<{ outcome: string; answers: { verdict: string }[] }>('POST', '/repeater/try', {
            group_id: GROUP,
            text: Q,
          });
          return answer.data.outcome === 'would-reply' ? answer : undefined;
        });
        assert.equal(ready.data.outcome, 'would-reply');
        assert.equal(ready.data.answers[0]?.verdict, 'ready');

        // Bad input: a 400 naming the field, nothing changed.
        const bad = [
          [{ text: Q }, /group_id/],
          [{ group_id: GROUP, text: '' }, /text/],
          [{ group_id: GROUP, text: 'x'.repeat(2001) }, /text/],
          [{ group_id: 0, text: Q }, /group_id/],
        ] as const;
        for (const [body, field] of bad) {
          const refused = await api.call('POST', '/repeater/try', body);
          assert.equal(refused.status, 400, JSON.stringify(body));
          assert.match(refused.detail, field);
        }
        assert.equal((await api.call('GET', '/repeater/decisions?limit=0')).status, 400);
        assert.equal((await api.call('GET', '/repeater/decisions?scope=process')).status, 400);

        // A restart: the decisions are still there, causes and all.
        const keptBefore = (await page(`group_id=${GROUP}&limit=200`)).decisions;
        for (const peer of peers.splice(0)) await peer.close();
        await service.stop();
        service = await start();
        const keptAfter = (await page(`group_id=${GROUP}&limit=200`)).decisions;
        assert.deepEqual(
          keptAfter.map((d) => [d.id, d.reason, d.cause, d.raw_message, d.sender_name]),
          keptBefore.map((d) => [d.id, d.reason, d.cause, d.raw_message, d.sender_name]),
        );
        const groups = await api.call<{ group_id: number; kept: number }[]>('GET', '/repeater/groups');
        assert.equal(groups.data.find((g) => g.group_id === GROUP)?.kept, keptAfter.length);
      },
    );
  });
}
