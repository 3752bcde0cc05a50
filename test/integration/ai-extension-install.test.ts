/**
 * Installing the AI runtime through the console over a real port: CHORUS_AI_REPO_URL points at a
 * local bare repository (the stand-in upstream) whose bootstrap script prints progress and can
 * fail. Covers clone_and_bootstrap to completion with every output line in the job stream and the
 * write-back, a failing bootstrap, refusals (container, another host, a runtime run elsewhere, one
 * job at a time), a reader reconnecting mid-job, and update (fetch, fast-forward, bootstrap).
 */
import assert from 'node:assert/strict';
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { AiServiceStandIn } from '../fixtures/ai-service.ts';
import { createAiRepo, type AiRepo, type AiRepoOptions } from '../fixtures/ai-repo.ts';
import { SseClient, type SseMessage } from '../support/sse-client.ts';
import { dataOf, READ_TOKEN, startHarness, WRITE_TOKEN, type Harness } from '../unit/console/harness.ts';

const TIMING = { heartbeatMs: 200, localPollMs: 50, remotePollMs: 50, retryMs: 100, updateCheckTtlMs: 0 };
const BOT_PORT = '18123';
const AI_TOKEN = 'install-token-5678';

interface Setup {
  h: Harness;
  repo: AiRepo;
  managedRoot: string;
}

async function setup(
  t: TestContext,
  repoOptions: AiRepoOptions = {},
  env: Record<string, string> = {},
  processEnv?: Record<string, string | undefined>,
): Promise<Setup> {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-ai-repo-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const repo = await createAiRepo(dir, repoOptions);
  const h = await startHarness(t, {
    env: {
      CHORUS_DEPLOYMENT: 'source',
      CHORUS_AI_REPO_URL: repo.url,
      CHORUS_AI_API_TOKEN: AI_TOKEN,
      CHORUS_PORT: BOT_PORT,
      ...env,
    },
    ai: { siblingRoot: null, sharedLogDir: null, timing: TIMING },
    ...(processEnv ? { processEnv } : {}),
  });
  return { h, repo, managedRoot: join(h.config.current().dataDir, 'runtimes', 'ai') };
}

const status = async (h: Harness) =>
  dataOf<Record<string, unknown>>(await h.request('GET', '/ai-extension/install/status', { token: READ_TOKEN }));

async function start(h: Harness, body: Record<string, unknown>): Promise<string> {
  const reply = await h.request('POST', '/ai-extension/install', { token: WRITE_TOKEN, body });
  return dataOf<{ job_id: string }>(reply).job_id;
}

const stream = (h: Harness, jobId: string) =>
  SseClient.open(`${h.api}/ai-extension/install/jobs/${jobId}/stream`, { 'x-chorus-token': READ_TOKEN });

