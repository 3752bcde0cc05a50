/**
 * `npm test` and `npm run test:node` (docs/testing.md#how-the-suite-is-run): compiles the tests
 * (build.mjs), then runs every test file in a process of its own, three at a time, at most one
 * browser file at a time, the files known to be longest first; with `--checks` (`npm test`) the
 * type checks, lint and the contract and docs checks take their turn in the same slots.
 *
 * Why not `node --test --test-concurrency=N`: its N slots cannot tell a browser file (Chromium,
 * CPU-bound, 30 s bound per step) from an integration file that mostly waits on a child process,
 * and it takes the files in the order given. Three slots with one browser keeps the two cores busy
 * without two Chromiums starving each other; longest first leaves a short tail.
 *
 * A file runs as `node --import register.mjs --test-force-exit <file>`: node:test runs its tests
 * in that process and exits once they are done. Its output is printed whole when it ends, with its
 * time; the times go to test-output/suite-times.json (copy them into suite-times.json here when
 * the order drifts). Exit 1 if any file or check failed; a failed check stops the run.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

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

/** @typedef {{ name: string, command: string, args: string[], browser: boolean, check: boolean }} Job */

/** @returns {Job} */
const fileJob = (file) => ({
  name: file,
  command: process.execPath,
  args: ['--import', './test/support/compiled-tests/register.mjs', '--test-force-exit', '--test-reporter=spec', file],
  browser: file.startsWith('test/browser/'),
  check: false,
});
/** @returns {Job} */
const checkJob = (script) => ({
  name: `npm run ${script}`,
  command: 'npm',
  args: ['run', '-s', script],
  browser: false,
  check: true,
});

/** Runs `job` to its end; resolves with its exit status and everything it printed. */
function runJob(job, running) {
  const started = Date.now();
  const child = spawn(job.command, job.args, {
    cwd: ROOT,
    env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? '1' : '0' },
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
  const withChecks = process.argv.includes('--checks');
  const started = Date.now();
  const running = new Set();
  const stop = () => {
    for (const child of running) killGroup(child);
    process.exit(130);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  /** @type {Job[]} */
  const queue = withChecks ? CHECKS.map(checkJob) : [];
  // The unit suite first (one process, CPU-bound, a minute alone at the end otherwise), then the
  // longest files first.
  const files = [...testFiles('browser'), ...testFiles('integration')].sort(
    (a, b) => expected(b) - expected(a) || a.localeCompare(b),
  );
  // Files named on the command line instead of all of them (`node …/run-suite.mjs test/browser/home.test.ts`).
  const chosen = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
  const testJobs = (
    chosen.length > 0 ? files.filter((file) => chosen.includes(file)) : ['test/unit-suite.ts', ...files]
  ).map(fileJob);

  // The compiled tests must exist before a file starts; the checks need no build.
  const build = runJob(
    {
      name: 'compile the tests',
      command: process.execPath,
      args: [join(HERE, 'build.mjs')],
      browser: false,
      check: true,
    },
    running,
  );
  let built = false;
  const totals = { tests: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
  const failed = [];
  const times = {};
  let aborted = false;

  await new Promise((finish) => {
    let active = 1; // the build
    let browsers = 0;
    const report = (job, result) => {
      process.stdout.write(`\n${result.ok ? '▶' : '✖'} ${job.name} (${result.seconds.toFixed(1)} s)\n`);
      process.stdout.write(result.output);
      if (!job.check) {
        times[job.name] = Math.round(result.seconds);
        for (const [key, value] of Object.entries(counts(result.output))) totals[key] += value;
      }
      if (!result.ok) failed.push(`${job.name} (exit ${result.code})`);
    };
    const next = () => {
      if (aborted) return;
      while (active < SLOTS) {
        const eligible = queue.findIndex((job) => (job.check || built) && (!job.browser || browsers < BROWSER_SLOTS));
        if (eligible < 0) break;
        const [job] = queue.splice(eligible, 1);
        active++;
        if (job.browser) browsers++;
        void runJob(job, running).then((result) => {
          active--;
          if (job.browser) browsers--;
          report(job, result);
          if (!result.ok && job.check) {
            // The tests are not worth running on code that does not check.
            aborted = true;
            for (const child of running) killGroup(child);
            finish();
            return;
          }
          next();
          if (active === 0 && queue.length === 0) finish();
        });
      }
    };
    void build.then((result) => {
      active--;
      if (!result.ok) {
        report({ name: 'compile the tests', check: true }, result);
        aborted = true;
        for (const child of running) killGroup(child);
        finish();
        return;
      }
      built = true;
      // The longest browser file goes ahead of the checks still waiting: the browser files run one
      // after another, and that chain is the suite's longest.
      const firstBrowser = testJobs.findIndex((job) => job.browser);
      if (firstBrowser >= 0) queue.unshift(...testJobs.splice(firstBrowser, 1));
      queue.push(...testJobs);
      next();
      if (active === 0 && queue.length === 0) finish();
    });
    next();
  });

  mkdirSync(join(ROOT, 'test-output'), { recursive: true });
  writeFileSync(join(ROOT, 'test-output', 'suite-times.json'), `${JSON.stringify(times, null, 2)}\n`);
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  process.stdout.write(
    `\nsuite: ${Object.keys(times).length} files, ${totals.tests} tests, ${totals.pass} pass, ${totals.fail} fail, ` +
      `${totals.cancelled} cancelled, ${totals.skipped} skipped, ${totals.todo} todo; ${minutes} min ` +
      `(${SLOTS} at a time, ${BROWSER_SLOTS} browser)\n`,
  );
  if (aborted) process.stdout.write('suite: stopped early, a check failed\n');
  if (failed.length > 0) process.stdout.write(`suite: failed: ${failed.join(', ')}\n`);
  process.exitCode = failed.length > 0 || aborted ? 1 : 0;
}

await main();
