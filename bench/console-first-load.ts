/**
 * The console's first screen on a slow link: a real Chorus (`startService`, SQLite in a temporary
 * project) serving a build of web/, Chromium with CDP network emulation at 1.6 Mbit/s down,
 * 0.75 Mbit/s up and 150 ms latency (a weak phone link), an empty cache for every run. It logs
 * in (not timed), then times a fresh load of the overview until its heading shows, and adds up
 * the JavaScript bytes that crossed the wire (compressed as served) for that load.
 *
 * Baseline: this bench on the console before compression and splitting (commit 297e5dd, measured
 * on the shared 2-core machine: 8.4 s, 1.31 MB of JavaScript on the wire, 16 uncompressed files;
 * that figure counted response headers too, about 5 KB of it).
 * `--quick` runs 2 loads instead of 5. `--web <dir>` measures another build (default: a fresh
 * build of the current sources, shared with the browser suite).
 */
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { startService } from '../src/app/service.ts';
import { launchChromium, sharedWebBuild } from '../test/support/browser.ts';

const quick = process.argv.includes('--quick');
const verbose = process.argv.includes('--verbose');
const webIndex = process.argv.indexOf('--web');
const RUNS = quick ? 2 : 5;
const TOKEN = 'bench-first-load-token-not-secret';
const BASELINE = { ms: 8417, jsBytes: 1_311_267 };
const LINK = { offline: false, latency: 150, downloadThroughput: (1.6e6 / 8) | 0, uploadThroughput: (0.75e6 / 8) | 0 };

/** A port that was free a moment ago (not test/support's: that one loads node:test). */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

const webRoot = webIndex > 0 ? (process.argv[webIndex + 1] as string) : await sharedWebBuild();
const dir = await mkdtemp(join(tmpdir(), 'chorus-bench-load-'));
const port = await freePort();
const service = await startService({
  projectDir: dir,
  webRoot,
  env: { CHORUS_PORT: String(port), CHORUS_CONSOLE_TOKEN: TOKEN },
  logDestination: new Writable({ write: (_c, _e, done) => done() }),
});
const base = service.consoleUrl.replace(/\/$/, '');
const browser = await launchChromium();
const times: number[] = [];
let jsBytes = 0;
let jsFiles = 0;
let largest: [string, number][] = [];
try {
  for (let run = 0; run < RUNS; run++) {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    // Log in through the API (not timed): the session cookie is what the first screen needs.
    const login = await page.request.post(`${base}/api/auth/login`, { data: { token: TOKEN } });
    if (!login.ok()) throw new Error(`login failed: HTTP ${login.status()}`);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', LINK);
    const scripts = new Map<string, string>();
    const sizes: [string, number][] = [];
    let wire = 0;
    const headerBytes = new Map<string, number>();
    cdp.on(
      'Network.responseReceived',
      (event: { requestId: string; type: string; response: { url: string; encodedDataLength: number } }) => {
        if (event.type !== 'Script') return;
        scripts.set(event.requestId, event.response.url);
        headerBytes.set(event.requestId, event.response.encodedDataLength);
      },
    );
    cdp.on('Network.loadingFinished', (event: { requestId: string; encodedDataLength: number }) => {
      const url = scripts.get(event.requestId);
      if (url === undefined) return;
      // The body as it crossed the wire (compressed), without the response headers.
      const body = event.encodedDataLength - (headerBytes.get(event.requestId) ?? 0);
      wire += body;
      sizes.push([url.slice(url.lastIndexOf('/') + 1), body]);
    });
    const started = Date.now();
    await page.goto(`${base}/`);
    await page.locator('h1.page-title').first().waitFor({ state: 'visible', timeout: 120_000 });
    times.push(Date.now() - started);
    jsBytes = wire;
    jsFiles = scripts.size;
    largest = sizes.sort((a, b) => b[1] - a[1]).slice(0, verbose ? sizes.length : 8);
    await context.close();
  }
} finally {
  await browser.close();
  await service.stop();
  await rm(dir, { recursive: true, force: true });
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)] as number;
console.log(`runs: ${times.join(', ')} ms (machine shared and loaded: wall-clock times vary)`);
console.log(`largest: ${largest.map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(1)} KiB`).join(', ')}`);
console.log(`first screen JS on the wire (compressed bodies): ${jsFiles} files, ${(jsBytes / 1024).toFixed(1)} KiB`);
console.log(`time to overview heading at 1.6 Mbit/s: median ${median} ms; baseline ${BASELINE.ms} ms`);
console.log(
  `RESULT first_load_ms=${median} baseline_ms=${BASELINE.ms} ratio=${(median / BASELINE.ms).toFixed(2)} ` +
    `js_wire_bytes=${jsBytes} baseline_js_bytes=${BASELINE.jsBytes} js_ratio=${(jsBytes / BASELINE.jsBytes).toFixed(2)}`,
);
