/**
 * Backups of a running bot, end to end (a real `chorus serve` process, SQLite, a scripted OneBot
 * peer over a real WebSocket, the console over real HTTP): a backup taken while the peer keeps the
 * bot learning; a restore that restarts the process and brings back exactly what the backup held;
 * a corrupt backup that leaves the running database in use; the backup restored into a fresh data
 * folder of another deployment; names that try to leave the folder.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { freePort, runChorus, type ChorusProcess } from '../support/chorus-process.ts';
import { consoleApi, Conversation, EAGER_REPEATER, until } from '../support/console-conversation.ts';

const TOKEN = 'backup-e2e-console-token';
const BOT = 20001;
const GROUP = 7001;

describe('database backups end to end (a real process, SQLite)', () => {
  it(
    'backs up while learning, restores with a restart, and survives a corrupt backup',
    { timeout: 180_000 },
    async (t) => {
      const dir = await mkdtemp(join(tmpdir(), 'chorus-backup-e2e-'));
      t.after(() => rm(dir, { recursive: true, force: true }));
      const port = await freePort();
      const chorus: ChorusProcess = runChorus(['serve', '--project-dir', dir], {
        CHORUS_PORT: String(port),
        CHORUS_CONSOLE_TOKEN: TOKEN,
        ...EAGER_REPEATER,
      });
      t.after(async () => {
        chorus.child.kill('SIGTERM');
        await chorus.exited;
      });
      await chorus.waitFor(/console listening at/);
      const base = `http://127.0.0.1:${port}/chorus`;
      const console = consoleApi(base, TOKEN);
      const url = `ws://127.0.0.1:${port}/onebot/v11/ws`;

      let talk = new Conversation(await OneBotPeer.connect({ url, selfId: BOT, firstMessageId: 1 }), GROUP);
      talk.teach('周末去爬山怎么样', '好主意我带水', 4);
      await talk.answers('周末去爬山怎么样', '好主意我带水');

      // The backup runs while the peer keeps the bot learning.
      let learning = true;
      const background = (async () => {
        for (let i = 0; learning; i++) {
          talk.say(5 + (i % 3), `背景消息${i}号`);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })();
      const started = await console.call<{ job_id: string }>('POST', '/db/backup', { label: 'e2e' });
      assert.equal(started.status, 200, started.detail);
      const busy = await console.call('POST', '/db/backup', {});
      assert.ok([200, 409].includes(busy.status), 'a second backup is refused while one runs (or it already ended)');
      const job = await until('the backup job to end', async () => {
        const { data } = await console.call<{ phase: string; result: { name: string } | null; error: string | null }>(
          'GET',
          `/db/backup/jobs/${started.data.job_id}`,
        );
        return data.phase === 'done' || data.phase === 'failed' ? data : undefined;
      });
      learning = false;
      await background;
      assert.equal(job.phase, 'done', job.error ?? '');
      const name = job.result?.name ?? '';
      const runs = await console.call<{ name: string; contexts: number; bytes: number }[]>('GET', '/db/backup/runs');
      // When the first backup had already ended, the second one was taken too (in the same second,
      // so it may list first): this test follows the first by its name.
      const run = runs.data.find((entry) => entry.name === name);
      assert.ok(run, `${name} is listed`);
      assert.ok(run.contexts > 0);
      const download = await fetch(`${base}/api/db/backup/runs/download?name=${encodeURIComponent(name)}`, {
        headers: { 'x-chorus-token': TOKEN },
      });
      assert.equal(download.status, 200);
      assert.equal((await download.arrayBuffer()).byteLength, run.bytes);

      // Learned after the backup: gone after the restore.
      talk.teach('晚上吃火锅好不好', '火锅必须安排上', 4);
      await talk.answers('晚上吃火锅好不好', '火锅必须安排上');

      const wrongToken = await console.call('POST', '/db/backup/runs/restore', { name, confirm_token: '1.abc' });
      assert.equal(wrongToken.status, 400);
      assert.match(wrongToken.detail, /confirm_token/);
      const preview = await console.call<{ stage: string; confirm_token: string; effect: string }>(
        'POST',
        '/db/backup/runs/restore',
        { name },
      );
      assert.equal(preview.data.stage, 'preview');
      assert.match(preview.data.effect, /restarts/);
      const restoring = await console.call<{ stage: string }>('POST', '/db/backup/runs/restore', {
        name,
        confirm_token: preview.data.confirm_token,
      });
      assert.equal(restoring.data.stage, 'restarting');
      await chorus.waitFor(/database restored from a backup/, 30_000);
      await until('the console after the restart', async () =>
        (await fetch(`${base}/api/health`).catch(() => null))?.ok ? true : undefined,
      );
      const info = await console.call<{ last_restore: { ok: boolean; code: string; name: string } }>(
        'GET',
        '/db/backup/info',
      );
      const restored = info.data.last_restore;
      assert.deepEqual([restored.ok, restored.code, restored.name], [true, 'restored', name]);

      await talk.peer.close().catch(() => undefined);
      talk = new Conversation(await OneBotPeer.connect({ url, selfId: BOT, firstMessageId: 500_000 }), GROUP);
      await talk.answers('周末去爬山怎么样', '好主意我带水');
      const gone = await talk.ask('晚上吃火锅好不好', 1500);
      assert.ok(!gone.includes('火锅必须安排上'), 'what was learned after the backup is gone');

      // A corrupt backup: checked before the swap, so the running database stays.
      const garbage = Buffer.from('this is not a SQLite database at all'.repeat(100));
      const bad = 'chorus-corrupt.db';
      await writeFile(join(dir, 'data', 'backups', bad), garbage);
      const description = {
        name: bad,
        label: 'corrupt',
        engine: 'sqlite',
        format: 'sqlite',
        created_at: Math.floor(Date.now() / 1000) + 10,
        bytes: garbage.length,
        sha256: createHash('sha256').update(garbage).digest('hex'),
        contexts: 1,
      };
      await writeFile(join(dir, 'data', 'backups', `${bad}.json`), JSON.stringify(description));
      const badPreview = await console.call<{ confirm_token: string }>('POST', '/db/backup/runs/restore', {
        name: bad,
      });
      await console.call('POST', '/db/backup/runs/restore', {
        name: bad,
        confirm_token: badPreview.data.confirm_token,
      });
      await chorus.waitFor(/restore failed; the previous database is in use/, 30_000);
      const after = await until('the console after the failed restore', async () => {
        const reply = await console
          .call<{ last_restore: { ok: boolean; code: string; detail: string } }>('GET', '/db/backup/info')
          .catch(() => undefined);
        return reply?.status === 200 ? reply : undefined;
      });
      assert.equal(after.data.last_restore.ok, false);
      assert.equal(after.data.last_restore.code, 'not_restored', 'the console words the code');
      assert.match(after.data.last_restore.detail, /previous database is in use/);
      await talk.peer.close().catch(() => undefined);
      talk = new Conversation(await OneBotPeer.connect({ url, selfId: BOT, firstMessageId: 900_000 }), GROUP);
      await talk.answers('周末去爬山怎么样', '好主意我带水');
      await talk.peer.close().catch(() => undefined);

      // The same backup restored into a fresh data folder on another deployment (a new machine).
      const fresh = join(dir, 'fresh');
      await mkdir(join(fresh, 'data', 'backups'), { recursive: true, mode: 0o700 });
      for (const file of [name, `${name}.json`])
        await copyFile(join(dir, 'data', 'backups', file), join(fresh, 'data', 'backups', file));
      const freshPort = await freePort();
      const second = runChorus(['serve', '--project-dir', fresh], {
        CHORUS_PORT: String(freshPort),
        CHORUS_CONSOLE_TOKEN: TOKEN,
        ...EAGER_REPEATER,
      });
      t.after(async () => {
        second.child.kill('SIGTERM');
        await second.exited;
      });
      await second.waitFor(/console listening at/);
      const secondBase = `http://127.0.0.1:${freshPort}/chorus`;
      const secondConsole = consoleApi(secondBase, TOKEN);
      const freshPreview = await secondConsole.call<{ confirm_token: string }>('POST', '/db/backup/runs/restore', {
        name,
      });
      assert.equal(freshPreview.status, 200, freshPreview.detail);
      await secondConsole.call('POST', '/db/backup/runs/restore', {
        name,
        confirm_token: freshPreview.data.confirm_token,
      });
      await second.waitFor(/database restored from a backup/, 30_000);
      await until('the fresh console after the restart', async () =>
        (await fetch(`${secondBase}/api/health`).catch(() => null))?.ok ? true : undefined,
      );
      const freshTalk = new Conversation(
        await OneBotPeer.connect({ url: `ws://127.0.0.1:${freshPort}/onebot/v11/ws`, selfId: BOT, firstMessageId: 1 }),
        GROUP,
      );
      await freshTalk.answers('周末去爬山怎么样', '好主意我带水');
      await freshTalk.peer.close().catch(() => undefined);
      // Stopped before the folder goes (the hooks remove it first).
      second.child.kill('SIGTERM');
      assert.equal(await second.exited, 0);
    },
  );

  it('refuses names that leave the backup folder on every route', { timeout: 60_000 }, async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'chorus-backup-names-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const port = await freePort();
    const chorus = runChorus(['serve', '--project-dir', dir], {
      CHORUS_PORT: String(port),
      CHORUS_CONSOLE_TOKEN: TOKEN,
    });
    t.after(async () => {
      chorus.child.kill('SIGTERM');
      await chorus.exited;
    });
    await chorus.waitFor(/console listening at/);
    const base = `http://127.0.0.1:${port}/chorus`;
    const console = consoleApi(base, TOKEN);
    const escapes = [
      '../chorus.db',
      '..',
      '/etc/passwd',
      'a/../../x',
      '.hidden',
      'x\\..\\y',
      '%2e%2e',
      'chorus.db.json',
    ];
    for (const name of escapes) {
      const download = await fetch(`${base}/api/db/backup/runs/download?name=${encodeURIComponent(name)}`, {
        headers: { 'x-chorus-token': TOKEN },
      });
      assert.equal(download.status, 400, `download ${name}`);
      const restore = await console.call('POST', '/db/backup/runs/restore', { name });
      assert.equal(restore.status, 400, `restore ${name}`);
      const remove = await console.call('POST', '/db/backup/runs/delete', { names: [name] });
      assert.equal(remove.status, 400, `delete ${name}`);
    }
    const label = await console.call('POST', '/db/backup', { label: '../x' });
    assert.equal(label.status, 400);
    assert.match(label.detail, /label/);
  });

  it(
    'a backup whose file changed is neither downloaded nor restored; two restores at once: one restarts, one 409',
    { timeout: 120_000 },
    async (t) => {
      const dir = await mkdtemp(join(tmpdir(), 'chorus-backup-checks-'));
      t.after(() => rm(dir, { recursive: true, force: true }));
      const port = await freePort();
      const chorus = runChorus(['serve', '--project-dir', dir], {
        CHORUS_PORT: String(port),
        CHORUS_CONSOLE_TOKEN: TOKEN,
      });
      t.after(async () => {
        chorus.child.kill('SIGTERM');
        await chorus.exited;
      });
      await chorus.waitFor(/console listening at/, 90_000);
      const base = `http://127.0.0.1:${port}/chorus`;
      const console = consoleApi(base, TOKEN);
      const folder = join(dir, 'data', 'backups');
      await mkdir(folder, { recursive: true, mode: 0o700 });
      const content = Buffer.from('not really a database, the restore check refuses it'.repeat(50));
      const describe = async (name: string, fields: { bytes?: number; sha256?: string } = {}) => {
        await writeFile(join(folder, name), content);
        await writeFile(
          join(folder, `${name}.json`),
          JSON.stringify({
            name,
            label: '',
            engine: 'sqlite',
            format: 'sqlite',
            created_at: Math.floor(Date.now() / 1000),
            bytes: content.length,
            sha256: createHash('sha256').update(content).digest('hex'),
            contexts: 1,
            ...fields,
          }),
        );
      };
      const restore = async (name: string) => {
        const preview = await console.call<{ confirm_token: string }>('POST', '/db/backup/runs/restore', { name });
        assert.equal(preview.status, 200, preview.detail);
        return () =>
          console.call<{ stage: string }>('POST', '/db/backup/runs/restore', {
            name,
            confirm_token: preview.data.confirm_token,
          });
      };

      // The file shrank: refused (sent with the recorded length, the client waited for ever).
      await describe('chorus-shrunk.db', { bytes: content.length + 100 });
      const download = await fetch(`${base}/api/db/backup/runs/download?name=chorus-shrunk.db`, {
        headers: { 'x-chorus-token': TOKEN },
        signal: AbortSignal.timeout(20_000),
      });
      assert.equal(download.status, 409);
      assert.match(((await download.json()) as { detail: string }).detail, /changed since the backup was written/);

      // One byte differs from the recorded sha256: refused, and nothing restarts.
      await describe('chorus-changed.db', { sha256: createHash('sha256').update('other').digest('hex') });
      const changed = await (await restore('chorus-changed.db'))();
      assert.equal(changed.status, 409);
      assert.match(changed.detail, /sha256 is not the recorded one/);

      // Two restores at once: one answer "restarting", the other 409.
      await describe('chorus-twice.db');
      const send = await restore('chorus-twice.db');
      const answers = await Promise.all([send(), send()]);
      assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 409]);
      assert.equal(answers.find((answer) => answer.status === 200)?.data.stage, 'restarting');
      assert.match(answers.find((answer) => answer.status === 409)?.detail ?? '', /restore .* is under way/);
      // Not a database: checked at the restart, and the previous one stays in use.
      await chorus.waitFor(/restore failed; the previous database is in use/, 90_000);
      await until('the console after the restart', async () =>
        (await fetch(`${base}/api/health`).catch(() => null))?.ok ? true : undefined,
      );
    },
  );
});
