/**
 * Updates of a release deployment through the console over a real port. The release feed is a
 * stand-in on 127.0.0.1 serving GitHub's releases JSON and archives built by the test (a tiny
 * Chorus-shaped app and a web console, with SHA256SUMS); the release folder is a temporary
 * `versions/<v>` + `current` layout. Covers the checks (no feed, stable and pre-release tracks),
 * applying the bot (node_modules reused, migrations run, data folder untouched) and rolling back,
 * the web console served from the new dist without a restart, refusals (wrong checksum, truncated
 * archive, a feed that stalls, a failing migration, one job at a time, source and container
 * deployments), and a job stream that resumes after a reconnect.
 */
import assert from 'node:assert/strict';
import { cp, mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { buildRelease, ReleaseFeed, writeFakeApp, type BuiltRelease } from '../fixtures/release-feed.ts';
import { SseClient, type SseMessage } from '../support/sse-client.ts';
import { dataOf, READ_TOKEN, startHarness, WRITE_TOKEN, type Harness } from '../unit/console/harness.ts';

const TIMING = { feedTimeoutMs: 1500, downloadTimeoutMs: 1500, checkCacheMs: 0, heartbeatMs: 200, retryMs: 100 };

interface Setup {
  h: Harness;
  feed: ReleaseFeed;
  root: string;
  work: string;
  v020: BuiltRelease;
}

let built: { work: string; v020: BuiltRelease; v030rc: BuiltRelease; v019: BuiltRelease } | null = null;

/** The releases are built once for the file (tar and hashing take a moment on a shared machine). */
async function releases() {
  if (built) return built;
  const work = await mkdtemp(join(tmpdir(), 'chorus-releases-'));
  built = {
    work,
    v020: await buildRelease(work, '0.2.0'),
    v030rc: await buildRelease(work, '0.3.0-rc.1'),
    v019: await buildRelease(work, '0.1.9'),
  };
  return built;
}

async function setup(
  t: TestContext,
  options: {
    env?: Record<string, string>;
    feed?: boolean;
    releaseRoot?: boolean;
    oldMigrateFails?: boolean;
    timing?: Record<string, number>;
    /** The running bot's version (default 0.1.0) and the folder of the console it carries. */
    runningVersion?: string;
    webRoot?: string;
  } = {},
): Promise<Setup> {
  const { work, v020, v030rc, v019 } = await releases();
  const feed = await ReleaseFeed.start();
  t.after(() => feed.close());
  feed.releases = [{ release: v019 }, { release: v020 }, { release: v030rc, prerelease: true }];
  const root = await mkdtemp(join(tmpdir(), 'chorus-release-root-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  // The installed version 0.1.0 with its dependencies.
  const running = join(root, 'versions', '0.1.0');
  await writeFakeApp(running, '0.1.0', { migrateFails: options.oldMigrateFails ?? false });
  await mkdir(join(running, 'node_modules', 'dep'), { recursive: true });
  await writeFile(join(running, 'node_modules', 'dep', 'index.js'), 'export default 1;\n');
  await symlink(join('versions', '0.1.0'), join(root, 'current'));
  const h = await startHarness(t, {
    env: {
      ...(options.feed === false ? {} : { CHORUS_UPDATE_FEED_URL: feed.url }),
      CHORUS_DEPLOYMENT: 'release',
      ...options.env,
    },
    update: {
      releaseRoot: options.releaseRoot === false ? null : root,
      runningDir: running,
      runningVersion: options.runningVersion ?? '0.1.0',
      timing: { ...TIMING, ...options.timing },
    },
    ...(options.webRoot ? { webRoot: options.webRoot } : {}),
  });
  return { h, feed, root, work, v020 };
}

const get = async (h: Harness, path: string) =>
  dataOf<Record<string, unknown>>(await h.request('GET', path, { token: READ_TOKEN }));
const post = (h: Harness, path: string, query: Record<string, string> = {}) =>
  h.request('POST', path, { token: WRITE_TOKEN, query });
const stream = (h: Harness, jobId: string) =>
  SseClient.open(`${h.api}/update/jobs/${jobId}/stream`, { 'x-chorus-token': READ_TOKEN });

async function runJob(h: Harness, path: string, query: Record<string, string> = {}): Promise<SseMessage> {
  const reply = await post(h, path, query);
  const jobId = dataOf<{ job_id: string }>(reply).job_id;
  const events = await stream(h, jobId).untilEnd();
  assert.equal(events[0]?.data.type, 'ready');
  assert.equal(events.filter((event) => ['complete', 'error'].includes(event.data.type as string)).length, 1);
  return events.at(-1)!;
}

const current = (root: string) => readlink(join(root, 'current')).catch(() => null);
const listing = async (dir: string) => (await readdir(dir)).sort();

describe('update checks', () => {
  it('answer configured=false without a feed, never an error; apply is refused naming the setting', async (t) => {
    const { h } = await setup(t, { feed: false });
    for (const path of ['/update/check', '/update/bot/check']) {
      const check = await get(h, path);
      assert.equal(check.configured, false);
      assert.equal(check.has_update, false);
      assert.equal(check.error, null);
    }
    const refused = await post(h, '/update/bot/apply');
    assert.equal(refused.status, 409);
    assert.match((refused.json as { detail: string }).detail, /CHORUS_UPDATE_FEED_URL/);
  });

  it('stable track: the newest stable release by semantic version, drafts and pre-releases skipped', async (t) => {
    const { h, feed } = await setup(t);
    const { work } = await releases();
    feed.releases.push({ release: await buildRelease(work, '9.9.9'), draft: true });
    const bot = await get(h, '/update/bot/check');
    assert.equal(bot.configured, true);
    assert.equal(bot.latest_tag, 'v0.2.0');
    assert.equal(bot.has_update, true);
    assert.equal(bot.deployment, 'release');
    assert.equal(bot.current_version, '0.1.0');
    assert.equal(bot.can_apply, true);
    assert.equal(bot.release_notes, 'notes of 0.2.0');
    const web = await get(h, '/update/check');
    assert.equal(web.latest_version, '0.2.0');
    assert.match(String(web.asset_url), /chorus-web-0\.2\.0\.tar\.gz$/);
  });

  it('pre-release track: 0.3.0-rc.1 is newer than 0.2.0', async (t) => {
    const { h } = await setup(t, { env: { CHORUS_UPDATE_TRACK: 'prerelease' } });
    const bot = await get(h, '/update/bot/check');
    assert.equal(bot.latest_version, '0.3.0-rc.1');
    assert.equal(bot.has_update, true);
  });

  it('a feed that does not answer: the check says why within the timeout; apply fails, nothing changed', async (t) => {
    const { h, feed, root } = await setup(t);
    feed.faults.set('feed', 'stall');
    const started = Date.now();
    const bot = await get(h, '/update/bot/check');
    assert.ok(Date.now() - started < 5000);
    assert.match(String(bot.error), /did not answer within 1500 ms/);
    assert.equal(bot.has_update, false);
    const end = await runJob(h, '/update/bot/apply');
    assert.equal(end.data.type, 'error');
    assert.match(String(end.data.error), /did not answer.*nothing was changed/);
    assert.equal(await current(root), 'versions/0.1.0');
  });
  it('a feed answering a huge body: refused past the cap with a clear error; memory stays near idle', async (t) => {
    // A shared machine reads a few MB a second here: time enough to reach the cap.
    const { h, feed, root } = await setup(t, { timing: { feedTimeoutMs: 60_000 } });
    feed.faults.set('feed', 'huge');
    const idle = process.memoryUsage.rss();
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
    t.after(() => clearInterval(sampler));
    const web = await get(h, '/update/check');
    const bot = await get(h, '/update/bot/check');
    peak = Math.max(peak, process.memoryUsage.rss());
    clearInterval(sampler);
    for (const check of [web, bot]) {
      assert.match(String(check.error), /release feed answer is larger than 8388608 bytes: refused/);
      assert.equal(check.has_update, false);
    }
    const end = await runJob(h, '/update/bot/apply');
    assert.match(String(end.data.error), /larger than 8388608 bytes: refused; nothing was changed/);
    assert.equal(await current(root), 'versions/0.1.0');
    const grewMb = (peak - idle) / 1024 / 1024;
    console.log(`RESULT update:huge-feed idle_rss_mb=${Math.round(idle / 1024 / 1024)} grew_mb=${grewMb.toFixed(1)}`);
    assert.ok(grewMb < 100, `RSS grew ${grewMb.toFixed(1)} MB reading the feed`);
  });
});

describe('bot release apply and rollback', () => {
  it('stages, reuses node_modules, switches current, migrates; the data folder is untouched; rollback goes back', async (t) => {
    const { h, root } = await setup(t);
    const dataDir = h.config.current().dataDir;
    await writeFile(join(dataDir, 'sentinel.txt'), 'keep me');
    const dataBefore = await listing(dataDir);

    const end = await runJob(h, '/update/bot/apply');
    assert.equal(end.data.type, 'complete', JSON.stringify(end.data));
    const result = end.data.result as Record<string, unknown>;
    assert.equal(result.version, '0.2.0');
    assert.equal(result.previous_version, '0.1.0');
    assert.equal(result.dependencies_reused, true);
    assert.equal(result.restart_scheduled, false);
    assert.equal(await current(root), 'versions/0.2.0');
    assert.equal(await readlink(join(root, 'previous')), 'versions/0.1.0');
    const pkg = JSON.parse(await readFile(join(root, 'current', 'package.json'), 'utf8')) as { version: string };
    assert.equal(pkg.version, '0.2.0');
    // Hard links of the running version's dependencies, not copies.
    const [oldDep, newDep] = await Promise.all(
      ['0.1.0', '0.2.0'].map((v) => stat(join(root, 'versions', v, 'node_modules', 'dep', 'index.js'))),
    );
    assert.equal(newDep?.ino, oldDep?.ino);
    assert.equal(await readFile(join(h.dir, 'migrations.log'), 'utf8'), 'migrated 0.2.0\n');
    assert.deepEqual(await listing(join(root, 'versions')), ['0.1.0', '0.2.0'], 'no staging leftovers');
    assert.deepEqual(await listing(dataDir), dataBefore, 'nothing added to the data folder');
    assert.equal(await readFile(join(dataDir, 'sentinel.txt'), 'utf8'), 'keep me');

    const after = await get(h, '/update/bot/check');
    assert.equal(after.current_version, '0.2.0');
    assert.equal(after.running_version, '0.1.0');
    assert.equal(after.restart_pending, true);
    assert.equal(after.has_update, false);
    assert.equal(after.can_rollback, true);
    assert.equal(after.previous_version, '0.1.0');

    const again = await runJob(h, '/update/bot/apply');
    assert.match(String(again.data.error), /already installed/);

    const rolled = dataOf<Record<string, unknown>>(await post(h, '/update/bot/rollback'));
    assert.equal(rolled.version, '0.1.0');
    assert.equal(await current(root), 'versions/0.1.0');
    assert.equal(await readlink(join(root, 'previous')), 'versions/0.2.0');
    const back = await get(h, '/update/bot/check');
    assert.equal(back.current_version, '0.1.0');
    assert.equal(back.restart_pending, false);
    assert.equal(back.has_update, true);
  });

  for (const fault of ['corrupt', 'truncate', 'stall'] as const) {
    it(`an archive that is ${fault === 'stall' ? 'never finished' : fault + 'd'} is refused with a clear detail; nothing changes`, async (t) => {
      const { h, feed, root } = await setup(t);
      feed.faults.set('chorus-0.2.0.tar.gz', fault);
      const end = await runJob(h, '/update/bot/apply');
      assert.equal(end.data.type, 'error');
      const detail = String(end.data.error);
      const expected = {
        corrupt: /checksum mismatch for chorus-0\.2\.0\.tar\.gz/,
        truncate: /truncated: the connection closed after \d+ of \d+ bytes/,
        stall: /within 1500 ms/,
      }[fault];
      assert.match(detail, expected);
      assert.match(detail, /nothing was changed/);
      assert.equal(await current(root), 'versions/0.1.0');
      assert.deepEqual(await listing(join(root, 'versions')), ['0.1.0']);
      assert.deepEqual(await readdir(join(root, '.downloads')), [], 'no partial download left');
    });
  }

  it('rollback is refused, nothing changed, when the previous version cannot run on the migrated database', async (t) => {
    const { h, root } = await setup(t, { oldMigrateFails: true });
    const end = await runJob(h, '/update/bot/apply');
    assert.equal(end.data.type, 'complete', JSON.stringify(end.data));
    const refused = await post(h, '/update/bot/rollback');
    assert.equal(refused.status, 409);
    assert.match(
      (refused.json as { detail: string }).detail,
      /0\.1\.0 cannot run on this database \(migration 9999 failed\): restore a backup .*nothing was changed/,
    );
    assert.equal(await current(root), 'versions/0.2.0');
  });

  it('two rollbacks at once: one goes back, the other is 409 update_busy; current moved once', async (t) => {
    const { h, root } = await setup(t);
    const end = await runJob(h, '/update/bot/apply');
    assert.equal(end.data.type, 'complete', JSON.stringify(end.data));
    // Two real requests on two connections, in flight together.
    const replies = await Promise.all([post(h, '/update/bot/rollback'), post(h, '/update/bot/rollback')]);
    const statuses = replies.map((reply) => reply.status).sort();
    assert.deepEqual(statuses, [200, 409], JSON.stringify(replies.map((reply) => reply.json)));
    const refused = replies.find((reply) => reply.status === 409)!;
    assert.match((refused.json as { detail: string }).detail, /update_busy/);
    assert.equal(await current(root), 'versions/0.1.0');
    assert.equal(await readlink(join(root, 'previous')), 'versions/0.2.0');
    assert.equal(await get(h, '/update/jobs/active'), null, 'the slot is free again');
  });

  it('a failing migration switches current back', async (t) => {
    const { h, feed, root } = await setup(t);
    const { work } = await releases();
    feed.releases = [{ release: await buildRelease(join(work, 'failing'), '0.2.1', { migrateFails: true }) }];
    await mkdir(join(work, 'failing'), { recursive: true });
    const end = await runJob(h, '/update/bot/apply');
    assert.equal(end.data.type, 'error');
    assert.match(String(end.data.error), /migrations of 0\.2\.1 failed \(exit 3\); current is 0\.1\.0 again/);
    assert.ok((end.data.log_lines as string[]).includes('migration 9999 failed'));
    assert.equal(await current(root), 'versions/0.1.0');
  });

  it('one update job at a time: a second apply is 409 update_busy; rollback waits too', async (t) => {
    const { h, feed } = await setup(t);
    let release!: () => void;
    feed.holds.set('chorus-0.2.0.tar.gz', new Promise<void>((resolve) => (release = resolve)));
    const first = dataOf<{ job_id: string }>(await post(h, '/update/bot/apply')).job_id;
    const second = await post(h, '/update/bot/apply');
    assert.equal(second.status, 409);
    assert.match((second.json as { detail: string }).detail, /update_busy/);
    assert.equal((await post(h, '/update/apply')).status, 409);
    assert.equal((await post(h, '/update/bot/rollback')).status, 409);
    const active = await get(h, '/update/jobs/active');
    assert.equal(active.job_id, first);

    // A reader that hangs up mid-job and reconnects gets the whole history again, then the end.
    const early = stream(h, first);
    await early.waitFor((event) => /downloading chorus-0\.2\.0/.test(String(event.data.message)));
    early.close();
    release();
    const later = await stream(h, first).untilEnd();
    assert.equal(later[0]?.data.type, 'ready');
    assert.ok(
      later.some((event) => event.data.message === 'started'),
      'replayed from the start',
    );
    assert.equal(later.at(-1)?.data.type, 'complete');
    assert.equal((await get(h, `/update/jobs/${first}`)).phase, 'done');
    assert.equal((await h.request('GET', '/update/jobs/nope', { token: READ_TOKEN })).status, 404);
  });
});

describe('deployment kinds', () => {
  it('source: bot release apply is refused with what to do instead', async (t) => {
    const { h } = await setup(t, { env: { CHORUS_DEPLOYMENT: 'source' } });
    const reply = await post(h, '/update/bot/apply');
    assert.equal(reply.status, 409);
    assert.match((reply.json as { detail: string }).detail, /source \(git\) deployment/);
    const check = await get(h, '/update/bot/check');
    assert.equal(check.can_apply, false);
    assert.equal(check.apply_refusal_code, 'source_deployment', 'the console words the code');
  });

  it('container without a release folder: refused, the detail says what to run on the host', async (t) => {
    const { h } = await setup(t, { env: { CHORUS_DEPLOYMENT: 'container' }, releaseRoot: false });
    const reply = await post(h, '/update/bot/apply');
    assert.equal(reply.status, 409);
    assert.match((reply.json as { detail: string }).detail, /docker compose pull/);
    assert.equal((await get(h, '/update/bot/check')).apply_refusal_code, 'container_image');
  });

  it('container with a release folder: the official release overwrite is allowed', async (t) => {
    const { h, root } = await setup(t, { env: { CHORUS_DEPLOYMENT: 'container' } });
    const end = await runJob(h, '/update/bot/apply');
    assert.equal(end.data.type, 'complete', JSON.stringify(end.data));
    assert.equal(await current(root), 'versions/0.2.0');
  });

  it('container: commit mode and force are refused at request time with 409; a release by tag is applied', async (t) => {
    const { h, root } = await setup(t, { env: { CHORUS_DEPLOYMENT: 'container' } });
    const gitApply = (body: Record<string, unknown>) =>
      h.request('POST', '/update/git/bot/apply', { token: WRITE_TOKEN, body });
    const commit = await gitApply({ mode: 'commit', ref: 'abc1234' });
    assert.equal(commit.status, 409);
    assert.match((commit.json as { detail: string }).detail, /only by official releases.*docker compose pull/);
    const force = await gitApply({ mode: 'release', ref: 'v0.2.0', strategy: 'force' });
    assert.equal(force.status, 409);
    assert.match((force.json as { detail: string }).detail, /no git checkout to force/);
    assert.equal(await current(root), 'versions/0.1.0');

    const history = dataOf<{ items: { ref: string; is_latest: boolean }[]; head: { tag: string } }>(
      await h.request('GET', '/update/git/bot/history', { token: READ_TOKEN, query: { mode: 'release' } }),
    );
    assert.deepEqual(
      history.items.map((item) => item.ref),
      ['v0.2.0', 'v0.1.9'],
    );
    assert.equal(history.head.tag, '0.1.0');
    const commits = dataOf<{ items: unknown[] }>(
      await h.request('GET', '/update/git/bot/history', { token: READ_TOKEN, query: { mode: 'commit' } }),
    );
    assert.deepEqual(commits.items, []);

    const jobId = dataOf<{ job_id: string }>(await gitApply({ mode: 'release', ref: 'v0.1.9' })).job_id;
    const end = (await stream(h, jobId).untilEnd()).at(-1)!;
    assert.equal(end.data.type, 'complete', JSON.stringify(end.data));
    assert.equal(await current(root), 'versions/0.1.9');
  });
});

describe('web console release', () => {
  it('is verified, switched and served at once, without a restart', async (t) => {
    const { h } = await setup(t);
    const before = await get(h, '/update/check');
    assert.equal(before.has_update, true);
    const end = await runJob(h, '/update/apply');
    assert.equal(end.data.type, 'complete', JSON.stringify(end.data));
    const page = await fetch(`${h.origin}/chorus/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /web 0\.2\.0/);
    const asset = await fetch(`${h.origin}/chorus/assets/app-0.2.0.js`);
    assert.equal(asset.status, 200);
    assert.equal(await asset.text(), "console.log('0.2.0');");
    const after = await get(h, '/update/check');
    assert.equal(after.current_version, '0.2.0');
    assert.equal(after.has_update, false);
  });

  it('a bot update brings its own console: an older installed release no longer pins the UI', async (t) => {
    const bundled = async (version: string) => {
      const dir = await mkdtemp(join(tmpdir(), `chorus-bundled-${version}-`));
      t.after(() => rm(dir, { recursive: true, force: true }));
      await writeFile(join(dir, 'index.html'), `<!doctype html><title>bundled ${version}</title>`);
      return dir;
    };
    // Bot 0.1.0 installs web console 0.2.0 from the feed: the newer installed release is served.
    const before = await setup(t, { webRoot: await bundled('0.1.0') });
    const end = await runJob(before.h, '/update/apply');
    assert.equal(end.data.type, 'complete', JSON.stringify(end.data));
    assert.match(await (await fetch(`${before.h.origin}/chorus/`)).text(), /web 0\.2\.0/);
    const installed = await get(before.h, '/update/check');
    assert.deepEqual(
      [installed.current_version, installed.bundled_version, installed.installed_version, installed.serving],
      ['0.2.0', '0.1.0', '0.2.0', 'installed'],
    );

    // The bot is updated to 0.3.0 and restarts over the same data folder: its own console is served.
    const after = await setup(t, { runningVersion: '0.3.0', webRoot: await bundled('0.3.0') });
    const webConsole = (h: Harness) => join(h.config.current().dataDir, 'web-console');
    await cp(webConsole(before.h), webConsole(after.h), { recursive: true, verbatimSymlinks: true });
    const page = await (await fetch(`${after.h.origin}/chorus/`)).text();
    assert.match(page, /bundled 0\.3\.0/);
    const check = await get(after.h, '/update/check');
    assert.deepEqual(
      [check.current_version, check.bundled_version, check.installed_version, check.serving, check.has_update],
      ['0.3.0', '0.3.0', '0.2.0', 'bundled', false],
    );
    // Installing the feed's 0.2.0 again would not be served: refused, nothing changed.
    const refused = await runJob(after.h, '/update/apply');
    assert.match(String(refused.data.error), /0\.2\.0 is not newer than the one this bot carries \(0\.3\.0\)/);
  });

  it('a corrupt web archive changes nothing', async (t) => {
    const { h, feed } = await setup(t);
    feed.faults.set('chorus-web-0.2.0.tar.gz', 'corrupt');
    const end = await runJob(h, '/update/apply');
    assert.match(String(end.data.error), /checksum mismatch/);
    assert.equal((await get(h, '/update/check')).current_version, '0.1.0');
  });
});
