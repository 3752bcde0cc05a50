/**
 * Hand edits of `.env` and `chorus.toml` while `chorus serve` runs (docs/rules.md#cfg-watch), with
 * a real child process: an editor-style save (a new file renamed over the old) changes the running
 * value within seconds, seen on `/api/health`, in `chorus config`'s source column and in what the
 * console accepts; the log names the keys, never the values; an edit that does not load keeps the
 * running configuration and says why.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { freePort, runChorus } from '../support/chorus-process.ts';

const FIRST = 'first-console-token-1';
const SECOND = 'second-console-token-2';

interface ConfigHealth {
  reloads: number;
  reload_failed: number;
  last_change: { changed_keys: string[]; failed_steps: string[] } | null;
}

/** As an editor saves: a new file, renamed over the old one. */
async function save(path: string, text: string): Promise<void> {
  await writeFile(`${path}.tmp-edit`, text);
  await rename(`${path}.tmp-edit`, path);
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it(
  'an edit of .env applies while running; a broken edit keeps the running configuration',
  { timeout: 180_000 },
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'chorus-config-watch-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const port = await freePort();
    await writeFile(join(dir, 'chorus.toml'), `CHORUS_PORT = ${port}\n`);
    const chorus = runChorus(['serve', '--project-dir', dir], { CHORUS_CONSOLE_TOKEN: FIRST });
    t.after(async () => {
      chorus.child.kill('SIGTERM');
      await chorus.exited;
    });
    await chorus.waitFor(/console listening at/, 120_000);
    const api = `http://127.0.0.1:${port}/chorus/api`;
    const health = async () => ((await (await fetch(`${api}/health`)).json()) as { config: ConfigHealth }).config;
    const status = (token: string) =>
      fetch(`${api}/plugins`, { headers: { 'x-chorus-token': token } }).then((r) => r.status);
    const sourceOfToken = async () => {
      const shown = runChorus(['config', '--project-dir', dir], { CHORUS_CONSOLE_TOKEN: FIRST });
      assert.equal(await shown.exited, 0);
      return /CHORUS_CONSOLE_TOKEN = \S* *\((\w+)\)/.exec(shown.output())?.[1];
    };
    assert.equal(await status(FIRST), 200);
    assert.equal(await sourceOfToken(), 'env');
    assert.deepEqual(await health(), { reloads: 0, reload_failed: 0, last_change: null });

    await save(join(dir, '.env'), `CHORUS_CONSOLE_TOKEN=${SECOND}\nCHORUS_REPEATER_COOLDOWN_SEC=7\n`);
    const changed = await until(health, (h) => h.last_change !== null, 'the edit on /api/health');
    assert.deepEqual(changed.last_change?.changed_keys.sort(), [
      'CHORUS_CONSOLE_TOKEN',
      'CHORUS_REPEATER_COOLDOWN_SEC',
    ]);
    assert.deepEqual(changed.last_change?.failed_steps, []);
    assert.equal(await sourceOfToken(), 'dotenv');
    assert.equal(await status(SECOND), 200, 'the edited token is the running one');
    assert.equal(await status(FIRST), 401, 'the old one no longer opens the console');
    await chorus.waitFor(/configuration file edited: applied .*CHORUS_CONSOLE_TOKEN/);

    // Broken: a line that is not KEY=VALUE, and an unusable credential in chorus.toml.
    await save(join(dir, '.env'), `CHORUS_CONSOLE_TOKEN=${FIRST}\nthis is not a setting\n`);
    await until(health, (h) => h.reload_failed === 1, 'the refused edit');
    await chorus.waitFor(/\.env:2: expected KEY=VALUE/);
    await save(join(dir, '.env'), `CHORUS_CONSOLE_TOKEN=${SECOND}\n`);
    await save(join(dir, 'chorus.toml'), `CHORUS_PORT = ${port}\nCHORUS_ONEBOT_ACCESS_TOKEN = "has a space"\n`);
    await until(health, (h) => h.reload_failed === 2, 'the refused credential');
    await chorus.waitFor(/invalid value for CHORUS_ONEBOT_ACCESS_TOKEN/);
    assert.equal(await status(SECOND), 200, 'the running configuration stayed');
    assert.equal(await status(FIRST), 401);

    const output = chorus.output();
    for (const secret of [SECOND, 'has a space']) assert.ok(!output.includes(secret), `${secret} is never logged`);
  },
);
