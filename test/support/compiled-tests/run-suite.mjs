/**
 * `npm test` and `npm run test:node` (docs/testing.md#how-the-suite-is-run): compiles the tests
 * (build.mjs), then runs every test file in a process of its own, three at a time, at most one
 * browser file at a time, the files known to be longest first; with `--checks` (`npm test`) the
 * type checks, lint and the contract and docs checks take their turn in the same slots.
 *
 * Why not `node --test --test-concurrency=N`: its N slots cannot tell a browser file (Chromium,
 * CPU-bound, 30 s bound per step) from an integration file that mostly waits on a child process,
 * and it takes the files in the order given. Three slots with one browser keep the two cores busy
 * without two Chromiums starving each other; longest first leaves a short tail. The browser files
 * share one Chromium (shared-chromium.mjs).
 *
 * A file runs as `node --import register.mjs --test-force-exit <file>`: node:test runs its tests
 * in that process and exits once they are done. Its output is printed whole when it ends, with its
 * time; the times go to test-output/suite-times.json (copy them into suite-times.json here when
 * the order drifts). Exit 1 if any file or check failed; a failed check stops the run.
 * Files named as arguments run instead of all (`node …/run-suite.mjs test/browser/home.test.ts`).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SharedChromium } from './shared-chromium.mjs';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const HERE = fileURLToPath(new URL('./', import.meta.url));
const SLOTS = Number(process.env.CHORUS_TEST_SLOTS) || 3;
const BROWSER_SLOTS = Number(process.env.CHORUS_TEST_BROWSER_SLOTS) || 1;
/** The bound on one file, the same as node --test's per-test bound the suite used before. */
const FILE_TIMEOUT_MS = 10 * 60_000;
const CHECKS = ['typecheck:server', 'typecheck:web', 'lint', 'openapi:check', 'docs:check'];

/** Seconds each file took in a full run (two-core machine); files not listed count by their kind. */
const KNOWN = JSON.parse(readFileSync(join(HERE, 'suite-times.json'), 'utf8'));
const expected = (file) => KNOWN[file] ?? (file.startsWith('test/browser/') ? 30 : 8);

const testFiles = (part) =>
  readdirSync(join(ROOT, 'test', part), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => `test/${part}/${name}`);

/** @typedef {{ name: string, command: string, args: string[], browser?: boolean, check?: boolean }} Job */

/** @returns {Job} */
const fileJob = (file) => ({
  name: file,
  command: process.execPath,
  args: ['--import', './test/support/compiled-tests/register.mjs', '--test-force-exit', '--test-reporter=spec', file],
  browser: file.startsWith('test/browser/'),
});
/** @returns {Job} */
const checkJob = (script) => ({ name: `npm run ${script}`, command: 'npm', args: ['run', '-s', script], check: true });

const running = new Set();

/** Runs `job` to its end; resolves with its exit status and everything it printed. */
function runJob(job, env = {}) {
  const started = Date.now();
  const child = spawn(job.command, job.args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so that a stopped run ends the services a file started, too.
    detached: true,
  });
  running.add(child);
  const output = [];
  child.stdout.on('data', (chunk) => output.push(chunk));
  child.stderr.on('data', (chunk) => output.push(chunk));
  const timer = setTimeout(() => {
    output.push(Buffer.from(`\n${job.name}: still running after ${FILE_TIMEOUT_MS / 60_000} minutes, stopped\n`));
    killGroup(child);
  }, FILE_TIMEOUT_MS);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({
        ok: code === 0,
        code: code ?? signal,
        seconds: (Date.now() - started) / 1000,
        output: Buffer.concat(output),
      });
    });
  });
}

function killGroup(child) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Counts from a file's spec summary (`ℹ tests 12`, `ℹ pass 12`, …). */
function counts(output) {
  const found = {};
  for (const [, key, value] of output.toString('utf8').matchAll(/^ℹ (tests|pass|fail|cancelled|skipped|todo) (\d+)$/gm))
    found[key] = (found[key] ?? 0) + Number(value);
  return found;
}

