/**
 * Updating a source deployment through the console over a real port: the checkout is a clone of a
 * local bare repository (the stand-in upstream, test/fixtures/bot-repo.ts) whose build writes
 * dist/version.txt. History of tags and commits, applying a tag and a commit, a failing build that
 * goes back to the old commit, and local changes (safe refuses, force discards).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { createBotRepo, git, type BotRepo } from '../fixtures/bot-repo.ts';
import { SseClient, type SseMessage } from '../support/sse-client.ts';
import { dataOf, READ_TOKEN, startHarness, WRITE_TOKEN, type Harness } from '../unit/console/harness.ts';

async function setup(t: TestContext): Promise<{ h: Harness; repo: BotRepo; checkout: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-git-update-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const repo = await createBotRepo(dir);
  const checkout = join(dir, 'chorus');
  await repo.checkout(checkout, 'v0.1.0');
  const h = await startHarness(t, {
    env: { CHORUS_DEPLOYMENT: 'source' },
    update: {
      runningDir: checkout,
      runningVersion: '0.1.0',
      releaseRoot: null,
      timing: { heartbeatMs: 200, retryMs: 100 },
    },
  });
  return { h, repo, checkout };
}

async function apply(h: Harness, body: Record<string, unknown>): Promise<SseMessage> {
  const reply = await h.request('POST', '/update/git/bot/apply', { token: WRITE_TOKEN, body });
  const jobId = dataOf<{ job_id: string }>(reply).job_id;
  const events = await SseClient.open(`${h.api}/update/jobs/${jobId}/stream`, {
    'x-chorus-token': READ_TOKEN,
  }).untilEnd(60_000);
  return events.at(-1)!;
}

const head = (dir: string) => git(dir, 'rev-parse', 'HEAD');
const built = (dir: string) => readFile(join(dir, 'dist', 'version.txt'), 'utf8');

describe('source deployment updates', () => {
  it('history lists release tags newest first and the upstream commits, marking HEAD', async (t) => {
    const { h, repo } = await setup(t);
    const releases = dataOf<{ items: Record<string, unknown>[]; head: Record<string, unknown> }>(
      await h.request('GET', '/update/git/bot/history', { token: READ_TOKEN, query: { mode: 'release' } }),
    );
    assert.deepEqual(
      releases.items.map((item) => [item.ref, item.is_head, item.is_latest]),
      [
        ['v0.3.0', false, true],
        ['v0.2.0', false, false],
        ['v0.1.0', true, false],
      ],
    );
    assert.equal(releases.head.tag, 'v0.1.0');
    const commits = dataOf<{ items: Record<string, unknown>[] }>(
      await h.request('GET', '/update/git/bot/history', { token: READ_TOKEN, query: { mode: 'commit', limit: '2' } }),
    );
    assert.deepEqual(
      commits.items.map((item) => [item.ref, item.message]),
      [
        [repo.shas.get('0.2.1-dev'), 'version 0.2.1-dev'],
        [repo.shas.get('v0.3.0'), 'version 0.3.0'],
      ],
    );
  });

  it('applies a tag, then a commit; each is checked out and built', async (t) => {
    const { h, repo, checkout } = await setup(t);
    const toTag = await apply(h, { mode: 'release', ref: 'v0.2.0' });
    assert.equal(toTag.data.type, 'complete', JSON.stringify(toTag.data));
    assert.equal(await head(checkout), repo.shas.get('v0.2.0'));
    assert.equal(await built(checkout), '0.2.0');
    assert.ok((toTag.data.log_lines as string[]).includes('built 0.2.0'));

    const toCommit = await apply(h, { mode: 'commit', ref: repo.shas.get('0.2.1-dev') });
    assert.equal(toCommit.data.type, 'complete', JSON.stringify(toCommit.data));
    assert.equal(await head(checkout), repo.shas.get('0.2.1-dev'));
    assert.equal(await built(checkout), '0.2.1-dev');

    const same = await apply(h, { mode: 'commit', ref: repo.shas.get('0.2.1-dev') });
    assert.equal((same.data.result as Record<string, unknown>).changed, false);
  });

  it('a failing build goes back to the old commit and rebuilds it', async (t) => {
    const { h, repo, checkout } = await setup(t);
    const end = await apply(h, { mode: 'release', ref: 'v0.3.0' });
    assert.equal(end.data.type, 'error');
    assert.match(String(end.data.error), /npm run build failed \(exit 2\); the checkout is back at \w{7} \(rebuilt\)/);
    assert.equal(await head(checkout), repo.shas.get('v0.1.0'));
    assert.equal(await built(checkout), '0.1.0');
  });

  it('local changes: safe refuses and changes nothing; force discards them', async (t) => {
    const { h, repo, checkout } = await setup(t);
    await writeFile(join(checkout, 'build.js'), '// edited by hand\n');
    const safe = await apply(h, { mode: 'release', ref: 'v0.2.0' });
    assert.match(String(safe.data.error), /1 changed file\(s\).*nothing was changed/);
    assert.equal(await head(checkout), repo.shas.get('v0.1.0'));
    const forced = await apply(h, { mode: 'release', ref: 'v0.2.0', strategy: 'force' });
    assert.equal(forced.data.type, 'complete', JSON.stringify(forced.data));
    assert.equal(await built(checkout), '0.2.0');
  });

  it('an unknown tag or commit fails naming the ref', async (t) => {
    const { h } = await setup(t);
    assert.match(String((await apply(h, { mode: 'release', ref: 'v9.9.9' })).data.error), /ref: no tag v9\.9\.9/);
    assert.match(
      String((await apply(h, { mode: 'commit', ref: 'deadbeef' })).data.error),
      /ref: cannot resolve deadbeef/,
    );
  });
});
