/**
 * kill -9 during a bot release apply, at every step: the apply runs in its own process
 * (test/fixtures/update-apply-child.ts) against a release folder and a stand-in feed on 127.0.0.1,
 * and is killed with SIGKILL at a step (or mid-download, by the feed holding the archive). After
 * each kill, `current` names a complete version that starts (its `chorus migrate` runs), the data
 * folder is byte-identical, and the next apply (of another version) completes and clears what the
 * killed one left. Under strace, the staged version and the folder naming it are flushed (fsync)
 * before `current` is switched to it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { access, mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildRelease, ReleaseFeed, writeFakeApp, type BuiltRelease } from '../fixtures/release-feed.ts';

const CHILD = fileURLToPath(new URL('../fixtures/update-apply-child.ts', import.meta.url));
const KILL_POINTS = ['mid-download', 'downloaded', 'verified', 'unpacked', 'dependencies', 'switched', 'migrated'];

let work = '';
let releases: { first: BuiltRelease; next: BuiltRelease } | null = null;

/**
 * Built once for the file, inside the first test (root-level hooks would run before the suite is
 * set up). The apply after a kill installs another version, so what the killed one downloaded
 * does not share its names (and is not replaced by accident).
 */
async function prepare(): Promise<{ first: BuiltRelease; next: BuiltRelease }> {
  if (releases) return releases;
  work = await mkdtemp(join(tmpdir(), 'chorus-kill-'));
  releases = { first: await buildRelease(work, '0.2.0'), next: await buildRelease(work, '0.2.1') };
  return releases;
}
after(() => (work ? rm(work, { recursive: true, force: true }) : undefined));

async function installation(name: string) {
  const root = join(work, name);
  const running = join(root, 'versions', '0.1.0');
  await writeFakeApp(running, '0.1.0');
  await mkdir(join(running, 'node_modules', 'dep'), { recursive: true });
  await writeFile(join(running, 'node_modules', 'dep', 'index.js'), 'export default 1;\n');
  await symlink(join('versions', '0.1.0'), join(root, 'current'));
  const project = join(root, 'project');
  await mkdir(join(project, 'data'), { recursive: true });
  await writeFile(join(project, 'data', 'chorus.db'), Buffer.from('SQLite format 3\0 stand-in bytes of a database'));
  return { root, running, project };
}

function runChild(args: Record<string, unknown>) {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify(args)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return { child, exit, output: () => output };
}

async function digestOf(dir: string): Promise<string> {
  const hash = createHash('sha256');
  for (const name of (await readdir(dir)).sort()) hash.update(name).update(await readFile(join(dir, name)));
  return hash.digest('hex');
}

