/**
 * The web console's files over real HTTP from a real service (`startService`, SQLite in a temp
 * project): brotli or gzip as the browser accepts, the build's precompressed sibling when there is
 * one, compressed once otherwise, plain for a client that accepts neither and for small files.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { brotliCompressSync, brotliDecompressSync, gunzipSync } from 'node:zlib';
import { startService, type RunningService } from '../../src/app/service.ts';
import { freePort } from '../support/chorus-process.ts';

const SCRIPT = `export const words = ${JSON.stringify(Array.from({ length: 400 }, (_, i) => `word-${i}`))};\n`;

describe('console static files compressed', () => {
  let dir: string;
  let service: RunningService;
  let base: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'chorus-compress-'));
    const web = join(dir, 'web');
    await mkdir(join(web, 'assets'), { recursive: true });
    await writeFile(join(web, 'index.html'), `<!doctype html><title>x</title><body>${'<p>chorus</p>'.repeat(200)}`);
    await writeFile(join(web, 'assets', 'app.js'), SCRIPT);
    await writeFile(join(web, 'assets', 'small.js'), 'export {};\n');
    // A precompressed sibling marked so the test can tell it was the one sent.
    await writeFile(join(web, 'assets', 'built.js'), SCRIPT);
    await writeFile(join(web, 'assets', 'built.js.br'), brotliCompressSync(Buffer.from(`${SCRIPT}// sibling\n`)));
    const later = new Date(Date.now() + 5000);
    await utimes(join(web, 'assets', 'built.js.br'), later, later);
    const port = await freePort();
    service = await startService({
      projectDir: dir,
      webRoot: web,
      env: { CHORUS_PORT: String(port), CHORUS_CONSOLE_TOKEN: 'compress-test-token' },
      logDestination: new Writable({ write: (_c, _e, done) => done() }),
    });
    base = service.consoleUrl.replace(/\/$/, '');
  });
  after(async () => {
    await service?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const get = async (path: string, encoding: string) => {
    const answer = await fetch(`${base}/${path}`, { headers: { 'accept-encoding': encoding } });
    return { answer, body: Buffer.from(await answer.arrayBuffer()) };
  };
  // fetch decodes bodies itself; these requests ask for what the raw answer says.
  const raw = async (path: string, encoding: string) => {
    const { request } = await import('node:http');
    const url = new URL(`${base}/${path}`);
    return new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
      request(url, { headers: { 'accept-encoding': encoding } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      })
        .on('error', reject)
        .end();
    });
  };

  it('brotli first, gzip next, plain for neither; compressed once when there is no sibling', async () => {
    const br = await raw('assets/app.js', 'gzip, deflate, br');
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers.vary, 'accept-encoding');
    assert.equal(brotliDecompressSync(br.body).toString(), SCRIPT);
    assert.ok(br.body.length < SCRIPT.length / 3, `${br.body.length} bytes for ${SCRIPT.length}`);
    const gz = await raw('assets/app.js', 'gzip');
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(gz.body).toString(), SCRIPT);
    const plain = await raw('assets/app.js', 'identity');
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.body.toString(), SCRIPT);
    const refused = await raw('assets/app.js', 'br;q=0, gzip');
    assert.equal(refused.headers['content-encoding'], 'gzip');
    const { body } = await get('assets/app.js', 'br');
    assert.equal(body.toString(), SCRIPT, 'a browser decodes it');
  });

  it("the build's sibling is sent as it is; small files and index.html as they should", async () => {
    const built = await raw('assets/built.js', 'br');
    assert.equal(brotliDecompressSync(built.body).toString(), `${SCRIPT}// sibling\n`);
    const small = await raw('assets/small.js', 'br');
    assert.equal(small.headers['content-encoding'], undefined);
    const page = await raw('settings', 'br');
    assert.equal(page.headers['content-encoding'], 'br');
    assert.match(brotliDecompressSync(page.body).toString(), /<p>chorus<\/p>/);
  });
});
