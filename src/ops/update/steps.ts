/**
 * The steps shared by the bot and the web-console apply: fetch `SHA256SUMS` and an archive, check
 * the archive against it, unpack it into a staging folder. Nothing outside the staging folder and
 * the download folder changes until the caller commits the staged version.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { JobFailure, type JobContext } from '../jobs/index.ts';
import { ArchiveError, unpack } from './archive.ts';
import { download, DownloadError, parseSums } from './download.ts';
import type { Release, ReleaseAsset } from './feed.ts';
import type { UpdateTiming } from './limits.ts';
import type { VersionStore } from './version-store.ts';

/** A named point between steps; tests stop the process there. */
export type StepHook = (step: string) => Promise<void> | void;

export interface StageRequest {
  release: Release;
  asset: ReleaseAsset | null;
  /** The archive's root folder, e.g. chorus-1.2.3. */
  root: string;
  store: VersionStore;
  downloadDir: string;
  fetch: typeof fetch;
  timing: UpdateTiming;
  context: JobContext;
  /** Bar positions of this job: download from..to, then verify and unpack. */
  band: { from: number; to: number };
  hook?: StepHook;
}

/**
 * Empties the download folder: what is there was left by an apply that was killed before its own
 * clean-up (one update job runs at a time, so nothing there is in use).
 */
async function clearDownloads(dir: string): Promise<void> {
  for (const name of await readdir(dir).catch(() => [])) await rm(join(dir, name), { recursive: true, force: true });
}

/** Downloads, verifies and unpacks; resolves with the staged root folder and the staging folder. */
export async function fetchAndStage(request: StageRequest): Promise<{ staged: string; stagingDir: string }> {
  const { release, asset, context, timing, band } = request;
  if (asset === null) throw new JobFailure(`release ${release.tag} has no archive ${request.root}.tar.gz`);
  if (release.sumsAsset === null) throw new JobFailure(`release ${release.tag} has no SHA256SUMS: refused`);
  await clearDownloads(request.downloadDir);
  const sumsFile = join(request.downloadDir, `SHA256SUMS-${release.version.text}`);
  const archiveFile = join(request.downloadDir, asset.name);
  try {
    context.progress(band.from, `downloading ${release.sumsAsset.name}`);
    await download({
      url: release.sumsAsset.url,
      file: sumsFile,
      fetch: request.fetch,
      timeoutMs: timing.downloadTimeoutMs,
      maxBytes: 1024 * 1024,
      signal: context.signal,
    });
    const expected = parseSums(await readFile(sumsFile, 'utf8')).get(asset.name);
    if (expected === undefined)
      throw new JobFailure(`SHA256SUMS of ${release.tag} does not list ${asset.name}: refused`);
    context.progress(band.from + 2, `downloading ${asset.name}`);
    let shown = 0;
    const actual = await download({
      url: asset.url,
      file: archiveFile,
      fetch: request.fetch,
      timeoutMs: timing.downloadTimeoutMs,
      maxBytes: timing.maxArchiveBytes,
      signal: context.signal,
      onProgress: (bytes, total) => {
        if (total === null) return;
        const percent = Math.floor((bytes / total) * 100);
        if (percent >= shown + 10) {
          shown = percent;
          context.progress(
            band.from + 2 + ((band.to - band.from - 2) * percent) / 100,
            `downloading ${asset.name}: ${percent} %`,
          );
        }
      },
    });
    await request.hook?.('downloaded');
    if (actual !== expected) {
      throw new JobFailure(
        `checksum mismatch for ${asset.name}: expected ${expected}, got ${actual}; nothing was changed`,
      );
    }
    context.progress(band.to, `checksum verified (sha256 ${actual.slice(0, 12)}…)`);
    await request.hook?.('verified');
    const stagingDir = await request.store.stage(release.version.text);
    try {
      const limits = { maxUnpackedBytes: timing.maxUnpackedBytes, maxUnpackedFiles: timing.maxUnpackedFiles };
      const staged = await unpack(archiveFile, stagingDir, request.root, limits, context.signal);
      context.progress(band.to + 5, `unpacked into ${stagingDir}`);
      await request.hook?.('unpacked');
      return { staged, stagingDir };
    } catch (error) {
      await rm(stagingDir, { recursive: true, force: true });
      throw error;
    }
  } catch (error) {
    if (error instanceof DownloadError || error instanceof ArchiveError)
      throw new JobFailure(`${error.message}; nothing was changed`);
    throw error;
  } finally {
    await rm(sumsFile, { force: true });
    await rm(archiveFile, { force: true });
  }
}