/** `current` names a whole version: its package.json holds the folder's version and it starts. */
async function assertComplete(root: string, project: string): Promise<string> {
  const target = await readlink(join(root, 'current'));
  const version = target.replace(/^versions\//, '');
  const pkg = JSON.parse(await readFile(join(root, 'current', 'package.json'), 'utf8')) as { version: string };
  assert.equal(pkg.version, version);
  await access(join(root, 'current', 'node_modules', 'dep', 'index.js'));
  const start = spawn(process.execPath, [
    join(root, 'current', 'bin', 'chorus.js'),
    'migrate',
    '--project-dir',
    project,
  ]);
  const [code] = (await once(start, 'exit')) as [number | null];
  assert.equal(code, 0, 'the current version starts');
  return version;
}

describe('kill -9 at each step of a bot release apply', () => {
  for (const point of KILL_POINTS) {
    it(`killed at ${point}: a complete version runs next, the data folder is intact, the next apply completes`, async (t) => {
      const feed = await ReleaseFeed.start();
      t.after(() => feed.close());
      const { first, next } = await prepare();
      feed.releases = [{ release: first }];
      const { root, running, project } = await installation(point);
      const dataBefore = await digestOf(join(project, 'data'));
      let releaseHold: () => void = () => undefined;
      if (point === 'mid-download')
        feed.holds.set('chorus-0.2.0.tar.gz', new Promise<void>((resolve) => (releaseHold = resolve)));
      const args = { root, runningDir: running, projectDir: project, feedUrl: feed.url, killAt: point };
      const run = runChild(args);
      if (point === 'mid-download') {
        let exited = false;
        void run.exit.then(() => (exited = true));
        while (!feed.requests.some((url) => url.endsWith('chorus-0.2.0.tar.gz'))) {
          assert.ok(!exited, `the apply ended before the download: ${run.output()}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        run.child.kill('SIGKILL');
      }
      const [code, signal] = await run.exit;
      releaseHold();
      assert.equal(signal, 'SIGKILL', `killed, not ended: code ${code}\n${run.output()}`);

      const expected = ['switched', 'migrated'].includes(point) ? '0.2.0' : '0.1.0';
      assert.equal(await assertComplete(root, project), expected);
      assert.equal(await digestOf(join(project, 'data')), dataBefore, 'data folder unchanged');

      if (expected === '0.1.0') {
        feed.holds.delete('chorus-0.2.0.tar.gz');
        feed.releases = [{ release: next }];
        const again = runChild({ ...args, killAt: null });
        const [againCode] = await again.exit;
        assert.equal(againCode, 0, again.output());
        assert.equal(await assertComplete(root, project), '0.2.1');
      }
      // Nothing the killed run left behind survives a completed apply (or was there to begin with).
      assert.deepEqual(
        (await readdir(join(root, 'versions'))).filter((name) => name.startsWith('.')),
        [],
        'no staging folder left',
      );
      assert.deepEqual(await readdir(join(root, '.downloads')), [], 'no download left');
    });
  }
});

const STRACE = '/usr/bin/strace';

describe('a power cut after the switch finds the new version on disk', () => {
  it('every file and folder of the staged version, and versions/, are fsynced before current is renamed', async (t) => {
    if (!existsSync(STRACE)) return t.skip('strace is not installed');
    const feed = await ReleaseFeed.start();
    t.after(() => feed.close());
    feed.releases = [{ release: (await prepare()).first }];
    const { root, running, project } = await installation('fsync');
    const trace = join(root, 'strace.txt');
    const args = { root, runningDir: running, projectDir: project, feedUrl: feed.url, killAt: null };
    const child = spawn(
      STRACE,
      [
        '-f',
        '-y',
        '-qq',
        '-e',
        'trace=fsync,fdatasync,rename,renameat,renameat2',
        '-o',
        trace,
        process.execPath,
        '--import',
        'tsx',
        CHILD,
        JSON.stringify(args),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0, output);

    const lines = (await readFile(trace, 'utf8')).split('\n');
    const switched = lines.findIndex((line) =>
      /rename(at2?)?\(.*"[^"]*\/current\.[0-9a-f]+\.new",.*"[^"]*\/current"/.test(line),
    );
    assert.ok(switched > 0, 'current was switched by a rename');
    // A call another thread interrupts is written `fsync(3</path> <unfinished ...>`, its result later.
    const flushed = new Set(
      lines.slice(0, switched).flatMap((line) => /\b(?:fsync|fdatasync)\(\d+<([^>]+)>/.exec(line)?.slice(1) ?? []),
    );
    const version = join(root, 'versions', '0.2.0');
    const expected = (await readdir(version, { recursive: true })).filter(
      (rel) => !rel.startsWith(`node_modules${sep}`),
    );
    assert.ok(expected.includes(join('bin', 'chorus.js')));
    const staged = [...flushed].filter((path) => path.includes('/chorus-0.2.0/') || path.endsWith('/chorus-0.2.0'));
    for (const rel of ['', ...expected]) {
      const suffix = rel === '' ? '/chorus-0.2.0' : `/chorus-0.2.0/${rel}`;
      assert.ok(
        staged.some((path) => path.endsWith(suffix)),
        `${rel || 'the version folder'} was not fsynced before the switch`,
      );
    }
    assert.ok(flushed.has(join(root, 'versions')), 'versions/, which names the new version, was fsynced');
  });
});
