/**
 * A real release of this tree, applied by a real `chorus serve` under its supervisor: the test
 * builds the tree once as `npm run release` does and packs it as 0.1.0 and 0.1.1; 0.1.0 is
 * installed by scripts/install-release.sh in a release folder under the system's temporary folder
 * (`versions/0.1.0`, `current`, node_modules linked to the checkout's), 0.1.1 with its SHA256SUMS
 * is the feed's release (a stand-in feed on 127.0.0.1). Check → has update;
 * apply with restart → the supervisor restarts the service and /health reports 0.1.1; rollback
 * with restart → 0.1.0 again; the data folder is untouched throughout and the database intact.
 * Prints the time of the apply and of the restart.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { packRelease, stageRelease } from '../../src/app/release-tool.ts';
import { ReleaseFeed } from '../fixtures/release-feed.ts';
import { freePort } from '../support/chorus-process.ts';
import { SseClient } from '../support/sse-client.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
const WRITE = 'real-release-write-token';

describe('a real release applied by chorus serve', () => {
  it('check, apply with restart (/health reports the new version), rollback with restart; data untouched', async (t) => {
    // Its own temporary folder: the test needs nothing another test made.
    const work = await mkdtemp(join(tmpdir(), 'chorus-real-release-'));
    t.after(() => rm(work, { recursive: true, force: true }));
    // Both versions are what `npm run release` makes of this tree (one build, packed as 0.1.0 and
    // as 0.1.1); 0.1.0 is installed with the install script a user runs.
    const staged = await stageRelease(ROOT);
    t.after(() => staged.close());
    const [first, second] = [join(work, 'release-0.1.0'), join(work, 'release-0.1.1')];
    await packRelease(staged, '0.1.0', first);
    await packRelease(staged, '0.1.1', second);

    const root = join(work, 'chorus');
    await run('sh', [join(ROOT, 'scripts', 'install-release.sh'), join(first, 'chorus-0.1.0.tar.gz'), root], {
      env: { ...process.env, CHORUS_INSTALL_SKIP_NPM: '1' },
    });
    // The checkout's dependencies, linked: any file system, and the apply reuses them the same way.
    await symlink(await realpath(join(ROOT, 'node_modules')), join(root, 'versions', '0.1.0', 'node_modules'));

    const assets = new Map<string, Buffer>();
    for (const name of ['chorus-0.1.1.tar.gz', 'chorus-web-0.1.1.tar.gz', 'SHA256SUMS'])
      assets.set(name, await readFile(join(second, name)));
    const feed = await ReleaseFeed.start();
    t.after(() => feed.close());
    feed.releases = [{ release: { version: '0.1.1', tag: 'v0.1.1', assets } }];

    const port = await freePort();
    const chorus = spawn(
      process.execPath,
      [join(root, 'current', 'bin', 'chorus.js'), 'serve', '--project-dir', root],
      {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          CHORUS_PORT: String(port),
          CHORUS_CONSOLE_TOKEN: WRITE,
          CHORUS_UPDATE_FEED_URL: feed.url,
          CHORUS_DEPLOYMENT: 'release',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    chorus.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    chorus.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = once(chorus, 'exit');
    t.after(() => chorus.kill('SIGKILL'));

    const api = `http://127.0.0.1:${port}/chorus/api`;
    const headers = { 'x-chorus-token': WRITE };
    const health = async (): Promise<string | null> => {
      try {
        const response = await fetch(`${api}/health`);
        return response.ok ? ((await response.json()) as { version: string }).version : null;
      } catch {
        return null;
      }
    };
    const until = async (wanted: string): Promise<number> => {
      const started = Date.now();
      while ((await health()) !== wanted) {
        assert.ok(Date.now() - started < 90_000, `no ${wanted} on /health; output:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return Date.now() - started;
    };
    await until('0.1.0');
    await writeFile(join(root, 'data', 'sentinel.txt'), 'keep');

    const check = (await (await fetch(`${api}/update/bot/check`, { headers })).json()) as {
      data: Record<string, unknown>;
    };
    assert.equal(check.data.deployment, 'release');
    assert.equal(check.data.has_update, true);
    assert.equal(check.data.restart_available, true);

    const applyStarted = Date.now();
    const reply = (await (await fetch(`${api}/update/bot/apply?restart=true`, { method: 'POST', headers })).json()) as {
      data: { job_id: string };
    };
    const events = await SseClient.open(`${api}/update/jobs/${reply.data.job_id}/stream`, headers).untilEnd(120_000);
    const end = events.at(-1)?.data ?? {};
    assert.equal(end.type, 'complete', JSON.stringify(end));
    assert.equal((end.result as Record<string, unknown>).dependencies_reused, true);
    assert.equal((end.result as Record<string, unknown>).restart_scheduled, true);
    const applyMs = Date.now() - applyStarted;
    const restartMs = await until('0.1.1');
    assert.match(output, /restart requested: starting the service again/);

    const rolled = (await (
      await fetch(`${api}/update/bot/rollback?restart=true`, { method: 'POST', headers })
    ).json()) as {
      data: { version: string; restart_scheduled: boolean };
    };
    assert.deepEqual([rolled.data.version, rolled.data.restart_scheduled], ['0.1.0', true]);
    await until('0.1.0');

    chorus.kill('SIGTERM');
    assert.equal((await exited)[0], 0);
    assert.equal(await readFile(join(root, 'data', 'sentinel.txt'), 'utf8'), 'keep');
    const db = new Database(join(root, 'data', 'chorus.db'), { readonly: true });
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    db.close();
    console.log(
      `RESULT update:real-release apply_ms=${applyMs} restart_ms=${restartMs} total_ms=${applyMs + restartMs} (shared machine)`,
    );
  });
});