async function main() {
  const started = Date.now();
  const browser = new SharedChromium();
  const stop = () => {
    for (const child of running) killGroup(child);
    browser.kill();
    process.exit(130);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  const chosen = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
  // The unit suite first (one process, CPU-bound, a minute alone at the end otherwise), then the
  // longest files first.
  const files = [...testFiles('browser'), ...testFiles('integration')]
    .filter((file) => chosen.length === 0 || chosen.includes(file))
    .sort((a, b) => expected(b) - expected(a) || a.localeCompare(b));
  const testJobs = [...(chosen.length === 0 ? ['test/unit-suite.ts'] : []), ...files].map(fileJob);
  /** @type {Job[]} */
  const queue = process.argv.includes('--checks') ? CHECKS.map(checkJob) : [];

  const totals = { tests: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
  const failed = [];
  const times = {};
  let aborted = false;
  const report = (job, result) => {
    if (aborted) return; // killed by the stop: its output says nothing
    process.stdout.write(`\n── ${result.ok ? 'ok' : 'FAILED'}: ${job.name} (${result.seconds.toFixed(1)} s)\n`);
    process.stdout.write(result.output);
    if (!job.check) {
      times[job.name] = Math.round(result.seconds);
      for (const [key, value] of Object.entries(counts(result.output))) totals[key] += value;
    }
    if (!result.ok) failed.push(`${job.name} (exit ${result.code})`);
  };

  await new Promise((finish) => {
    let active = 0;
    let browsers = 0;
    let built = false;
    const done = (job, result) => {
      active--;
      if (job.browser) browsers--;
      report(job, result);
      if (!result.ok && job.check && !aborted) {
        // Code that does not compile or check is not worth testing: stop here.
        aborted = true;
        for (const child of running) killGroup(child);
      }
      if (aborted || (active === 0 && queue.length === 0)) finish();
      else next();
    };
    const start = (job, env) => {
      active++;
      if (job.browser) browsers++;
      void env.then((values) => runJob(job, values)).then((result) => done(job, result));
    };
    const next = () => {
      while (!aborted && active < SLOTS) {
        const at = queue.findIndex((job) => (job.check || built) && (!job.browser || browsers < BROWSER_SLOTS));
        if (at < 0) return;
        const [job] = queue.splice(at, 1);
        const env = job.browser
          ? browser.endpoint().then((ws) => (ws ? { CHORUS_TEST_BROWSER_WS: ws } : {}))
          : Promise.resolve({});
        start(job, env);
      }
    };
    // The compiled tests must exist before a file starts; the checks need none.
    active++;
    void runJob({ name: 'compile the tests', command: process.execPath, args: [join(HERE, 'build.mjs')] }).then(
      (result) => {
        built = result.ok;
        // The longest browser file goes ahead of the checks still waiting: the browser files run
        // one after another, and that chain is the suite's longest.
        const first = testJobs.findIndex((job) => job.browser);
        if (first >= 0) queue.unshift(...testJobs.splice(first, 1));
        queue.push(...testJobs);
        done({ name: 'compile the tests', check: true }, result);
      },
    );
    next();
  });

  await browser.close();
  mkdirSync(join(ROOT, 'test-output'), { recursive: true });
  writeFileSync(join(ROOT, 'test-output', 'suite-times.json'), `${JSON.stringify(times, null, 2)}\n`);
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  process.stdout.write(
    `\nsuite: ${Object.keys(times).length} files, ${totals.tests} tests, ${totals.pass} pass, ${totals.fail} fail, ` +
      `${totals.cancelled} cancelled, ${totals.skipped} skipped, ${totals.todo} todo; ${minutes} min ` +
      `(${SLOTS} at a time, ${BROWSER_SLOTS} browser)\n`,
  );
  if (aborted) process.stdout.write('suite: stopped early: a check failed (above)\n');
  if (failed.length > 0) process.stdout.write(`suite: failed: ${failed.join(', ')}\n`);
  process.exitCode = failed.length > 0 || aborted ? 1 : 0;
}

await main();
