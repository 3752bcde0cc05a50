/**
 * The console's first screen on a slow link: a real Chorus (`startService`, SQLite in a temporary
 * project) serving a build of web/, Chromium with CDP network emulation at 1.6 Mbit/s down,
 * 0.75 Mbit/s up and 150 ms latency (a weak phone link), an empty cache for every run. It logs
 * in (not timed), then times a fresh load of the overview until its heading shows, and adds up
 * the JavaScript bytes that crossed the wire (compressed as served) for that load.
 *
 * Baseline: the figure for the console before compression and splitting (7.5 s, 1.2 MB).
 * `--quick` runs 2 loads instead of 5. `--web <dir>` measures another build (default: a fresh
 * build of the current sources, shared with the browser suite).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { startService } from '../src/app/service.ts';
import { launchChromium, sharedWebBuild } from '../test/support/browser.ts';
import { freePort } from '../test/support/chorus-process.ts';

const quick = process.argv.includes('--quick');
const webIndex = process.argv.indexOf('--web');
const RUNS = quick ? 2 : 5;
const TOKEN = 'bench-first-load-token-not-secret';
const BASELINE = { ms: 7500, jsBytes: 1_200_000 };
const LINK = { offline: false, latency: 150, downloadThroughput: (1.6e6 / 8) | 0, uploadThroughput: (0.75e6 / 8) | 0 };

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
    const scripts = new Set<string>();
    let wire = 0;
    cdp.on('Network.responseReceived', (event: { requestId: string; type: string }) => {
      if (event.type === 'Script') scripts.add(event.requestId);
    });
    cdp.on('Network.loadingFinished', (event: { requestId: string; encodedDataLength: number }) => {
      if (scripts.has(event.requestId)) wire += event.encodedDataLength;
    });
    const started = Date.now();
    await page.goto(`${base}/`);
    await page.locator('h1.page-title').first().waitFor({ state: 'visible', timeout: 120_000 });
    times.push(Date.now() - started);
    jsBytes = wire;
    jsFiles = scripts.size;
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
console.log(`first screen JS on the wire: ${jsFiles} files, ${(jsBytes / 1024).toFixed(1)} KiB`);
console.log(`time to overview heading at 1.6 Mbit/s: median ${median} ms; baseline ${BASELINE.ms} ms`);
console.log(
  `RESULT first_load_ms=${median} baseline_ms=${BASELINE.ms} ratio=${(median / BASELINE.ms).toFixed(2)} ` +
    `js_wire_bytes=${jsBytes} baseline_js_bytes=${BASELINE.jsBytes} js_ratio=${(jsBytes / BASELINE.jsBytes).toFixed(2)}`,
);
