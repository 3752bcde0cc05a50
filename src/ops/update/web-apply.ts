/**
 * Applying a web-console release: the web archive is verified and unpacked like the bot's, must
 * hold `index.html`, and becomes `data/web-console/versions/<v>`; `current` is switched by one
 * rename. The console serves its pages through the `current` link, so the next page load gets the
 * new version without a restart.
 */
import { access, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { JobFailure, type JobContext, type JobOutcome } from '../jobs/index.ts';
import type { Release } from './feed.ts';
import type { UpdateTiming } from './limits.ts';
import { fetchAndStage, type StepHook } from './steps.ts';
import type { VersionStore } from './version-store.ts';

export interface WebApplyRequest {
  release: Release;
  store: VersionStore;
  downloadDir: string;
  fetch: typeof fetch;
  timing: UpdateTiming;
  context: JobContext;
  hook?: StepHook;
}

export async function applyWebRelease(request: WebApplyRequest): Promise<JobOutcome> {
  const { release, store, context } = request;
  const version = release.version.text;
  if ((await store.current()) === version) throw new JobFailure(`web console ${version} is already installed`);
  await store.prune();
  const { staged, stagingDir } = await fetchAndStage({
    release,
    asset: release.webAsset,
    root: `chorus-web-${version}`,
    store,
    downloadDir: request.downloadDir,
    fetch: request.fetch,
    timing: request.timing,
    context,
    band: { from: 10, to: 70 },
    ...(request.hook ? { hook: request.hook } : {}),
  });
  try {
    const hasIndex = await access(join(staged, 'index.html')).then(
      () => true,
      () => false,
    );
    if (!hasIndex) throw new JobFailure('the web archive has no index.html; nothing was changed');
    await store.commit(staged, version);
  } finally {
    await rm(stagingDir, { recursive: true, force: true });
  }
  const from = await store.current();
  await store.switchTo(version);
  context.progress(95, `web console current → ${version}`);
  await request.hook?.('switched');
  return {
    result: { version, tag: release.tag, previous_version: from },
    message: `web console ${version} is served now`,
  };
}