const lines = (events: SseMessage[]) =>
  events.filter((event) => typeof event.data.line === 'string').map((event) => event.data.line as string);

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe('AI install: clone_and_bootstrap', () => {
  it('runs to completion; every output line is a progress event; the defaults are written back', async (t) => {
    const { h, managedRoot } = await setup(t);
    const before = await status(h);
    assert.deepEqual(
      [before.detected, before.layout, before.can_clone, before.can_bootstrap, before.can_update, before.forbidden],
      [false, 'missing', true, false, false, false],
    );
    assert.equal(before.managed_root, managedRoot);
    assert.equal(before.deployment, 'source');

    const jobId = await start(h, {});
    const client = stream(h, jobId);
    const events = await client.untilEnd();
    assert.equal(client.status, 200);
    assert.match(client.contentType, /^text\/event-stream/);
    const types = events.map((event) => event.data.type);
    assert.equal(types[0], 'ready');
    assert.equal(types.at(-1), 'complete');
    assert.equal(types.filter((type) => type === 'complete' || type === 'error').length, 1);
    for (const event of events) {
      assert.equal(typeof event.data.phase, 'string');
      assert.equal(typeof event.data.message, 'string');
      assert.equal(typeof event.data.progress_percent, 'number');
    }
    const output = lines(events);
    const bootstrapLines = [
      `bootstrap: args --bot-host 127.0.0.1 --bot-port ${BOT_PORT}`,
      'bootstrap: version 1',
      'bootstrap: token in env: ***',
      'step 1/5: preparing',
      'step 2/5: preparing',
      'step 3/5: preparing',
      'step 4/5: preparing',
      'step 5/5: preparing',
      'bootstrap done',
    ];
    assert.deepEqual(
      output.filter((line) => bootstrapLines.includes(line)),
      bootstrapLines,
      'every bootstrap line, in order',
    );
    assert.ok(
      output.some((line) => line.startsWith('Cloning into')),
      `git clone output in ${output.join(' | ')}`,
    );
    assert.ok(!JSON.stringify(events).includes(AI_TOKEN), 'the token is masked in the stream');
    const percents = events
      .filter((event) => event.data.type === 'progress')
      .map((event) => event.data.progress_percent as number);
    assert.deepEqual(
      [...percents].sort((a, b) => a - b),
      percents,
      'progress never goes back',
    );

    const complete = events.at(-1)?.data as Record<string, unknown>;
    assert.equal(complete.phase, 'done');
    assert.equal(complete.progress_percent, 100);
    assert.equal(complete.message, 'bootstrap finished');
    const result = complete.result as Record<string, unknown>;
    assert.equal(result.ai_root, managedRoot);
    assert.equal(result.exit_code, 0);
    assert.equal(result.wrote_ai_extension, true);
    assert.equal(result.wrote_ai_server, true);
    assert.match(String(result.output_tail), /^running: bash scripts\/ai_bootstrap\.sh --bot-host/);

    // The checkout is Chorus's own now, and up to date.
    assert.ok(await exists(join(managedRoot, '.chorus-managed')));
    const after = await status(h);
    assert.deepEqual(
      [
        after.detected,
        after.layout,
        after.is_managed,
        after.can_clone,
        after.can_bootstrap,
        after.can_update,
        after.has_update,
      ],
      [true, 'managed', true, false, true, true, false],
    );
    assert.equal(after.update_check_error, null);
    assert.equal(after.active_job, null);

    // Write-back: the config file did not exist, so it now names the runtime; the settings were unset.
    const written = JSON.parse(await readFile(join(h.config.current().dataDir, 'ai_extension.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    assert.equal(written.base_url, 'http://127.0.0.1:9099');
    assert.equal(written.uvicorn_log_file, join(managedRoot, 'logs', 'uvicorn.log'));
    assert.equal(h.config.current().sourceOf('CHORUS_AI_SERVER_HOST'), 'console');

    const job = dataOf<Record<string, unknown>>(
      await h.request('GET', `/ai-extension/install/jobs/${jobId}`, { token: READ_TOKEN }),
    );
    assert.deepEqual(
      [job.phase, job.progress_percent, job.kind, job.action],
      ['done', 100, 'ai-install', 'clone_and_bootstrap'],
    );
    assert.ok((job.log_lines as string[]).includes('bootstrap done'));
    assert.equal(dataOf(await h.request('GET', '/ai-extension/install/jobs/active', { token: READ_TOKEN })), null);

    // A reader connecting after the end gets the same history, replayed from the start.
    const late = await stream(h, jobId).untilEnd();
    assert.deepEqual(
      late.slice(1).map((event) => event.data),
      events.slice(1).map((event) => event.data),
    );

    // A second clone_and_bootstrap reuses the checkout; a custom base URL is never overwritten.
    await h.request('PUT', '/ai-extension/config', { token: WRITE_TOKEN, body: { base_url: 'http://127.0.0.1:9555' } });
    const second = await stream(h, await start(h, { action: 'clone_and_bootstrap', no_start: true })).untilEnd();
    const secondResult = second.at(-1)?.data.result as Record<string, unknown>;
    assert.equal(secondResult.skipped_clone, true);
    assert.equal(secondResult.wrote_ai_extension, false);
    assert.ok(lines(second).some((line) => line.includes('--no-start')));
    const config = dataOf<{ base_url: string }>(await h.request('GET', '/ai-extension/config', { token: READ_TOKEN }));
    assert.equal(config.base_url, 'http://127.0.0.1:9555');
  });

  it('the bootstrap, and so the runtime it starts, gets none of Chorus’s secrets, only the AI token', async (t) => {
    // The process environment as `chorus serve` would see it, with every secret Chorus holds.
    const secrets = {
      CHORUS_CONSOLE_TOKEN: READ_TOKEN,
      CHORUS_CONSOLE_WRITE_TOKEN: WRITE_TOKEN,
      CHORUS_ONEBOT_ACCESS_TOKEN: 'onebot-secret-4321',
      CHORUS_CORPUS_COMMUNITY_TOKEN: 'community-secret-8765',
      CHORUS_DATABASE_URL: 'postgres://chorus:db-secret-2468@127.0.0.1:5432/chorus',
    };
    const { h, managedRoot } = await setup(t, {}, {}, { ...process.env, ...secrets, AI_TEST_MARKER: 'passed on' });
    const events = await stream(h, await start(h, { action: 'clone_and_bootstrap', no_start: true })).untilEnd();
    assert.equal(events.at(-1)?.data.type, 'complete', JSON.stringify(events.at(-1)?.data));
    const seen = new Map(
      (await readFile(join(managedRoot, 'bootstrap.env'), 'utf8'))
        .split('\n')
        .filter((line) => line.includes('='))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const),
    );
    const text = [...seen].map(([key, value]) => `${key}=${value}`).join('\n');
    for (const [key, value] of Object.entries(secrets)) {
      assert.equal(seen.has(key), false, `${key} reached the bootstrap`);
      assert.ok(!text.includes(value), `the value of ${key} reached the bootstrap`);
    }
    assert.deepEqual(
      [...seen.keys()].filter((key) => key.startsWith('CHORUS_')),
      ['CHORUS_AI_API_TOKEN'],
      'of Chorus’s settings, only the token the AI side shares',
    );
    assert.equal(seen.get('CHORUS_AI_API_TOKEN'), AI_TOKEN);
    assert.equal(seen.get('AI_TEST_MARKER'), 'passed on', 'the rest of the environment is kept');
    assert.equal(seen.get('PYTHONUTF8'), '1');
  });

  it('accepts and ignores the origin client’s remote_only and with_media; other unknown fields are a 400', async (t) => {
    const { h } = await setup(t);
    const originBody = {
      action: 'clone_and_bootstrap',
      no_start: true,
      remote_only: true,
      with_media: true,
      use_gpu: false,
    };
    const reply = await h.request('POST', '/ai-extension/install', { token: WRITE_TOKEN, body: originBody });
    assert.equal(reply.status, 200, reply.text);
    const events = await stream(h, dataOf<{ job_id: string }>(reply).job_id).untilEnd();
    assert.equal(events.at(-1)?.data.type, 'complete');
    assert.ok(
      lines(events).includes(`bootstrap: args --no-start --bot-host 127.0.0.1 --bot-port ${BOT_PORT}`),
      'the bootstrap gets no media or remote-only flag',
    );
    for (const field of ['remote_only', 'with_media']) {
      const wrongType = await h.request('POST', '/ai-extension/install', {
        token: WRITE_TOKEN,
        body: { [field]: 'yes' },
      });
      assert.equal(wrongType.status, 400, field);
      assert.match((wrongType.json as { detail: string }).detail, new RegExp(`body\\.${field}`));
    }
    const unknown = await h.request('POST', '/ai-extension/install', {
      token: WRITE_TOKEN,
      body: { with_video: true },
    });
    assert.equal(unknown.status, 400);
    assert.match((unknown.json as { detail: string }).detail, /with_video/);
  });

  it('a failing bootstrap ends the stream with one error event carrying the exit code', async (t) => {
    const { h } = await setup(t, { failCode: 3 });
    const jobId = await start(h, { action: 'clone_and_bootstrap' });
    const events = await stream(h, jobId).untilEnd();
    const last = events.at(-1)?.data as Record<string, unknown>;
    assert.equal(last.type, 'error');
    assert.equal(last.phase, 'failed');
    assert.equal(last.error, 'bootstrap exited with code 3');
    assert.ok((last.progress_percent as number) < 100, 'the bar stays where it was');
    const result = last.result as Record<string, unknown>;
    assert.equal(result.exit_code, 3);
    assert.match(String(result.output_tail), /error: failing on purpose/);
    assert.ok(lines(events).includes('error: failing on purpose'), 'stderr lines are progress events too');
    assert.equal(events.filter((event) => event.data.type === 'complete' || event.data.type === 'error').length, 1);
    const job = dataOf<Record<string, unknown>>(
      await h.request('GET', `/ai-extension/install/jobs/${jobId}`, { token: READ_TOKEN }),
    );
    assert.deepEqual([job.phase, job.error], ['failed', 'bootstrap exited with code 3']);
  });

  it('a repository without the bootstrap script fails the clone and leaves no checkout', async (t) => {
    const { h, managedRoot } = await setup(t, { withoutScript: true });
    const events = await stream(h, await start(h, { action: 'clone' })).untilEnd();
    const last = events.at(-1)?.data as Record<string, unknown>;
    assert.equal(last.type, 'error');
    assert.match(String(last.error), /has no scripts\/ai_bootstrap\.sh/);
    assert.equal(await exists(managedRoot), false);
  });

  it('a job ends when the bootstrap exits, even if what it started keeps its output open', async (t) => {
    const { h, managedRoot } = await setup(t, { daemon: true });
    const events = await stream(h, await start(h, {})).untilEnd();
    assert.equal(events.at(-1)?.data.type, 'complete');
    const pid = Number(await readFile(join(managedRoot, 'daemon.pid'), 'utf8'));
    t.after(() => {
      try {
        process.kill(pid);
      } catch {
        // already gone
      }
    });
    assert.doesNotThrow(() => process.kill(pid, 0), 'the background process still runs: the job did not wait for it');
  });
});

describe('AI install: one job at a time, replay, refusals', () => {
  it('a second job while one runs is a 409; a reader reconnecting mid-job gets the whole replay', async (t) => {
    const { h, managedRoot } = await setup(t, { wait: true });
    const jobId = await start(h, {});
    const first = stream(h, jobId);
    await first.waitFor((event) => event.data.line === 'waiting for GO');

    const busy = await h.request('POST', '/ai-extension/install', {
      token: WRITE_TOKEN,
      body: { action: 'bootstrap' },
    });
    assert.equal(busy.status, 409);
    assert.match((busy.json as { detail: string }).detail, new RegExp(`already running \\(job ${jobId}\\)`));
    const active = dataOf<Record<string, unknown>>(
      await h.request('GET', '/ai-extension/install/jobs/active', { token: READ_TOKEN }),
    );
    assert.deepEqual([active.job_id, active.phase], [jobId, 'running']);
    assert.equal((await status(h)).active_job !== null, true);

    // The first reader hangs up mid-job and comes back: everything from the start, then the rest.
    const seenBefore = first.events.length;
    first.close();
    const again = stream(h, jobId);
    await again.waitFor((event) => event.data.line === 'waiting for GO');
    assert.deepEqual(
      again.events.slice(1, seenBefore).map((event) => event.data),
      first.events.slice(1, seenBefore).map((event) => event.data),
      'the replay repeats what the first reader saw, in order',
    );
    const third = stream(h, jobId);
    await third.waitFor((event) => event.data.line === 'waiting for GO');
    // While the job waits, the streams stay open with heartbeat comments.
    await again.waitUntil(() => again.comments >= 2);
    await writeFile(join(managedRoot, 'GO'), '');
    const finished = await again.untilEnd();
    const thirdEvents = await third.untilEnd();
    assert.equal(finished.at(-1)?.data.type, 'complete');
    assert.deepEqual(
      thirdEvents.slice(1).map((e) => e.data),
      finished.slice(1).map((e) => e.data),
    );
    assert.ok(lines(finished).includes('got GO'));
  });

  it('closing the console stops a running install job and ends its streams', async (t) => {
    const { h, managedRoot } = await setup(t, { wait: true });
    const jobId = await start(h, {});
    const client = stream(h, jobId);
    await client.waitFor((event) => event.data.line === 'waiting for GO');
    const job = () => h.request('GET', `/ai-extension/install/jobs/${jobId}`, { token: READ_TOKEN });
    assert.equal(dataOf<{ phase: string }>(await job()).phase, 'running');
    await h.server.close();
    await client.untilEnd(5000);
    // The bootstrap's process group was ended: it never sees GO, and never writes its log.
    await writeFile(join(managedRoot, 'GO'), '');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await exists(join(managedRoot, 'logs', 'uvicorn.log')), false);
  });

  it('refuses installs in a container, for an AI service on another host or run elsewhere, and impossible actions', async (t) => {
    const container = await setup(t, {}, { CHORUS_DEPLOYMENT: 'container' });
    const inContainer = await status(container.h);
    assert.equal(inContainer.forbidden, true);
    assert.match((inContainer.forbidden_reasons as string[]).join(), /container/);
    assert.deepEqual(inContainer.forbidden_codes, [{ code: 'in_container', params: {} }]);
    assert.deepEqual([inContainer.can_clone, inContainer.can_bootstrap, inContainer.can_update], [false, false, false]);
    const refused = await container.h.request('POST', '/ai-extension/install', { token: WRITE_TOKEN, body: {} });
    assert.equal(refused.status, 409);
    assert.match((refused.json as { detail: string }).detail, /disabled here: Chorus runs in a container/);

    const remote = await setup(t, {}, { CHORUS_AI_SERVER_HOST: 'ai.example.net' });
    const remoteStatus = await status(remote.h);
    assert.deepEqual(remoteStatus.endpoint, { host: 'ai.example.net', port: 9099 });
    assert.match((remoteStatus.forbidden_reasons as string[]).join(), /another host \(ai\.example\.net\)/);
    assert.deepEqual(remoteStatus.forbidden_codes, [{ code: 'other_host', params: { host: 'ai.example.net' } }]);
    assert.equal(
      (await remote.h.request('POST', '/ai-extension/install', { token: WRITE_TOKEN, body: { action: 'clone' } }))
        .status,
      409,
    );

    // An AI service already answers and nothing is checked out here: it is someone else's.
    const ai = await AiServiceStandIn.start();
    t.after(() => ai.close());
    const external = await setup(t);
    await external.h.request('PUT', '/ai-extension/config', { token: WRITE_TOKEN, body: { base_url: ai.baseUrl } });
    const externalStatus = await status(external.h);
    assert.deepEqual(
      [externalStatus.layout, externalStatus.detected, externalStatus.forbidden],
      ['external', true, true],
    );
    assert.match((externalStatus.forbidden_reasons as string[]).join(), /managed outside Chorus/);
    assert.equal(
      (await external.h.request('POST', '/ai-extension/install', { token: WRITE_TOKEN, body: {} })).status,
      409,
    );

    // Nothing to bootstrap or update yet.
    const empty = await setup(t);
    const bootstrap = await empty.h.request('POST', '/ai-extension/install', {
      token: WRITE_TOKEN,
      body: { action: 'bootstrap' },
    });
    assert.equal(bootstrap.status, 409);
    assert.match((bootstrap.json as { detail: string }).detail, /clone it first/);
    const update = await empty.h.request('POST', '/ai-extension/install', {
      token: WRITE_TOKEN,
      body: { action: 'update' },
    });
    assert.equal(update.status, 409);
    assert.match((update.json as { detail: string }).detail, /only the checkout Chorus cloned/);
    const bad = await empty.h.request('POST', '/ai-extension/install', {
      token: WRITE_TOKEN,
      body: { action: 'reinstall' },
    });
    assert.equal(bad.status, 400);
    assert.match((bad.json as { detail: string }).detail, /body\.action/);
    const unknownJob = await empty.h.request('GET', '/ai-extension/install/jobs/nope', { token: READ_TOKEN });
    assert.deepEqual([unknownJob.status, (unknownJob.json as { detail: string }).detail], [404, 'job_not_found']);
    const unknownStream = await stream(empty.h, 'nope').untilEnd();
    assert.deepEqual(
      unknownStream.map((event) => [event.data.type, event.data.error]),
      [['error', 'job_not_found']],
    );
  });

  it('CHORUS_DEPLOYMENT=auto finds a container by its marker file', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'chorus-dockerenv-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const marker = join(dir, '.dockerenv');
    const h = await startHarness(t, {
      ai: { dockerenvPath: marker, siblingRoot: null, sharedLogDir: null },
      processEnv: { PATH: process.env.PATH },
    });
    assert.notEqual((await status(h)).deployment, 'container');
    await writeFile(marker, '');
    assert.equal((await status(h)).deployment, 'container');
    const withVariable = await startHarness(t, {
      ai: { dockerenvPath: join(dir, 'absent'), siblingRoot: null, sharedLogDir: null },
      processEnv: { PATH: process.env.PATH, container: 'podman' },
    });
    assert.equal((await status(withVariable)).deployment, 'container');
  });
});

