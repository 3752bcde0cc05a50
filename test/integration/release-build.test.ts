/**
 * `npm run release` as a user runs it: twice from this tree, the same checksums; `sha256sum -c`
 * accepts SHA256SUMS; the bot archive unpacked into a release folder (`versions/<v>`, `current`)
 * runs the Dockerfile's own command (`bin/chorus.js serve` from `current`), its health check passes
 * and `/health` reports that version, and SIGTERM stops it with exit 0; the web archive holds the
 * console. (Dependencies come from this checkout by a link, as `npm ci --omit=dev` would install
 * them; /opt/chorus, the image's release folder, is a temporary folder here.)
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { changelogHasVersion } from '../../src/app/release-tool.ts';
import { freePort } from '../support/chorus-process.ts';
import { dockerfileInstructions, execForm } from '../support/dockerfile.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RELEASE_TOOL = join(ROOT, 'src', 'app', 'release-tool.ts');

it('the changelog check wants a heading for the version', () => {
  assert.ok(changelogHasVersion('# Changelog\n\n## 0.2.0\n\n- x\n', '0.2.0'));
  assert.ok(changelogHasVersion('## [v1.3.0-rc.1] - 2026-11-27\n', '1.3.0-rc.1'));
  assert.ok(!changelogHasVersion('## 0.2.0\n', '0.2'));
  assert.ok(!changelogHasVersion('- mentions 0.2.0\n', '0.2.0'));
});

it(
  'npm run release twice gives the same checksums; the archive runs from a release folder',
  { timeout: 600_000 },
  async (t) => {
    const work = await mkdtemp(join(tmpdir(), 'chorus-release-test-'));
    t.after(() => rm(work, { recursive: true, force: true }));
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const version = pkg.version;
    const outs = [join(work, 'first'), join(work, 'second')];
    // The members' time is HEAD's commit time; pinned here so that a commit made while the test
    // runs cannot tell the two builds apart.
    const epoch = (await run('git', ['log', '-1', '--format=%ct'], { cwd: ROOT })).stdout.trim();
    for (const out of outs) {
      // The command itself, as `npm run release -- --out DIR` runs it (it checks CHANGELOG.md too).
      await run(process.execPath, ['--import', 'tsx', RELEASE_TOOL, '--out', out], {
        cwd: ROOT,
        env: { ...process.env, SOURCE_DATE_EPOCH: epoch },
        maxBuffer: 16 * 1024 * 1024,
      });
    }
    const sums = await Promise.all(outs.map((out) => readFile(join(out, 'SHA256SUMS'), 'utf8')));
    assert.equal(sums[0], sums[1], 'the same tree gives the same checksums');
    assert.deepEqual(
      (sums[0] as string)
        .trim()
        .split('\n')
        .map((line) => line.split(/\s+/)[1])
        .sort(),
      [`chorus-${version}.tar.gz`, `chorus-web-${version}.tar.gz`],
    );
    const checked = await run('sha256sum', ['-c', 'SHA256SUMS'], { cwd: outs[0] });
    assert.match(checked.stdout, new RegExp(`chorus-${version}\\.tar\\.gz: OK`));

    // The guide's release folder (versions/<v>, current → it), made by the install script a user
    // runs; it checks the archive against SHA256SUMS first. Dependencies are linked, not installed.
    const root = join(work, 'chorus');
    const installedBy = await run(
      'sh',
      [join(ROOT, 'scripts', 'install-release.sh'), join(outs[0] as string, `chorus-${version}.tar.gz`), root],
      {
        env: { ...process.env, CHORUS_INSTALL_SKIP_NPM: '1' },
      },
    );
    assert.match(installedBy.stdout, new RegExp(`installed Chorus ${version.replace(/\./g, '\\.')}`));
    const installed = join(root, 'versions', version);
    for (const file of [
      'package.json',
      'package-lock.json',
      'bin/chorus.js',
      'dist/main.js',
      'web/dist/index.html',
      'CHANGELOG.md',
    ])
      assert.ok(existsSync(join(installed, file)), `the archive holds ${file}`);
    assert.equal(await readlink(join(root, 'current')), join('versions', version));
    await symlink(join(ROOT, 'node_modules'), join(installed, 'node_modules'));
    // A changed archive is refused before anything is unpacked.
    const tampered = join(work, 'tampered');
    await mkdir(tampered);
    await writeFile(
      join(tampered, `chorus-${version}.tar.gz`),
      Buffer.concat([await readFile(join(outs[0] as string, `chorus-${version}.tar.gz`)), Buffer.from([0])]),
    );
    await copyFile(join(outs[0] as string, 'SHA256SUMS'), join(tampered, 'SHA256SUMS'));
    await assert.rejects(
      run('sh', [
        join(ROOT, 'scripts', 'install-release.sh'),
        join(tampered, `chorus-${version}.tar.gz`),
        join(work, 'other'),
      ]),
      /does not match SHA256SUMS/,
    );
    assert.ok(!existsSync(join(work, 'other', 'versions', version)));
    await run('tar', ['-xzf', join(outs[0] as string, `chorus-web-${version}.tar.gz`), '-C', work]);
    assert.ok(existsSync(join(work, `chorus-web-${version}`, 'index.html')), 'the web archive holds the console');

    const port = await freePort();
    const dockerfile = dockerfileInstructions(await readFile(join(ROOT, 'Dockerfile'), 'utf8'));
    const inImage = (name: string) =>
      execForm(dockerfile.filter((step) => step.instruction === name).at(-1)?.arguments ?? '');
    const imageEnv = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      CHORUS_PORT: String(port),
      CHORUS_DEPLOYMENT: 'container',
    };
    const [command, ...commandArgs] = inImage('CMD').map((part) => part.replaceAll('/opt/chorus', root));
    assert.equal(command, 'node');
    const chorus = spawn(process.execPath, commandArgs, {
      env: { ...imageEnv, CHORUS_CONSOLE_TOKEN: 'release-test-token' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    chorus.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    chorus.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((resolve) => chorus.once('exit', resolve));
    t.after(async () => {
      if (chorus.exitCode === null) chorus.kill('SIGTERM');
      await exited;
    });
    const deadline = Date.now() + 60_000;
    let health: { version?: string } | null = null;
    while (health === null) {
      if (Date.now() > deadline || chorus.exitCode !== null)
        throw new Error(`no /health from the release; output:\n${output}`);
      health = await fetch(`http://127.0.0.1:${port}/chorus/api/health`)
        .then((response) => (response.ok ? (response.json() as Promise<{ version?: string }>) : null))
        .catch(() => null);
      if (health === null) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(health.version, version);
    const [checker, ...checkArgs] = inImage('HEALTHCHECK');
    assert.equal(checker, 'node');
    await run(process.execPath, checkArgs, { env: imageEnv }); // rejects on a non-zero exit
    chorus.kill('SIGTERM');
    assert.equal(await exited, 0, `chorus serve stops cleanly on SIGTERM; output:\n${output}`);
  },
);
