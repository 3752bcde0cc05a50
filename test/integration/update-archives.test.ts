/**
 * Release archives as other packers make them, and archives made to hurt, applied through the
 * console over a real port from a stand-in feed on 127.0.0.1: an archive made the macOS way (pax
 * keywords GNU tar warns about, AppleDouble `._` files) installs; one that unpacks far beyond its
 * size (a file of zeros), one with too many members, a sparse member, a link and a `..` path are
 * refused by the rule that applies, naming it, with nothing left behind.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { buildRelease, ReleaseFeed, writeFakeApp, type BuildOptions } from '../fixtures/release-feed.ts';
import { SseClient, type SseMessage } from '../support/sse-client.ts';
import { dataOf, READ_TOKEN, startHarness, WRITE_TOKEN, type Harness } from '../unit/console/harness.ts';

const MiB = 1024 * 1024;
/** Longer than a tar header's 100-character name: pax `path` or a GNU long name. */
const LONG = `${'a'.repeat(60)}/${'b'.repeat(60)}`;
const TIMING = {
  feedTimeoutMs: 5000,
  downloadTimeoutMs: 5000,
  checkCacheMs: 0,
  heartbeatMs: 200,
  retryMs: 100,
  maxUnpackedBytes: 8 * MiB,
  maxUnpackedFiles: 50,
};

async function setup(t: TestContext, build: BuildOptions) {
  const work = await mkdtemp(join(tmpdir(), 'chorus-archives-'));
  t.after(() => rm(work, { recursive: true, force: true }));
  const release = await buildRelease(work, '0.2.0', build);
  const feed = await ReleaseFeed.start();
  t.after(() => feed.close());
  feed.releases = [{ release }];
  const root = join(work, 'release-root');
  const running = join(root, 'versions', '0.1.0');
  await writeFakeApp(running, '0.1.0');
  await mkdir(join(running, 'node_modules'), { recursive: true });
  await symlink(join('versions', '0.1.0'), join(root, 'current'));
  const h = await startHarness(t, {
    env: { CHORUS_UPDATE_FEED_URL: feed.url, CHORUS_DEPLOYMENT: 'release' },
    update: { releaseRoot: root, runningDir: running, runningVersion: '0.1.0', timing: TIMING },
  });
  return { h, root };
}

async function apply(h: Harness): Promise<SseMessage> {
  const reply = await h.request('POST', '/update/bot/apply', { token: WRITE_TOKEN });
  const jobId = dataOf<{ job_id: string }>(reply).job_id;
  const events = await SseClient.open(`${h.api}/update/jobs/${jobId}/stream`, {
    'x-chorus-token': READ_TOKEN,
  }).untilEnd();
  return events.at(-1)!;
}

async function assertNothingChanged(root: string): Promise<void> {
  assert.equal(await readlink(join(root, 'current')), 'versions/0.1.0');
  assert.deepEqual(await readdir(join(root, 'versions')), ['0.1.0'], 'no staging folder or version left');
  assert.deepEqual(await readdir(join(root, '.downloads')), [], 'no download left');
}