describe('AI install: update', () => {
  it('fetches, fast-forwards and bootstraps the managed checkout when upstream moved', async (t) => {
    const { h, repo } = await setup(t);
    assert.equal((await stream(h, await start(h, {})).untilEnd()).at(-1)?.data.type, 'complete');
    const current = await status(h);
    assert.equal(current.has_update, false);

    const sha = await repo.commit('2');
    const behind = await status(h);
    assert.equal(behind.has_update, true);
    assert.equal(behind.latest_ref, sha.slice(0, 12));
    assert.notEqual(behind.installed_ref, behind.latest_ref);

    const events = await stream(h, await start(h, { action: 'update' })).untilEnd();
    const last = events.at(-1)?.data as Record<string, unknown>;
    assert.equal(last.type, 'complete', JSON.stringify(last));
    assert.equal(last.message, 'update finished');
    const result = last.result as Record<string, unknown>;
    assert.equal(result.changed, true);
    assert.equal(result.after, sha);
    assert.equal(result.upstream, 'origin/main');
    assert.equal(result.submodule_ok, true);
    assert.ok(lines(events).includes('bootstrap: version 2'), 'the new version was bootstrapped');
    const after = await status(h);
    assert.deepEqual([after.has_update, after.installed_ref], [false, sha.slice(0, 12)]);
  });
});
