/**
 * An unusable credential stops `chorus serve` (docs/rules.md#cfg-credentials): a real child process
 * (under its supervisor, as an operator runs it) exits 2 with one line naming where the value was
 * set, the key and the rule, and never the value; nothing listens. Before, a short console token
 * was replaced by the generated one with a warning, and the operator could not log in.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { freePort, runChorus } from '../support/chorus-process.ts';

async function project(t: TestContext, files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-credentials-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

async function serveFails(dir: string, env: Record<string, string>): Promise<string> {
  const chorus = runChorus(['serve', '--project-dir', dir], { CHORUS_PORT: String(await freePort()), ...env });
  const code = await chorus.exited;
  const output = chorus.output();
  assert.equal(code, 2, `exit code 2; output:\n${output}`);
  assert.doesNotMatch(output, /console listening at/);
  return output;
}

describe('chorus serve with an unusable credential (a real process)', { timeout: 120_000 }, () => {
  it('CHORUS_CONSOLE_TOKEN=short in the environment: exit 2 naming the key and the rule', async (t) => {
    const dir = await project(t, {});
    const output = await serveFails(dir, { CHORUS_CONSOLE_TOKEN: 'short' });
    assert.match(
      output,
      /chorus: process environment: invalid value for CHORUS_CONSOLE_TOKEN: expected 8 to 512 characters, or empty/,
    );
    assert.doesNotMatch(output, /short/, 'the value is never printed');
    assert.doesNotMatch(output, /console token generated/, 'no generated token stands in for it');
  });

  it('a write token with a space in .env: exit 2 naming the file, line and key', async (t) => {
    const dir = await project(t, { '.env': '# console\nCHORUS_CONSOLE_WRITE_TOKEN="write token 1"\n' });
    const output = await serveFails(dir, {});
    assert.match(
      output,
      new RegExp(
        `${join(dir, '.env')}:2: invalid value for CHORUS_CONSOLE_WRITE_TOKEN: expected printable ASCII characters without spaces`,
      ),
    );
    assert.doesNotMatch(output, /write token 1/);
  });

  it('a write token equal to the read token in .env: exit 2', async (t) => {
    const dir = await project(t, {
      '.env': 'CHORUS_CONSOLE_TOKEN=same-token-1234\nCHORUS_CONSOLE_WRITE_TOKEN=same-token-1234\n',
    });
    const output = await serveFails(dir, {});
    assert.match(output, /invalid value for CHORUS_CONSOLE_WRITE_TOKEN: must differ from CHORUS_CONSOLE_TOKEN/);
    assert.doesNotMatch(output, /same-token-1234/);
  });

  it('a OneBot access token with a space in chorus.toml: exit 2 naming the file, line and key', async (t) => {
    const dir = await project(t, { 'chorus.toml': 'CHORUS_PORT = 0\nCHORUS_ONEBOT_ACCESS_TOKEN = "bad token"\n' });
    const output = await serveFails(dir, {});
    assert.match(
      output,
      new RegExp(
        `${join(dir, 'chorus.toml')}:2: invalid value for CHORUS_ONEBOT_ACCESS_TOKEN: expected printable ASCII characters without spaces`,
      ),
    );
    assert.doesNotMatch(output, /bad token/);
  });
});