describe('release archives', () => {
  it('made the macOS way (pax keywords tar warns about, AppleDouble files) installs; the ._ files are not', async (t) => {
    const { h, root } = await setup(t, {
      addToBot: async (dir) => {
        const appleDouble = Buffer.from([0, 5, 22, 7, 0, 2, 0, 0]);
        await writeFile(join(dir, 'bin', '._chorus.js'), appleDouble);
        await mkdir(join(dir, LONG), { recursive: true });
        await writeFile(join(dir, LONG, 'deep.txt'), 'deep');
        await writeFile(join(dirname(dir), `._${dir.split('/').at(-1)}`), appleDouble);
      },
      botTarArgs: [
        '--format=pax',
        '--pax-option=LIBARCHIVE.xattr.com.apple.quarantine:=MDA4MTs2NTY0YjE3Yjs',
        '--pax-option=LIBARCHIVE.creationtime:=1700000000',
        '._chorus-0.2.0',
      ],
    });
    const end = await apply(h);
    assert.equal(end.data.type, 'complete', JSON.stringify(end.data));
    assert.equal(await readlink(join(root, 'current')), 'versions/0.2.0');
    assert.deepEqual((await readdir(join(root, 'versions', '0.2.0', 'bin'))).sort(), ['chorus.js']);
    assert.equal(await readFile(join(root, 'versions', '0.2.0', LONG, 'deep.txt'), 'utf8'), 'deep', 'pax path');
    assert.equal((await readdir(join(root, 'versions'))).filter((name) => name.startsWith('.')).length, 0);
  });

  it('a small archive that unpacks past the size cap (a file of zeros) is refused naming the cap', async (t) => {
    const { h, root } = await setup(t, {
      addToBot: async (dir) => {
        await writeFile(join(dir, 'zeros.bin'), '');
        await truncate(join(dir, 'zeros.bin'), 64 * MiB);
      },
    });
    const end = await apply(h);
    assert.equal(end.data.type, 'error', JSON.stringify(end.data));
    assert.match(String(end.data.error), /unpacks to more than 8388608 bytes: refused; nothing was changed/);
    await assertNothingChanged(root);
  });

  it('a sparse member (tar -S) is refused: its size in the archive is not what it unpacks to', async (t) => {
    const { h, root } = await setup(t, {
      addToBot: async (dir) => {
        await writeFile(join(dir, 'holes.bin'), 'x');
        await truncate(join(dir, 'holes.bin'), 4 * MiB);
      },
      botTarArgs: ['--sparse'],
    });
    const end = await apply(h);
    assert.match(String(end.data.error), /a sparse file: chorus-0\.2\.0\/holes\.bin; nothing was changed/);
    await assertNothingChanged(root);
  });

  it('made by GNU tar with long names (GNU long-name members) installs them under their full names', async (t) => {
    const { h, root } = await setup(t, {
      addToBot: async (dir) => {
        await mkdir(join(dir, LONG), { recursive: true });
        await writeFile(join(dir, LONG, 'deep.txt'), 'deep');
      },
      botTarArgs: ['--format=gnu'],
    });
    const end = await apply(h);
    assert.equal(end.data.type, 'complete', JSON.stringify(end.data));
    assert.equal(await readFile(join(root, 'versions', '0.2.0', LONG, 'deep.txt'), 'utf8'), 'deep');
  });

  it('made in the POSIX ustar format (long paths split into prefix and name) installs them whole', async (t) => {
    const { h, root } = await setup(t, {
      addToBot: async (dir) => {
        await mkdir(join(dir, LONG), { recursive: true });
        await writeFile(join(dir, LONG, 'deep.txt'), 'deep');
      },
      botTarArgs: ['--format=ustar'],
    });
    const end = await apply(h);
    assert.equal(end.data.type, 'complete', JSON.stringify(end.data));
    assert.equal(await readFile(join(root, 'versions', '0.2.0', LONG, 'deep.txt'), 'utf8'), 'deep');
  });

  it('more members than the cap is refused', async (t) => {
    const { h, root } = await setup(t, {
      addToBot: async (dir) => {
        await mkdir(join(dir, 'many'));
        for (let index = 0; index < 60; index++) await writeFile(join(dir, 'many', `${index}.txt`), `${index}`);
      },
    });
    const end = await apply(h);
    assert.match(String(end.data.error), /more than 50 members: refused; nothing was changed/);
    await assertNothingChanged(root);
  });

  it('a link member is refused as not a regular file or folder', async (t) => {
    const { h, root } = await setup(t, {
      addToBot: (dir) => symlink('/etc/passwd', join(dir, 'passwd')),
    });
    const end = await apply(h);
    assert.match(String(end.data.error), /not a regular file or folder: chorus-0\.2\.0\/passwd/);
    await assertNothingChanged(root);
  });

  it('a member path with .. is refused as unsafe', async (t) => {
    const { h, root } = await setup(t, {
      addToBot: async (dir) => {
        await writeFile(join(dirname(dir), 'evil.txt'), 'outside');
      },
      botTarArgs: ['--transform=s|^chorus-0.2.0/package.json$|chorus-0.2.0/../evil.txt|'],
    });
    const end = await apply(h);
    assert.match(String(end.data.error), /unsafe member path: chorus-0\.2\.0\/\.\.\/evil\.txt/);
    await assertNothingChanged(root);
  });
});
