/**
 * The activity log over real HTTP against `startService`, on SQLite and on PostgreSQL: levels
 * (401 without credentials, 403 for a read session changing things, nothing changed), bad input
 * a 400 naming the field, and a console ban, an unban at any time, its undo and a silence found
 * in the log with who made them, filtered by kind, group and actor.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startService, type RunningService } from '../../src/app/service.ts';
import { freePort } from '../support/chorus-process.ts';
import { freshSchemaName, PG_URL } from '../support/engines.ts';

const READ = 'activity-read-token-not-secret';
const WRITE = 'activity-write-token-not-secret';
const IN_CI = process.env.CI === 'true';

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`console activity API (${engine})`, () => {
    let service: RunningService;
    let dir: string;
    let api: string;
    let schema = '';

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
      return { status: response.status, body: (await response.json()) as { ok: boolean; data: any; detail?: string } };
    };
    const kinds = async (query: string) =>
      (await call('GET', `/activity?${query}`, READ)).body.data.items.map((e: { kind: string }) => e.kind);

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'chorus-activity-'));
      const env: Record<string, string> = {
        CHORUS_CONSOLE_TOKEN: READ,
        CHORUS_CONSOLE_WRITE_TOKEN: WRITE,
      };
      if (engine === 'postgres') {
        // Under CI=true an unreachable PostgreSQL fails here rather than skipping.
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
      await service.store.corpus.learnAnswer({
        keywords: '早上 好',
        groupId: 101,
        answerKeywords: '早',
        answerTime: 1000,
        message: '早啊',
        appendOnExisting: true,
      });
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

    it('reading needs credentials; changing needs write credentials and a read session changes nothing', async (t) => {
      if (!service) return t.skip('PostgreSQL unreachable');
      assert.equal(service.store.engine.kind, engine);
      assert.equal((await call('GET', '/activity', null)).status, 401);
      assert.equal((await call('GET', '/activity', READ)).status, 200);
      const found = await call('GET', `/corpus/search?q=${encodeURIComponent('早上 好')}&in=keywords`, READ);
      const answerId = found.body.data.items[0].answers[0].id;
      await service.store.corpus.appendBan('早上 好', { keywords: '早', groupId: 101, reason: '1', time: 1 });
      const forbidden = await call('POST', `/corpus/answers/${answerId}/unban`, READ, { scope: 'everywhere' });
      assert.equal(forbidden.status, 403);
      assert.equal((await call('POST', '/activity/1/undo', READ)).status, 403);
      assert.equal((await service.store.corpus.findByKeywords('早上 好'))?.bans.length, 1, 'still banned');
      assert.deepEqual(await kinds(''), [], 'nothing recorded');
    });

    it('bad input is a 4xx naming the field and changes nothing', async (t) => {
      if (!service) return t.skip('PostgreSQL unreachable');
      const cases: [string, string, unknown, number, RegExp][] = [
        ['GET', '/activity?kind=ban_group,bogus', undefined, 400, /query\.kind/],
        ['GET', '/activity?group_id=-1', undefined, 400, /group_id/],
        ['GET', '/activity?since=200&until=100', undefined, 400, /query\.until/],
        ['GET', '/activity?limit=1000', undefined, 400, /limit/],
        ['GET', '/activity?actor=', undefined, 400, /actor/],
        ['POST', '/corpus/answers/1/unban', {}, 400, /scope/],
        ['POST', '/corpus/answers/1/unban', { scope: 'group' }, 400, /body\.group_id/],
        ['POST', '/corpus/answers/1/unban', { scope: 'group', group_id: 114514 }, 400, /body\.group_id/],
        ['POST', '/corpus/answers/1/unban', { scope: 'everywhere', extra: 1 }, 400, /extra/],
        ['POST', '/corpus/answers/abc/unban', { scope: 'everywhere' }, 400, /id/],
        ['POST', '/corpus/answers/999999/unban', { scope: 'everywhere' }, 404, /id: no answer/],
        ['POST', '/activity/999999/undo', undefined, 404, /id: no activity entry/],
      ];
      for (const [method, path, body, status, field] of cases) {
        const reply = await call(method, path, WRITE, body);
        assert.equal(reply.status, status, `${method} ${path}`);
        assert.match(reply.body.detail ?? '', field, `${method} ${path}: ${reply.body.detail}`);
      }
      assert.equal((await service.store.corpus.findByKeywords('早上 好'))?.bans.length, 1, 'still banned');
      assert.deepEqual(await kinds(''), []);
    });

    it('a ban, an unban at any time, its undo and a silence are entries with who made them', async (t) => {
      if (!service) return t.skip('PostgreSQL unreachable');
      const found = await call('GET', `/corpus/search?q=${encodeURIComponent('早上 好')}&in=keywords`, READ);
      const answerId = found.body.data.items[0].answers[0].id;
      const banned = await call('POST', `/corpus/answers/${answerId}/ban`, WRITE, { scope: 'everywhere' });
      assert.equal(banned.status, 200);

      const [ban] = (await call('GET', '/activity?kind=ban_all', READ)).body.data.items;
      assert.deepEqual(
        [ban.kind, ban.scope, ban.answer_id, ban.can_unban, ban.actor.kind, ban.actor.level, ban.actor.address],
        ['ban_all', 'everywhere', answerId, true, 'console', 'write', '127.0.0.1'],
      );
      assert.ok(ban.undo_until > ban.time);

      const here = await call('POST', `/corpus/answers/${answerId}/unban`, WRITE, { scope: 'group', group_id: 101 });
      assert.equal(here.status, 200);
      assert.deepEqual([here.body.data.entry.kind, here.body.data.entry.group_id], ['unban', 101]);
      assert.deepEqual(
        (await service.store.corpus.findByKeywords('早上 好'))?.bans.map((b) => b.groupId),
        [114514],
        'the everywhere ban stays',
      );
      const again = await call('POST', `/corpus/answers/${answerId}/unban`, WRITE, { scope: 'group', group_id: 101 });
      assert.equal(again.status, 409);
      assert.match(again.body.detail ?? '', /not banned in group 101/);
      const all = await call('POST', `/corpus/answers/${answerId}/unban`, WRITE, { scope: 'everywhere' });
      assert.equal(all.status, 200);
      assert.deepEqual((await service.store.corpus.findByKeywords('早上 好'))?.bans, []);

      const undone = await call('POST', `/activity/${all.body.data.entry.id}/undo`, WRITE);
      assert.equal(undone.status, 200);
      assert.ok(undone.body.data.entry.undone_at > 0);
      assert.equal(undone.body.data.entry.undo_until, 0);
      assert.deepEqual(
        (await service.store.corpus.findByKeywords('早上 好'))?.bans.map((b) => b.groupId),
        [114514],
      );
      assert.equal((await call('POST', `/activity/${all.body.data.entry.id}/undo`, WRITE)).status, 409);

      const silence = await call('PUT', '/group-configs/202', WRITE, {
        silence_until: Math.floor(Date.now() / 1000) + 600,
      });
      assert.equal(silence.status, 200);
      await call('PUT', '/group-configs/202', WRITE, { reply: false });

      assert.deepEqual(await kinds(''), ['group_config', 'silence', 'undo', 'unban', 'unban', 'ban_all']);
      assert.deepEqual(await kinds('group_id=202'), ['group_config', 'silence']);
      assert.deepEqual(await kinds('kind=unban,undo'), ['undo', 'unban', 'unban']);
      assert.deepEqual(await kinds('actor=127.0.0.1&limit=2'), ['group_config', 'silence']);
      assert.deepEqual(await kinds('actor=10.9.9.9'), []);
      const page = await call('GET', '/activity?limit=4&offset=4', READ);
      assert.deepEqual([page.body.data.items.length, page.body.data.has_more], [2, false]);
      const [config] = (await call('GET', '/activity?kind=group_config', READ)).body.data.items;
      assert.deepEqual(config.params, { reply: false });

      // A ban undone has nothing left to lift: the entry no longer offers the unban.
      const banHere = await call('POST', `/corpus/answers/${answerId}/ban`, WRITE, { scope: 'group', group_id: 303 });
      const [listed] = (await call('GET', '/activity?kind=ban_group', READ)).body.data.items;
      assert.deepEqual([listed.id, listed.can_unban], [banHere.body.data.entry.id, true]);
      const undoneBan = await call('POST', `/activity/${listed.id}/undo`, WRITE);
      assert.deepEqual([undoneBan.status, undoneBan.body.data.entry.can_unban], [200, false]);
    });
  });
}
