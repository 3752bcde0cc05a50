/**
 * The catchphrase routes over real HTTP against `startService`, on SQLite and on PostgreSQL:
 * the origin's page and counts example, levels (401 without credentials, 403 for a read session
 * changing anything, nothing changed), bad input a 4xx naming the field, mining a group now, and
 * an approve and its undo in the activity log with who made them.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startService, type RunningService } from '../../src/app/service.ts';
import { CatchphraseStore } from '../../src/store/agent-catchphrases-store.ts';
import { freePort } from '../support/chorus-process.ts';
import { freshSchemaName, PG_URL } from '../support/engines.ts';

const READ = 'catchphrase-read-token-not-secret';
const WRITE = 'catchphrase-write-token-not-secret';
const IN_CI = process.env.CI === 'true';
const PATH = '/llm/agent-platform/catchphrases';
const MINED = 101;
const LISTED = 303;

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`console catchphrases API (${engine})`, () => {
    let service: RunningService;
    let dir: string;
    let api: string;
    let schema = '';
    let book: CatchphraseStore;

    const call = async (method: string, path: string, token: string | null, body?: unknown) => {
      const headers: Record<string, string> = {};
      if (token) headers['x-chorus-token'] = token;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${api}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies checked field by field
      const json = (await response.json()) as { ok: boolean; data: any; detail?: string; code?: string; params?: any };
      return { status: response.status, body: json };
    };
    const activityKinds = async () =>
      (await call('GET', '/activity?kind=catchphrase_approve,catchphrase_reject,undo', READ)).body.data.items.map(
        (entry: { kind: string }) => entry.kind,
      );
    const learn = async (keywords: string, message: string, times: number) => {
      for (let n = 0; n < times; n++) {
        await service.store.corpus.learnAnswer({
          keywords,
          groupId: MINED,
          answerKeywords: message,
          answerTime: 1_000 + n,
          message,
          appendOnExisting: true,
        });
      }
    };

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'chorus-catchphrases-'));
      const env: Record<string, string> = { CHORUS_CONSOLE_TOKEN: READ, CHORUS_CONSOLE_WRITE_TOKEN: WRITE };
      if (engine === 'postgres') {
        const admin = new pg.Client({ connectionString: PG_URL });
        try {
          await admin.connect();
        } catch (error) {
          if (IN_CI) throw error;
          return;
        }
        schema = freshSchemaName();
        await admin.query(`CREATE SCHEMA "${schema}"`);
        await admin.end();
        const url = new URL(PG_URL);
        url.searchParams.set('options', `-c search_path=${schema}`);
        env.CHORUS_DATABASE_URL = url.toString();
      }
      const port = await freePort();
      service = await startService({
        projectDir: dir,
        env: { CHORUS_PORT: String(port), ...env },
        logDestination: new Writable({ write: (_c, _e, done) => done() }),
      });
      api = `http://127.0.0.1:${port}/chorus/api`;
      book = new CatchphraseStore(service.store.engine);
      for (const keywords of ['早上 好', '今天 天气', '吃 什么']) {
        await learn(keywords, '哈哈哈', 2);
        await learn(keywords, '/签到', 2);
      }
      await book.offer(
        LISTED,
        ['一', '二', '三', '四'].map((n, i) => ({ text: `候选${n}`, count: 10 - i, contexts: 2, source: 'local' })),
        10,
        100,
      );
    });
    after(async () => {
      await service?.stop();
      await rm(dir, { recursive: true, force: true });
      if (schema !== '') {
        const admin = new pg.Client({ connectionString: PG_URL });
        await admin.connect();
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await admin.end();
      }
    });

    it('reading needs credentials; a read session changes nothing', async (t) => {
      if (!service) return t.skip('PostgreSQL unreachable');
      assert.equal(service.store.engine.kind, engine);
      assert.equal((await call('GET', PATH, null)).status, 401);
      const listed = await call('GET', `${PATH}?group_id=${LISTED}`, READ);
      assert.equal(listed.status, 200);
      const id = listed.body.data.items[0].id;
      for (const [path, body] of [
        [`${PATH}/resolve`, { entry_id: id, action: 'approve' }],
        [`${PATH}/undo`, { entry_id: id }],
        [`${PATH}/mine`, { group_id: MINED }],
      ] as const) {
        assert.equal((await call('POST', path, READ, body)).status, 403, path);
      }
      assert.equal((await book.get(id))?.status, 'candidate');
      assert.equal((await book.list({ groupId: MINED, offset: 0, limit: 10 })).total, 0, 'nothing mined');
      assert.deepEqual(await activityKinds(), []);
    });

    it('bad input is a 4xx naming the field and changes nothing', async (t) => {
      if (!service) return t.skip('PostgreSQL unreachable');
      const id = (await call('GET', `${PATH}?group_id=${LISTED}`, READ)).body.data.items[0].id;
      const cases: [string, string, unknown, number, RegExp, string][] = [
        ['GET', `${PATH}?status=approved`, undefined, 400, /status/, 'invalid_field'],
        ['GET', `${PATH}?offset=-1`, undefined, 400, /offset/, 'invalid_field'],
        ['GET', `${PATH}?limit=0`, undefined, 400, /limit/, 'invalid_field'],
        ['GET', `${PATH}?limit=201`, undefined, 400, /limit/, 'invalid_field'],
        ['GET', `${PATH}?group_id=abc`, undefined, 400, /group_id/, 'invalid_field'],
        ['POST', `${PATH}/resolve`, { entry_id: id, action: 'promote' }, 400, /body\.action/, 'invalid_field'],
        ['POST', `${PATH}/resolve`, { action: 'approve' }, 400, /entry_id/, 'invalid_field'],
        ['POST', `${PATH}/resolve`, { entry_id: id, action: 'approve', x: 1 }, 400, /x/, 'invalid_field'],
        [
          'POST',
          `${PATH}/resolve`,
          { entry_id: 999_999, action: 'approve' },
          404,
          /entry_id/,
          'agent_catchphrase_not_found',
        ],
        ['POST', `${PATH}/undo`, { entry_id: 999_999 }, 404, /entry_id/, 'agent_catchphrase_not_found'],
        ['POST', `${PATH}/undo`, { entry_id: id }, 409, /entry_id/, 'agent_catchphrase_not_resolved'],
        ['POST', `${PATH}/mine`, { group_id: 0 }, 400, /body\.group_id/, 'invalid_field'],
      ];
      for (const [method, path, body, status, field, code] of cases) {
        const reply = await call(method, path, WRITE, body);
        assert.equal(reply.status, status, `${method} ${path} ${JSON.stringify(body)}`);
        assert.match(reply.body.detail ?? '', field, `${method} ${path}: ${reply.body.detail}`);
        assert.equal(reply.body.code, code, `${method} ${path}`);
      }
      assert.equal((await book.list({ groupId: LISTED, status: 'candidate', offset: 0, limit: 10 })).total, 4);
      assert.deepEqual(await activityKinds(), []);
    });

    it("pages with the origin's counts: candidate, offset 1, limit 1 of 3 candidates and 1 active", async (t) => {
      if (!service) return t.skip('PostgreSQL unreachable');
      const first = (await call('GET', `${PATH}?group_id=${LISTED}`, READ)).body.data;
      assert.deepEqual(first.counts, { candidate: 4, active: 0, rejected: 0, all: 4 });
      const approved = await call('POST', `${PATH}/resolve`, WRITE, { entry_id: first.items[0].id, action: 'approve' });
      assert.equal(approved.status, 200);
      assert.equal(approved.body.data.status, 'active');
      const page = await call('GET', `${PATH}?group_id=${LISTED}&status=candidate&offset=1&limit=1`, READ);
      assert.equal(page.status, 200);
      assert.equal(page.body.data.items.length, 1);
      assert.equal(page.body.data.count, 1);
      assert.equal(page.body.data.total, 3);
      assert.deepEqual(page.body.data.counts, { candidate: 3, active: 1, rejected: 0, all: 4 });
      assert.equal(page.body.data.items[0].status, 'candidate');
      assert.equal(page.body.data.items[0].text, '候选三', 'most said first: the second candidate');
      const other = await call('GET', `${PATH}?group_id=${LISTED}&bot_id=7`, READ);
      assert.equal(other.body.data.total, 0, 'mined phrases belong to account 0');
    });

    it('mines a group now; an approve and its undo are in the activity log with who made them', async (t) => {
      if (!service) return t.skip('PostgreSQL unreachable');
      const mined = await call('POST', `${PATH}/mine`, WRITE, { group_id: MINED });
      assert.equal(mined.status, 200);
      assert.equal(mined.body.data.added, 1);
      assert.equal(mined.body.data.skipped.command, 1);
      const listed = (await call('GET', `${PATH}?group_id=${MINED}`, READ)).body.data;
      assert.deepEqual(
        listed.items.map((item: { text: string; status: string }) => [item.text, item.status]),
        [['哈哈哈', 'candidate']],
      );
      const id = listed.items[0].id;
      const approved = await call('POST', `${PATH}/resolve`, WRITE, { entry_id: id, action: 'approve' });
      assert.equal(approved.body.data.resolved_by, 'write from 127.0.0.1');
      const [entry] = (await call('GET', `/activity?kind=catchphrase_approve&group_id=${MINED}`, READ)).body.data.items;
      assert.equal(entry.id, approved.body.data.activity_id);
      assert.deepEqual(
        [entry.actor.kind, entry.actor.level, entry.actor.address, entry.scope, entry.params.text],
        ['console', 'write', '127.0.0.1', 'group', '哈哈哈'],
      );
      assert.equal(entry.undone_at, 0);
      const undone = await call('POST', `${PATH}/undo`, WRITE, { entry_id: id });
      assert.equal(undone.status, 200);
      assert.deepEqual([undone.body.data.status, undone.body.data.activity_id], ['candidate', 0]);
      const after = (await call('GET', `/activity?group_id=${MINED}`, READ)).body.data.items;
      assert.deepEqual(
        after.map((each: { kind: string }) => each.kind),
        ['undo', 'catchphrase_approve'],
      );
      assert.equal(after[0].params.entry_id, entry.id);
      assert.ok(after[1].undone_at > 0, 'the approve is marked undone');
      const rejected = await call('POST', `${PATH}/resolve`, WRITE, { entry_id: id, action: 'reject' });
      assert.equal(rejected.body.data.status, 'rejected');
      const again = await call('POST', `${PATH}/mine`, WRITE, { group_id: MINED });
      assert.deepEqual([again.body.data.added, again.body.data.refreshed], [0, 1], 'never proposed again');
      assert.equal((await book.get(id))?.status, 'rejected');
    });
  });
}
