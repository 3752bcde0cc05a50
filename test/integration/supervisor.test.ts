/**
 * The supervisor of `chorus serve`. With a stand-in service (a small script in a release-shaped
 * folder that logs each start and does what a control file says): a restart request starts the
 * version `current` names, a crash is retried with a doubling back-off, a configuration error is
 * not retried, a container restart exits 75, SIGTERM stops both. With the real `chorus serve`:
 * kill -9 of the service brings it back, kill -9 of the supervisor stops the service.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { promisify } from 'node:util';
import { RESTART_EXIT_CODE, supervise } from '../../src/app/supervisor.ts';
import { freePort, runChorus } from '../support/chorus-process.ts';

const STAND_IN = `
import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
const here = dirname(fileURLToPath(import.meta.url));
const control = process.env.CONTROL_DIR;
const log = (line) => appendFileSync(join(control, 'log'), line + '\\n');
const version = readFileSync(join(here, 'VERSION'), 'utf8').trim();
log('start ' + version + ' supervised=' + process.env.CHORUS_SUPERVISED);
process.on('SIGTERM', () => { log('stop ' + version); process.exit(0); });
const actionFile = join(control, 'action');
setInterval(() => {
  const action = existsSync(actionFile) ? readFileSync(actionFile, 'utf8').trim() : '';
  if (action === 'crash') process.exit(1);
  if (action === 'usage') process.exit(2);
  if (action.startsWith('restart')) {
    rmSync(actionFile);
    process.send({ type: 'chorus:restart', container: action === 'restart-container' });
  }
}, 20);
`;

async function standIn(t: TestContext) {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-supervisor-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  for (const version of ['0.1.0', '0.2.0']) {
    await mkdir(join(dir, 'versions', version), { recursive: true });
    await writeFile(join(dir, 'versions', version, 'service.mjs'), STAND_IN);
    await writeFile(join(dir, 'versions', version, 'VERSION'), version);
  }
  await symlink(join('versions', '0.1.0'), join(dir, 'current'));
  const control = join(dir, 'control');
  await mkdir(control);
  const messages: string[] = [];
  // The back-offs asked for: the schedule is checked from these, not from the wall clock.
  const waits: number[] = [];
  const run = () =>
    supervise({
      program: () => ({ command: process.execPath, args: [join(dir, 'current', 'service.mjs')] }),
      env: { ...process.env, CONTROL_DIR: control },
      log: (_level, message) => messages.push(message),
      backoff: { firstMs: 100, maxMs: 400, healthyMs: 60_000 },
      graceMs: 50,
      wait: async (ms) => {
        waits.push(ms);
      },
    });
  const log = async () =>
    (await readFile(join(control, 'log'), 'utf8').catch(() => '')).trim().split('\n').filter(Boolean);
  const until = async (condition: (lines: string[]) => boolean, what: string) => {
    // Each start is a node process: seconds apiece on a loaded machine.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const lines = await log();
      if (condition(lines)) return lines;
      assert.ok(Date.now() < deadline, `timed out waiting for ${what}; log: ${lines.join(' | ')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const action = (text: string) => writeFile(join(control, 'action'), text);
  return { dir, messages, waits, run, log, until, action };
}

describe('supervisor with a stand-in service', () => {
  it('a restart request starts the version current names; SIGTERM stops both with exit 0', async (t) => {
    const s = await standIn(t);
    const done = s.run();
    await s.until((lines) => lines.length === 1, 'the first start');
    // An update switched current, then the service asks for a restart.
    const fresh = join(s.dir, 'current.new');
    await symlink(join('versions', '0.2.0'), fresh);
    await rename(fresh, join(s.dir, 'current'));
    await s.action('restart');
    await s.until((lines) => lines.includes('start 0.2.0 supervised=1'), 'the new version');
    assert.deepEqual(await s.log(), ['start 0.1.0 supervised=1', 'stop 0.1.0', 'start 0.2.0 supervised=1']);
    process.emit('SIGTERM', 'SIGTERM');
    assert.equal(await done, 0);
    assert.deepEqual((await s.log()).at(-1), 'stop 0.2.0');
  });

  it('a crash is retried after a doubling back-off; a configuration error (exit 2) is not', async (t) => {
    const s = await standIn(t);
    await s.action('crash');
    const done = s.run();
    await s.until((lines) => lines.length >= 4, 'four starts');
    await s.action('usage');
    assert.equal(await done, 2);
    // Every crash before the configuration error waited once: doubling from 100 ms, capped at 400.
    const starts = (await s.log()).length;
    const schedule = Array.from({ length: starts - 1 }, (_, i) => Math.min(100 * 2 ** i, 400));
    assert.deepEqual(s.waits, schedule);
    assert.deepEqual(
      s.messages,
      schedule.map((ms) => `the service exited unexpectedly (code 1); starting it again in ${ms} ms`),
    );
  });

  it('under a container a restart request ends the supervisor with 75', async (t) => {
    const s = await standIn(t);
    const done = s.run();
    await s.until((lines) => lines.length === 1, 'the first start');
    await s.action('restart-container');
    assert.equal(await done, RESTART_EXIT_CODE);
    assert.deepEqual(await s.log(), ['start 0.1.0 supervised=1', 'stop 0.1.0']);
  });
});

const children = async (pid: number): Promise<number[]> => {
  const { stdout } = await promisify(execFile)('ps', ['-o', 'pid=', '--ppid', String(pid)]).catch(() => ({
    stdout: '',
  }));
  return stdout
    .split('\n')
    .map((line) => Number(line.trim()))
    .filter((n) => n > 0);
};
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('chorus serve under its supervisor (real processes)', () => {
  it('kill -9 of the service: started again; kill -9 of the supervisor: the service stops', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'chorus-serve-supervised-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const port = await freePort();
    const chorus = runChorus(['serve', '--project-dir', dir], {
      CHORUS_PORT: String(port),
      CHORUS_CONSOLE_TOKEN: 'supervised-token-123',
    });
    t.after(() => chorus.child.kill('SIGKILL'));
    await chorus.waitFor(/console listening at/, 60_000);
    const supervisor = chorus.child.pid as number;
    const [service] = await children(supervisor);
    assert.ok(service, 'the service runs in a child of the supervisor');
    const health = () =>
      fetch(`http://127.0.0.1:${port}/chorus/api/health`).then(
        (r) => r.status,
        () => 0,
      );
    assert.equal(await health(), 200);

    process.kill(service, 'SIGKILL');
    await chorus.waitFor(/the service exited unexpectedly \(SIGKILL\); starting it again in 1000 ms/);
    const deadline = Date.now() + 60_000;
    while ((await health()) !== 200) {
      assert.ok(Date.now() < deadline, `not back: ${chorus.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const [again] = await children(supervisor);
    assert.ok(again && again !== service, 'a new service process');

    process.kill(supervisor, 'SIGKILL');
    const stopBy = Date.now() + 20_000;
    while (alive(again) || (await health()) !== 0) {
      assert.ok(Date.now() < stopBy, 'the service stops when its supervisor is gone');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
});
