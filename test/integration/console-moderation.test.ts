/**
 * The corpus moderation routes over real HTTP against `startService` on SQLite: auth levels (401
 * without credentials, 403 for read credentials on writes), 400 naming the field, 404/409, and a
 * ban / delete / undo round trip as the API reports it.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { startService, type RunningService } from '../../src/app/service.ts';
import { freePort } from '../support/chorus-process.ts';

const READ = 'moderation-read-token-not-secret';
const WRITE = 'moderation-write-token-not-secret';

describe('console corpus moderation API', () => {
  let service: RunningService;
  let dir: string;
  let api: string;

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

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'chorus-moderation-'));
    const port = await freePort();
    service = await startService({
      projectDir: dir,
      env: { CHORUS_PORT: String(port), CHORUS_CONSOLE_TOKEN: READ, CHORUS_CONSOLE_WRITE_TOKEN: WRITE },
      logDestination: new Writable({ write: (_c, _e, done) => done() }),
    });
    api = `http://127.0.0.1:${port}/chorus/api`;
    for (const [keywords, answer, group, message] of [
      ['你好 呀', '你好', 101, '你好你好'],
      ['你好 呀', '你好', 101, '你好你好！'],
      ['你好 呀', '嗨', 0, '嗨'],
    ] as const) {
      await service.store.corpus.learnAnswer({
        keywords,
        groupId: group,
        answerKeywords: answer,
        answerTime: 1000,
        message,
        appendOnExisting: true,
      });
    }
  });
  after(async () => {
    await service.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('reads need credentials; writes need write credentials', async () => {
    assert.equal((await call('GET', '/corpus/search?q=x', null)).status, 401);
    assert.equal((await call('GET', '/corpus/moderation', READ)).status, 200);
    const forbidden = await call('DELETE', '/corpus/contexts/1', READ);
    assert.equal(forbidden.status, 403);
    assert.equal((await call('GET', '/corpus/contexts/1', READ)).body.data.answers.length, 2, 'nothing deleted');
  });

  it('bad input is a 400 naming the field and changes nothing', async () => {
    const cases: [string, string, unknown, RegExp][] = [
      ['GET', '/corpus/search', undefined, /q/],
      ['GET', '/corpus/search?q=%20', undefined, /query\.q/],
      ['GET', '/corpus/search?q=a&match=fuzzy', undefined, /match/],
      ['GET', '/corpus/search?q=a&limit=1000', undefined, /limit/],
      ['POST', '/corpus/answers/1/ban', { scope: 'somewhere' }, /scope/],
      ['POST', '/corpus/answers/1/ban', { scope: 'group', group_id: -4 }, /group_id/],
      ['POST', '/corpus/answers/1/ban', { scope: 'group', extra: 1 }, /extra/],
      ['DELETE', '/corpus/answers/abc', undefined, /id/],
    ];
    for (const [method, path, body, field] of cases) {
      const reply = await call(method, path, WRITE, body);
      assert.equal(reply.status, 400, `${method} ${path}`);
      assert.match(reply.body.detail ?? '', field, `${method} ${path}: ${reply.body.detail}`);
    }
    assert.deepEqual((await call('GET', '/corpus/moderation', READ)).body.data.items, []);
  });

  it('search, ban in the learned group, delete, and undo through the API', async () => {
    const found = await call('GET', `/corpus/search?q=${encodeURIComponent('你好你好')}`, READ);
    assert.equal(found.status, 200);
    const [context] = found.body.data.items;
    assert.equal(context.keywords, '你好 呀');
    const hello = context.answers.find((a: { keywords: string }) => a.keywords === '你好');
    const community = context.answers.find((a: { group_id: number }) => a.group_id === 0);
    assert.deepEqual(hello.messages, ['你好你好！', '你好你好']);

    const banned = await call('POST', `/corpus/answers/${hello.id}/ban`, WRITE, { scope: 'group', reason: 'spam' });
    assert.equal(banned.status, 200);
    assert.equal(banned.body.data.entry.group_id, 101, 'defaults to the group it was learned in');
    assert.match(banned.body.data.entry.actor, /^write from /);
    const noGroup = await call('POST', `/corpus/answers/${community.id}/ban`, WRITE, { scope: 'group' });
    assert.equal(noGroup.status, 400);
    assert.match(noGroup.body.detail ?? '', /body\.group_id/);
    const everywhere = await call('POST', `/corpus/answers/${community.id}/ban`, WRITE, { scope: 'everywhere' });
    assert.equal(everywhere.body.data.entry.group_id, 114514);

    const deleted = await call('DELETE', `/corpus/contexts/${context.id}`, WRITE);
    assert.equal(deleted.status, 200);
    assert.equal((await call('GET', `/corpus/contexts/${context.id}`, READ)).status, 404);
    assert.equal((await call('DELETE', `/corpus/contexts/${context.id}`, WRITE)).status, 404);
    const undone = await call('POST', `/corpus/moderation/${deleted.body.data.entry.id}/undo`, WRITE);
    assert.equal(undone.status, 200);
    assert.ok(undone.body.data.entry.undone_at > 0);
    assert.equal((await call('POST', `/corpus/moderation/${deleted.body.data.entry.id}/undo`, WRITE)).status, 409);
    const back = await call('GET', `/corpus/search?q=${encodeURIComponent('你好 呀')}&in=keywords`, READ);
    const restored = back.body.data.items[0];
    assert.deepEqual(
      restored.answers.map((a: { keywords: string; count: number }) => [a.keywords, a.count]),
      [
        ['你好', 2],
        ['嗨', 1],
      ],
    );
    assert.deepEqual(restored.bans.map((b: { group_id: number }) => b.group_id).sort(), [101, 114514]);
    const log = await call('GET', '/corpus/moderation?limit=2', READ);
    assert.deepEqual(
      log.body.data.items.map((e: { action: string }) => e.action),
      ['delete_context', 'ban_all'],
    );
    assert.equal(log.body.data.has_more, true);
  });
});
