/**
 * The console never runs open (docs/rules.md#console-auth): with no token configured, the first start
 * of a real `chorus serve` generates one, stores it 0600 in data/console-auth.json and prints it
 * once; later starts reuse it silently. Also the login page.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { freePort, runChorus } from '../support/chorus-process.ts';

async function serve(dir: string, env: Record<string, string> = {}) {
  const port = await freePort();
  const chorus = runChorus(['serve', '--project-dir', dir], { CHORUS_PORT: String(port), ...env });
  await chorus.waitFor(/console listening at/);
  return { chorus, base: `http://127.0.0.1:${port}/chorus` };
}

async function stop(chorus: ReturnType<typeof runChorus>): Promise<void> {
  chorus.child.kill('SIGTERM');
  assert.equal(await chorus.exited, 0);
}

function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}

describe('console token at first start (a real process)', () => {
  it('is generated, stored 0600, printed once, and reused silently on the next start', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'chorus-first-start-'));
    t.after(() => rm(dir, { recursive: true, force: true }));

    const first = await serve(dir);
    const file = join(dir, 'data', 'console-auth.json');
    const { mode } = await stat(file);
    assert.equal(mode & 0o777, 0o600);
    const stored = JSON.parse(await readFile(file, 'utf8')) as { generated_token: string; announced: boolean };
    assert.ok(stored.generated_token.length >= 40);
    assert.equal(stored.announced, true);
    assert.equal(occurrences(first.chorus.output(), stored.generated_token), 1, 'printed exactly once');
    assert.match(first.chorus.output(), /console token generated/);

    const anonymous = await fetch(`${first.base}/api/corpus-status`);
    assert.equal(anonymous.status, 401, 'the console never runs open');
    const authed = await fetch(`${first.base}/api/corpus-status`, {
      headers: { 'x-chorus-token': stored.generated_token },
    });
    assert.equal(authed.status, 200);
    const write = await fetch(`${first.base}/api/bot-configs/10001`, {
      method: 'PUT',
      headers: { 'x-chorus-token': stored.generated_token, 'content-type': 'application/json' },
      body: JSON.stringify({ security: true }),
    });
    assert.equal(write.status, 200, 'the generated token is read and write');

    const page = await fetch(`${first.base}/login`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'sha256-/);
    const html = await page.text();
    assert.match(html, /<form id="login">/);
    assert.match(html, /API="\/chorus\/api"/);
    assert.match(html, /'\/auth\/login'/);
    await stop(first.chorus);

    const second = await serve(dir);
    assert.equal(occurrences(second.chorus.output(), stored.generated_token), 0, 'not printed again');
    assert.doesNotMatch(second.chorus.output(), /console token generated/);
    const again = await fetch(`${second.base}/api/corpus-status`, {
      headers: { 'x-chorus-token': stored.generated_token },
    });
    assert.equal(again.status, 200, 'the stored token still works');
    await stop(second.chorus);
  });

  it('prints nothing when a token is configured, and the configured token is the one that works', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'chorus-first-start-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const token = 'configured-console-token-1234567890';
    const { chorus, base } = await serve(dir, { CHORUS_CONSOLE_TOKEN: token });
    try {
      assert.doesNotMatch(chorus.output(), /console token generated/);
      assert.equal(occurrences(chorus.output(), token), 0);
      const stored = JSON.parse(await readFile(join(dir, 'data', 'console-auth.json'), 'utf8')) as {
        generated_token: string;
        announced: boolean;
      };
      assert.equal(stored.announced, false);
      const generated = await fetch(`${base}/api/plugins`, { headers: { 'x-chorus-token': stored.generated_token } });
      assert.equal(generated.status, 401);
      const configured = await fetch(`${base}/api/plugins`, { headers: { 'x-chorus-token': token } });
      assert.equal(configured.status, 200);
      assert.equal(occurrences(chorus.output(), token), 0, 'never logged');
    } finally {
      await stop(chorus);
    }
  });
});
